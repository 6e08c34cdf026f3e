// package_search end to end: every way a request can be refused (search.md §1, §3.2, §5;
// protocol.md §6.5), with CKAN's status, __type and message – and never a 500.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv

beforeAll(async () => {
  t = await setup()
  const sys = await t.make.sysadmin()
  await t.make.dataset(sys, { name: 'some-data', tags: [{ name: 'water' }] })
})

interface ErrorCase {
  label?: string
  params: Record<string, unknown>
  status: number
  error: Record<string, unknown> | ((e: Record<string, unknown>) => void)
}

function table(cases: ErrorCase[]) {
  for (const c of cases) {
    it(c.label ?? JSON.stringify(c.params), async () => {
      const r = await t.call('package_search', c.params)
      expect(r.status).not.toBe(500)
      expect(r.body.success).toBe(false)
      expect(r.status).toBe(c.status)
      if (typeof c.error === 'function') c.error(r.body.error)
      else expect(r.body.error).toEqual(c.error)
    })
  }
}

const queryError = (keys: string) => ({
  __type: 'Search Query Error',
  message: `Search Query is invalid: "Invalid search parameters: [${keys}]"`,
})
const BAD_SORT = { __type: 'Search Query Error', message: `Search Query is invalid: 'Invalid "sort" parameter'` }
const localParams = (param: string) => ({
  __type: 'Search Error',
  message: `Search error: "Local parameters are not supported in param '${param}'."`,
})
const searchError = (e: Record<string, unknown>) => {
  expect(e.__type).toBe('Search Error')
  expect(e.message).toMatch(/^Search error: /)
  expect(Object.keys(e).sort()).toEqual(['__type', 'message'])
}
const validation = (fields: Record<string, string[]>) => ({ __type: 'Validation Error', ...fields })

describe('package_search unknown parameters (400 Search Query Error)', () => {
  table([
    { params: { weird_param: 'x' }, status: 400, error: queryError("'weird_param'") },
    { params: { q: 'water', rows: 5, weird_param: 1 }, status: 400, error: queryError("'weird_param'") },
    { params: { id: 'some-data' }, status: 400, error: queryError("'id'") },
    { params: { limit: 5 }, status: 400, error: queryError("'limit'") },
  ])

  it('answers the same over GET', async () => {
    const r = await t.get('/api/3/action/package_search?q=water&weird_param=x')
    expect(r.status).toBe(400)
    expect(r.body.error).toEqual(queryError("'weird_param'"))
  })

  it('lists every unknown parameter', async () => {
    const r = await t.call('package_search', { foo: 1, bar: 2 })
    expect(r.status).toBe(400)
    expect(r.body.error.__type).toBe('Search Query Error')
    expect([
      `Search Query is invalid: "Invalid search parameters: ['foo', 'bar']"`,
      `Search Query is invalid: "Invalid search parameters: ['bar', 'foo']"`,
    ]).toContain(r.body.error.message)
  })
})

describe('package_search bad sort (400 Search Query Error)', () => {
  table([
    { label: 'no direction', params: { sort: 'name' }, status: 400, error: BAD_SORT },
    { label: 'unknown direction', params: { sort: 'name up' }, status: 400, error: BAD_SORT },
    { label: 'second clause without direction', params: { sort: 'name asc, title_string' }, status: 400, error: BAD_SORT },
    { label: 'extra words', params: { sort: 'name asc desc' }, status: 400, error: BAD_SORT },
  ])
})

describe('package_search local parameters (409 Search Error)', () => {
  table([
    { params: { q: '{!lucene}*:*' }, status: 409, error: localParams('q') },
    { params: { q: '{!dismax qf=name}water' }, status: 409, error: localParams('q') },
    { label: 'nested in a query', params: { q: 'title:x OR _query_:"{!dismax}water"' }, status: 409, error: localParams('q') },
    { params: { fq: '{!bool must=test} +site_id:test' }, status: 409, error: localParams('fq') },
    { params: { fq_list: ['tags:water', '{!frange l=1}x'] }, status: 409, error: localParams('fq_list') },
  ])
})

describe('package_search unparsable q / fq (409 Search Error)', () => {
  table([
    { params: { q: 'tags:(water' }, status: 409, error: searchError },
    { params: { q: 'tags:water)' }, status: 409, error: searchError },
    { params: { q: 'tags:water AND' }, status: 409, error: searchError },
    { params: { fq: 'title:"unterminated' }, status: 409, error: searchError },
    { params: { fq: 'AND' }, status: 409, error: searchError },
    { params: { fq: 'tags:[a TO' }, status: 409, error: searchError },
    { params: { fq: 'tags:[a b]' }, status: 409, error: searchError },
    { params: { fq: 'metadata_modified:[NOW-1FOO TO *]' }, status: 409, error: searchError },
    { params: { fq: 'metadata_modified:[notadate TO *]' }, status: 409, error: searchError },
    { params: { fq_list: ['tags:water', '(unclosed'] }, status: 409, error: searchError },
  ])
})

