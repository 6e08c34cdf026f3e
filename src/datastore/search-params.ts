// datastore_search parameters (datastore.md §6.1): checked all at once, CKAN's messages.
import { asText } from '../model/package-validate'
import type { Config } from '../config/load'
import { apiAtLeast } from '../config/api-compat'
import { ValidationError } from '../errors'
import { FieldFail, isMissing, MISSING, toBool, toInt } from '../validation/fields'
import { queryTooBig } from './fts'
import { toList } from './params'
import type { SearchSpec } from './query'
import { parseBoundedJson } from '../lib/bounded-json'
import { aggregationEcho, aggregationParams, type Aggregation } from './aggregate'

const KNOWN = new Set([
  'resource_id', 'id', 'filters', 'q', 'plain', 'language', 'distinct', 'fields', 'sort', 'limit',
  'offset', 'include_total', 'total_estimation_threshold', 'records_format', 'include_next_page', '_', 'callback',
  'full_text', 'group_by', 'aggregates', 'as_of',
])

export const RECORDS_FORMATS = ['objects', 'lists', 'csv', 'tsv'] as const
export type RecordsFormat = (typeof RECORDS_FORMATS)[number]

export interface SearchParams {
  resource_id: string
  spec: SearchSpec
  include_total: boolean
  /** CKAN 2.12: return `next_page`, the `_id` filter of the next page (keyset paging). */
  include_next_page: boolean
  total_estimation_threshold: number | null
  records_format: RecordsFormat
  /** The validated parameters that were sent, as the result echoes them. */
  echo: Record<string, unknown>
  /** Errors CKAN finds only after the authorization check (its backend's validate()). */
  late?: ValidationError
  /** group_by and aggregates (beyond CKAN): the answer is one row per group. */
  aggregation?: Aggregation
}


