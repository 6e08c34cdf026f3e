// package_search's result-shaping parameters: the `sort` clause list and the `facet.*` values.
import { fail, field, FieldFail, isMissing, naturalNumber, toInt } from '../validation/fields'
import { pyStr } from '../lib/py-repr'
import { parseBoundedJson } from '../lib/bounded-json'

/** CKAN's default (config `ckan.search.default_package_sort`). */
export const DEFAULT_SORT = 'score desc, metadata_modified desc'

export interface SortKey {
  /** `score` means relevance; anything else is an index field. */
  field: string
  direction: 'asc' | 'desc'
}

/** A `sort` value Solr cannot read; package_search reports it as a Search Query Error. */
export class SortParseError extends Error {
  constructor() {
    super('Invalid "sort" parameter')
  }
}

/**
 * The sort actually used: the default when `sort` is absent, blank or `rank` (CKAN's alias for
 * relevance), otherwise the value as given.
 */
export function effectiveSort(sort: string | null | undefined, defaultSort = DEFAULT_SORT): string {
  return sort === undefined || sort === null || sort.trim() === '' || sort.trim() === 'rank'
    ? defaultSort
    : sort
}

/**
 * Parses `field dir, field dir, ...`. Each clause needs a direction (`asc`/`desc`, any case);
 * a missing or unknown direction, extra words or a function sort throw SortParseError.
 * Field names are not checked here: unknown fields simply have no values (sorted last).
 */
export function parseSort(sort: string): SortKey[] {
  const keys: SortKey[] = []
  const clauses = sort.split(',')
  clauses.forEach((clause, i) => {
    const words = clause
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '')
    // ckan: Solr tolerates a trailing comma
    if (words.length === 0 && i === clauses.length - 1 && i > 0) return
    const [name, dir, ...extra] = words
    const direction = dir?.toLowerCase()
    if (!name || /[()]/.test(name) || extra.length > 0) throw new SortParseError()
    if (direction !== 'asc' && direction !== 'desc') throw new SortParseError()
    keys.push({ field: name, direction })
  })
  return keys
}

/**
 * `facet.field`: a list of field names, or a JSON-encoded list in a string (GET requests).
 * Absent → undefined. Messages are CKAN's: `Could not parse as valid JSON`, `Not a list`,
 * `Not a string: x`.
 */
export function checkFacetFields(v: unknown): string[] | undefined | FieldFail {
  if (v === undefined || v === null) return undefined
  let value = v
  if (typeof v === 'string') {
    try {
      value = parseBoundedJson(v) as typeof value
    } catch {
      return fail('Could not parse as valid JSON')
    }
  }
  if (!Array.isArray(value)) return fail('Not a list')
  for (const item of value)
    if (typeof item !== 'string') return fail(`Not a string: ${pyStr(item)}`)
  return value as string[]
}

export const facetFieldParam = field(checkFacetFields)

/** `facet.limit`: an integer; a negative value means no limit. */
export const facetLimitParam = (def: number) =>
  field((v): number | FieldFail => (isMissing(v) ? def : toInt(v)))

/** `facet.mincount`: a natural number, 1 by default. */
export const facetMincountParam = naturalNumber(1)