describe('package_search invalid numbers (409 Validation Error)', () => {
  table([
    { params: { rows: 'abc' }, status: 409, error: validation({ rows: ['Invalid integer'] }) },
    { params: { rows: -1 }, status: 409, error: validation({ rows: ['Must be a natural number'] }) },
    { params: { rows: '-5' }, status: 409, error: validation({ rows: ['Must be a natural number'] }) },
    { params: { rows: 1.5 }, status: 409, error: validation({ rows: ['Invalid integer'] }) },
    { params: { start: '1e3' }, status: 409, error: validation({ start: ['Invalid integer'] }) },
    { params: { start: 'x' }, status: 409, error: validation({ start: ['Invalid integer'] }) },
    { params: { start: -1 }, status: 409, error: validation({ start: ['Must be a natural number'] }) },
    {
      params: { rows: 'x', start: -2 },
      status: 409,
      error: validation({ rows: ['Invalid integer'], start: ['Must be a natural number'] }),
    },
    { params: { 'facet.mincount': -1 }, status: 409, error: validation({ 'facet.mincount': ['Must be a natural number'] }) },
    { params: { 'facet.limit': 'many' }, status: 409, error: validation({ 'facet.limit': ['Invalid integer'] }) },
  ])

  it('answers the same over GET', async () => {
    const r = await t.get('/api/3/action/package_search?rows=abc')
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual(validation({ rows: ['Invalid integer'] }))
  })
})

describe('package_search bad facet.field (409 Validation Error)', () => {
  table([
    { label: 'a plain string', params: { 'facet.field': 'tags' }, status: 409, error: validation({ 'facet.field': ['Could not parse as valid JSON'] }) },
    { label: 'a JSON object string', params: { 'facet.field': '{"a": 1}' }, status: 409, error: validation({ 'facet.field': ['Not a list'] }) },
    { label: 'a JSON string string', params: { 'facet.field': '"tags"' }, status: 409, error: validation({ 'facet.field': ['Not a list'] }) },
    { label: 'an object', params: { 'facet.field': { tags: 1 } }, status: 409, error: validation({ 'facet.field': ['Not a list'] }) },
  ])

  it('answers the same over GET', async () => {
    const r = await t.get('/api/3/action/package_search?facet.field=tags')
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual(validation({ 'facet.field': ['Could not parse as valid JSON'] }))
  })
})

describe('package_search odd but valid input (200)', () => {
  it.each([
    [{ q: 'AND' }],
    [{ q: 'NOT' }],
    [{ q: '"' }],
    [{ q: '(' }],
    [{ q: '+' }],
    [{ q: '-' }],
    [{ q: 'water )' }],
    [{ q: '*' }],
    [{ fq: '' }],
    [{ fq: '   ' }],
    [{ fq_list: [] }],
    [{ rows: '0' }],
    [{ rows: 1000000 }],
    [{ start: 1000000 }],
    [{ 'facet.field': [] }],
    [{ 'facet.field': ['nosuchfield'] }],
    [{ 'facet.limit': 0, 'facet.field': ['tags'] }],
    [{ fl: '' }],
    [{ fl: ['nosuch'] }],
    [{ sort: 'nosuchfield asc' }],
    [{ sort: 'views_recent desc' }],
    [{ sort: 'score desc, metadata_modified desc, name asc' }],
    [{ rows: '' }],
    [{ rows: null }],
    [{ include_private: 'True', include_drafts: 'false' }],
    [{ use_default_schema: true }],
    [{ q: 'water', defType: 'edismax' }],
    [{ q: 'water', qf: 'name^4 title^4 text' }],
    [{ q: 'water river', mm: '1' }],
    [{ q: 'water', tie: '0.1', bf: 'recip(ms(NOW,metadata_modified),1,1,1)', boost: '' }],
    [{ wt: 'json', df: 'text', 'q.op': 'AND' }],
    [{ fq: 'metadata_modified:[NOW-1DAY TO NOW-2DAYS]' }],
  ])('accepts %j', async (params) => {
    const r = await t.call('package_search', params)
    expect({ status: r.status, body: r.status === 200 ? 'ok' : r.body }).toEqual({ status: 200, body: 'ok' })
  })
})