function jsonObject(v: unknown): Record<string, unknown> | string | undefined {
  if (typeof v === 'string') {
    try {
      v = parseBoundedJson(v)
    } catch {
      return 'Cannot parse JSON'
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

/** CKAN's list_of_strings_or_string: a string, or a list of strings; the message otherwise. */
function listProblem(v: unknown): string | undefined {
  if (typeof v === 'string') return undefined
  if (!Array.isArray(v)) return 'Not a list'
  const bad = v.find((x) => typeof x !== 'string' && !Array.isArray(x))
  return bad === undefined ? undefined : `Neither a string nor a list: ${JSON.stringify(bad)}`
}

export function searchParams(input: Record<string, unknown>, config: Config): SearchParams {
  const errors: Record<string, string[]> = {}
  const err = (k: string, m: string) => (errors[k] ??= []).push(m)
  const echo: Record<string, unknown> = {}

  const rid = input.resource_id ?? input.id
  if (isMissing(rid) || typeof rid === 'object') err('resource_id', MISSING)

  let filters: Record<string, unknown> | undefined
  if (input.filters !== undefined && input.filters !== null && input.filters !== '') {
    const f = jsonObject(input.filters)
    if (typeof f === 'string') err('filters', f)
    else if (!f) err('filters', 'Cannot parse JSON')
    else filters = echo.filters = f
  }

  let q: SearchSpec['q']
  let fullText: string | undefined
  if (input.q !== undefined && input.q !== null) {
    if (typeof input.q === 'object') {
      if (Array.isArray(input.q)) err('q', `invalid value "${JSON.stringify(input.q)}"`)
      else q = input.q as Record<string, string>
    } else {
      const s = asText(input.q)
      const parsed = s.trim().startsWith('{') ? jsonObject(s) : undefined
      q = parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : s
    }
    echo.q = q
    const texts = typeof q === 'string' ? [q] : Object.values(q ?? {})
    const big = texts.map((x) => (typeof x === 'string' ? queryTooBig(x) : undefined)).find(Boolean)
    if (big) err('q', big)
  }

  // ckan 2.10: full_text searches whole rows; it takes the place of a q string, and is ANDed
  // with a q dict (its rank is `rank`, beside the columns' `rank <column>`)
  if (input.full_text !== undefined && input.full_text !== null) {
    const text = typeof input.full_text === 'string' ? input.full_text : JSON.stringify(input.full_text)
    echo.full_text = text
    const big = queryTooBig(text)
    if (big) err('full_text', big)
    else if (text !== '') {
      if (q && typeof q === 'object' && Object.keys(q).length) fullText = text
      else q = text
    }
  }

  const bool = (k: string, def: boolean) => {
    const v = input[k]
    if (v === undefined || v === null || v === '') return def
    return (echo[k] = toBool(v))
  }
  const plain = bool('plain', true)
  const distinct = bool('distinct', false)
  const include_total = bool('include_total', true)
  delete echo.include_total

  let language = config.str('service.datastore.default_fts_lang') || 'english'
  if (typeof input.language === 'string' && input.language !== '') language = echo.language = input.language

  let fields: string[] | undefined
  if (input.fields !== undefined && input.fields !== null && input.fields !== '') {
    const problem = listProblem(input.fields)
    if (problem) err('fields', problem)
    else fields = toList(input.fields)
  }

  let sort: string | string[] | undefined
  if (input.sort !== undefined && input.sort !== null && input.sort !== '') {
    const problem = listProblem(input.sort)
    if (problem) err('sort', problem)
    else sort = echo.sort = Array.isArray(input.sort) ? input.sort.map(asText) : asText(input.sort)
  }

  const rowsMax = config.int('service.datastore.search.rows_max')
  // ckan: the maximum applies to the configured default too
  let limit = Math.min(config.int('service.datastore.search.rows_default'), rowsMax)
  if (!isMissing(input.limit)) {
    const n = toInt(input.limit)
    if (n instanceof FieldFail) n.msgs.forEach((m) => err('limit', m))
    else if (n < 0) err('limit', 'Must be a natural number')
    else limit = Math.min(n, rowsMax)
  }

  // ckan: unknown keys and a negative offset are found by the backend, after authorization
  const late: Record<string, string[]> = {}
  let offset = 0
  if (!isMissing(input.offset)) {
    const n = toInt(input.offset)
    if (n instanceof FieldFail) n.msgs.forEach((m) => err('offset', m))
    else if (n < 0) late.offset = [`invalid value "${n}"`]
    else offset = echo.offset = n
  }

  let total_estimation_threshold: number | null = null
  if (!isMissing(input.total_estimation_threshold)) {
    const n = toInt(input.total_estimation_threshold)
    if (n instanceof FieldFail) n.msgs.forEach((m) => err('total_estimation_threshold', m))
    else total_estimation_threshold = n
  }

  let records_format: RecordsFormat = 'objects'
  if (!isMissing(input.records_format)) {
    const f = asText(input.records_format)
    if (!(RECORDS_FORMATS as readonly string[]).includes(f))
      err('records_format', `Value must be one of ['objects', 'lists', 'csv', 'tsv']`)
    else records_format = f as RecordsFormat
  }

  const include_next_page = toBool(input.include_next_page ?? false)
  const aggregation = aggregationParams(input, { distinct, includeNextPage: include_next_page }, err)
  if (aggregation) Object.assign(echo, aggregationEcho(aggregation))

  const extra = Object.keys(input).find((k) => !KNOWN.has(k))
  if (extra !== undefined) late.__extras = [`invalid value "${extra}"`]
  if (Object.keys(errors).length) throw new ValidationError(errors)

  return {
    resource_id: String(rid),
    spec: {
      filters,
      q,
      fullText,
      plain,
      language,
      distinct,
      fields,
      sort,
      limit,
      offset,
      textFiltersAsText: apiAtLeast(config, '2.11'),
    },
    include_total,
    include_next_page,
    total_estimation_threshold,
    records_format,
    echo,
    late: Object.keys(late).length ? new ValidationError(late) : undefined,
    aggregation,
  }
}
