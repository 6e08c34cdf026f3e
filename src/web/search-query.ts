// The /dataset page's query string → package_search parameters, as CKAN's search page reads it:
// `q`, `sort`, `page`, and every other non-blank parameter (not starting with `_` or `ext_`) as a
// filter `name:"value"` ANDed into `fq`.

export const PAGE_SIZE = 20
export const FACETS = ['organization', 'groups', 'tags', 'res_format', 'license_id'] as const
/** Each facet's heading (a message key of i18n/en.ts). */
export const FACET_TITLES = {
  organization: 'facets.organization',
  groups: 'facets.groups',
  tags: 'facets.tags',
  res_format: 'facets.res_format',
  license_id: 'facets.license_id',
} as const satisfies Record<(typeof FACETS)[number], string>
/** The sort orders offered: [sort, label's message key]. */
export const SORTS = [
  ['score desc, metadata_modified desc', 'sort.relevance'],
  ['title_string asc', 'sort.nameAsc'],
  ['title_string desc', 'sort.nameDesc'],
  ['metadata_modified desc', 'sort.modified'],
] as const
/** CKAN's "Popular" order, offered where usage figures are counted (service.tracking_enabled). */
export const POPULAR = ['views_recent desc', 'sort.popular'] as const

export interface DatasetQuery {
  q: string
  sort: string
  page: number
  /** The filters in the order given: [field, value]. */
  filters: [string, string][]
}

const RESERVED = new Set(['q', 'page', 'sort'])

export function readDatasetQuery(params: URLSearchParams): DatasetQuery {
  const filters: [string, string][] = []
  for (const [k, v] of params) {
    if (RESERVED.has(k) || v === '' || k.startsWith('_') || k.startsWith('ext_')) continue
    // a field name the query language accepts; anything else is dropped rather than breaking q
    if (!/^[A-Za-z_][\w.-]{0,99}$/.test(k)) continue
    filters.push([k, v])
  }
  const page = Number(params.get('page') ?? '1')
  return {
    q: params.get('q') ?? '',
    sort: params.get('sort') ?? '',
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
    filters,
  }
}

/** A value as a quoted phrase of the query language (quotes and backslashes escaped). */
export const phrase = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/** The package_search data dict for `query` (`extraFq`: a filter the page itself adds). */
export function searchParams(query: DatasetQuery, extraFq?: string): Record<string, unknown> {
  const fq = [extraFq, ...query.filters.map(([k, v]) => `${k}:${phrase(v)}`)].filter(Boolean).join(' AND ')
  return {
    q: query.q,
    fq,
    sort: query.sort || (query.q ? SORTS[0]![0] : 'metadata_modified desc'),
    rows: PAGE_SIZE,
    start: (query.page - 1) * PAGE_SIZE,
    'facet.field': JSON.stringify(FACETS),
    'facet.limit': 10,
    include_private: true,
  }
}

/** The page's URL with `changes` applied (undefined removes a parameter; page resets unless set). */
export function withParams(base: string, params: URLSearchParams, changes: Record<string, string | undefined>, opts: { add?: [string, string]; remove?: [string, string] } = {}) {
  const next = new URLSearchParams()
  for (const [k, v] of params) {
    if (k in changes || k === 'page') continue
    if (opts.remove && k === opts.remove[0] && v === opts.remove[1]) continue
    next.append(k, v)
  }
  if (opts.add) next.append(opts.add[0], opts.add[1])
  for (const [k, v] of Object.entries(changes)) if (v !== undefined && v !== '') next.set(k, v)
  const qs = next.toString()
  return qs ? `${base}?${qs}` : base
}
