// resource_search: field:term criteria → SQL over the active resources of active public datasets.
import { and, asc, count, eq, getTableColumns, sql, type SQL } from 'drizzle-orm'
import { packages, resources } from '../db/schema'
import type { ActionContext } from '../context'
import { ValidationError } from '../errors'
import { assertFilterLength } from '../validation/fields'
import { parseIsoDate } from './package-validate'
import { resourceToDict, type ResourceRow } from './resource'
import { containsCi, startsWithCi } from './text-match'

/** Field → search terms; every term of every field must match (AND). */
export type ResourceCriteria = Map<string, string[]>

/** ckan: the core columns resource_search accepts (CORE_RESOURCE_COLUMNS). */
const SEARCHABLE = [
  'url',
  'format',
  'description',
  'hash',
  'name',
  'resource_type',
  'mimetype',
  'mimetype_inner',
  'size',
  'created',
  'last_modified',
  'metadata_modified',
  'cache_url',
  'cache_last_updated',
  'url_type',
] as const
type Searchable = (typeof SEARCHABLE)[number]

const DATE_COLUMNS = new Set([
  'created',
  'last_modified',
  'metadata_modified',
  'cache_last_updated',
])

/** ckan: order_by may name any column of the resource table; other names are ignored. */
const ORDERABLE = new Set<string>([
  ...SEARCHABLE,
  'id',
  'package_id',
  'position',
  'state',
  'extras',
])

const PAIRS_ERROR = 'Must be <field>:<value> pair(s)'

/**
 * The criteria from `query` ("field:term" or a list of them) or the deprecated `fields` dict
 * (string terms split on whitespace). Throws CKAN's validation errors.
 */
export function resourceCriteria(query: unknown, fields: Record<string, unknown> | undefined) {
  const isNone = query === undefined || query === null
  if (isNone && fields === undefined) throw new ValidationError({ query: 'Missing value' })
  if (!isNone && fields !== undefined)
    throw new ValidationError({ fields: 'Do not specify if using "query" parameter' })
  const criteria: ResourceCriteria = new Map()
  if (!isNone) {
    const pairs = typeof query === 'string' ? [query] : query
    if (!Array.isArray(pairs)) throw new ValidationError({ query: PAIRS_ERROR })
    assertFilterLength('query', pairs)
    for (const pair of pairs) {
      const colon = typeof pair === 'string' ? pair.indexOf(':') : -1
      if (colon < 0) throw new ValidationError({ query: PAIRS_ERROR })
      // ckan: the pairs become a dict, so a repeated field keeps only its last term
      criteria.set(pair.slice(0, colon), [pair.slice(colon + 1)])
    }
    return criteria
  }
  for (const [field, terms] of Object.entries(fields!)) {
    const list = legacyTerms(terms)
    assertFilterLength('fields', list)
    criteria.set(field, list)
  }
  return criteria
}

function legacyTerms(v: unknown): string[] {
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean)
  const scalar = (x: unknown) =>
    typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean'
  if (Array.isArray(v)) return v.filter(scalar).map(String)
  return scalar(v) ? [String(v)] : []
}

const FALSE = sql`0`

/** The condition one term puts on one field (`extraFields`: config extra_resource_fields). */
function termCondition(field: string, term: string, extraFields: string[]): SQL {
  if (field === 'hash') return startsWithCi(resources.hash, term) // ckan: hash is a prefix match
  if (extraFields.includes(field)) {
    // ckan: matched in the JSON of the extras; here against that key's string value only
    const json = resources.extras
    const extras = sql`case when json_valid(${json}) then ${json} else '{}' end`
    const value = containsCi(sql`je.value`, term)
    return sql`exists (select 1 from json_each(${extras}) as je
      where je.key = ${field} and je.type = 'text' and ${value})`
  }
  const col = resources[field as Searchable]
  if (field === 'size')
    return /^\s*[-+]?\d+\s*$/.test(term) ? eq(resources.size, Number(term)) : FALSE
  if (DATE_COLUMNS.has(field)) {
    // ckan: timestamp equality; stored values are isoformat() text
    const at = parseIsoDate(term)
    if (typeof at !== 'string') return FALSE
    const forms = at.includes('.') ? [at] : [at, `${at}.000000`]
    return sql`${col} in (${sql.join(
      forms.map((f) => sql`${f}`),
      sql`, `,
    )})`
  }
  return containsCi(col, term)
}

export interface ResourceSearch {
  criteria: ResourceCriteria
  orderBy?: string
  offset?: number
  limit?: number
}

/**
 * Runs a resource search: `count` is the total, `results` the page (chosen by `orderBy`) as
 * resource dicts re-sorted by position.
 */
export async function searchResources(ctx: ActionContext, s: ResourceSearch) {
  const extraFields = ctx.config.list('service.extra_resource_fields')
  const where: SQL[] = [
    eq(resources.state, 'active'),
    eq(packages.state, 'active'),
    eq(packages.private, false),
  ]
  for (const [field, terms] of s.criteria) {
    if (!(SEARCHABLE as readonly string[]).includes(field) && !extraFields.includes(field))
      throw new ValidationError({ query: `Field "${field}" not recognised in resource_search.` })
    for (const term of terms) where.push(termCondition(field, term, extraFields))
  }
  const cond = and(...where)
  const [total] = await ctx.db
    .select({ n: count() })
    .from(resources)
    .innerJoin(packages, eq(packages.id, resources.package_id))
    .where(cond)
  const order: SQL[] = []
  if (s.orderBy && ORDERABLE.has(s.orderBy)) {
    const col = resources[s.orderBy as keyof ResourceRow]
    order.push(sql`${col} is null`, asc(col)) // ckan: PostgreSQL puts NULLs last
  }
  const rows = await ctx.db
    .select(getTableColumns(resources))
    .from(resources)
    .innerJoin(packages, eq(packages.id, resources.package_id))
    .where(cond)
    .orderBy(...order, asc(resources.created), asc(resources.id))
    // drizzle drops a negative limit, and SQLite's OFFSET needs a LIMIT
    .limit(s.limit ?? Number.MAX_SAFE_INTEGER)
    .offset(s.offset ?? 0)
  const siteUrl = ctx.config.str('service.site_url')
  // ckan: resource_list_dictize sorts the page by position
  const page = [...rows].sort((a, b) => a.position - b.position)
  return { count: total?.n ?? 0, results: page.map((r) => resourceToDict(r, siteUrl)) }
}
