// Unit tests for package_search's sort parsing and facet parameter validation.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  DEFAULT_SORT,
  effectiveSort,
  facetFieldParam,
  facetLimitParam,
  facetMincountParam,
  parseSort,
  SortParseError,
} from '../../src/search/sort'

describe('parseSort', () => {
  it.each([
    [
      DEFAULT_SORT,
      [
        { field: 'score', direction: 'desc' },
        { field: 'metadata_modified', direction: 'desc' },
      ],
    ],
    ['metadata_modified desc', [{ field: 'metadata_modified', direction: 'desc' }]],
    ['metadata_created asc', [{ field: 'metadata_created', direction: 'asc' }]],
    ['name asc', [{ field: 'name', direction: 'asc' }]],
    ['title_string desc', [{ field: 'title_string', direction: 'desc' }]],
    ['views_recent desc', [{ field: 'views_recent', direction: 'desc' }]],
    [
      '  name   DESC ,title_string  Asc ',
      [
        { field: 'name', direction: 'desc' },
        { field: 'title_string', direction: 'asc' },
      ],
    ],
    [
      'score desc,name asc',
      [
        { field: 'score', direction: 'desc' },
        { field: 'name', direction: 'asc' },
      ],
    ],
    ['name asc,', [{ field: 'name', direction: 'asc' }]],
  ])('parses %j', (sort, expected) => {
    expect(parseSort(sort)).toEqual(expected)
  })

  it.each([
    ['name'],
    ['name up'],
    ['name asc extra'],
    ['name asc, title'],
    [',name asc'],
    ['name asc,, title asc'],
    ['sum(a,b) desc'],
    ['asc'],
  ])('rejects %j with Invalid "sort" parameter', (sort) => {
    expect(() => parseSort(sort)).toThrow(SortParseError)
    expect(() => parseSort(sort)).toThrow('Invalid "sort" parameter')
  })
})

describe('effectiveSort', () => {
  it.each([
    [undefined, DEFAULT_SORT],
    [null, DEFAULT_SORT],
    ['', DEFAULT_SORT],
    ['rank', DEFAULT_SORT],
    ['name asc', 'name asc'],
  ])('uses %j as %j', (sort, expected) => {
    expect(effectiveSort(sort)).toBe(expected)
  })

  it('takes the configured default', () => {
    expect(effectiveSort('rank', 'name asc')).toBe('name asc')
  })
})

describe('facet parameters', () => {
  const schema = z.object({
    'facet.field': facetFieldParam,
    'facet.limit': facetLimitParam(50),
    'facet.mincount': facetMincountParam,
  })
  const errors = (input: object) => {
    const r = schema.safeParse(input)
    return r.success ? null : z.flattenError(r.error).fieldErrors
  }

  it('reads facet.field from a list or a JSON string and applies defaults', () => {
    expect(schema.parse({ 'facet.field': ['tags', 'groups'] })).toEqual({
      'facet.field': ['tags', 'groups'],
      'facet.limit': 50,
      'facet.mincount': 1,
    })
    expect(
      schema.parse({ 'facet.field': '["res_format"]', 'facet.limit': '-1', 'facet.mincount': '0' }),
    ).toEqual({
      'facet.field': ['res_format'],
      'facet.limit': -1,
      'facet.mincount': 0,
    })
  })

  it.each([
    [{ 'facet.field': 'tags' }, { 'facet.field': ['Could not parse as valid JSON'] }],
    [{ 'facet.field': '' }, { 'facet.field': ['Could not parse as valid JSON'] }],
    [{ 'facet.field': '"tags"' }, { 'facet.field': ['Not a list'] }],
    [{ 'facet.field': { tags: 1 } }, { 'facet.field': ['Not a list'] }],
    [{ 'facet.field': ['tags', 1] }, { 'facet.field': ['Not a string: 1'] }],
    [{ 'facet.field': '["tags", true]' }, { 'facet.field': ['Not a string: True'] }],
    [{ 'facet.limit': 'many' }, { 'facet.limit': ['Invalid integer'] }],
    [{ 'facet.mincount': '-1' }, { 'facet.mincount': ['Must be a natural number'] }],
    [{ 'facet.mincount': 'x' }, { 'facet.mincount': ['Invalid integer'] }],
  ])('rejects %j', (input, expected) => {
    expect(errors(input)).toEqual(expected)
  })
})
