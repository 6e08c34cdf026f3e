// Runs a planned datastore_search: the page, the total, decoded values, and the _table_metadata view.
import { parseType } from './column-types'
import { planSearch, invalidQuery, type OutColumn, type PlannedSearch, type SearchSpec } from './query'
import { decoders } from './records'
import { timestampMsOut } from './values'
import type { DsTable } from './registry'
import { SqlTimeout, sqliteMessage, type DatastoreReader, type DsResult } from './store'
import { ValidationError } from '../errors'
import type { InValue } from '@libsql/client'

export const TABLE_METADATA = '_table_metadata'

export const metadataTable: DsTable = {
  id: TABLE_METADATA,
  version: 0,
  columns: [
    { id: 'name', type: 'name' },
    { id: 'oid', type: 'oid' },
    { id: 'alias_of', type: 'name' },
  ],
  types: [parseType('text')!, parseType('int8')!, parseType('text')!],
  position: new Map([
    ['name', 0],
    ['oid', 1],
    ['alias_of', 2],
  ]),
  primary_key: [],
  indexes: [],
  triggers: [],
}

/** How search results show values: `msInTimestamp`, service.datastore.ms_in_timestamp (CKAN 2.12). */
export interface OutputOptions {
  msInTimestamp?: boolean
}

/** A value decoder per output column. */
export function columnDecoders(
  t: DsTable,
  columns: OutColumn[],
  opts: OutputOptions = {},
): ((v: unknown) => unknown)[] {
  const dec = decoders(t)
  const of = (col: number) =>
    opts.msInTimestamp && t.types[col]!.kind === 'timestamp' && !t.types[col]!.array
      ? timestampMsOut
      : dec[col]!
  return columns.map((c) => {
    if (c.col >= 0) {
      const d = of(c.col)
      return (v: unknown) => (v === null ? null : d(v))
    }
    return t.id === TABLE_METADATA && c.col === -1 ? (v: unknown) => v : (v: unknown) => (v === null ? null : Number(v))
  })
}

export interface SearchOutcome {
  plan: PlannedSearch
  rows: unknown[][]
  total?: number
}

async function run<T>(f: () => Promise<T>, sql: string, args: unknown[]): Promise<T> {
  try {
    return await f()
  } catch (e) {
    if (e instanceof SqlTimeout) throw ValidationError.field('query', 'Search took too long')
    throw invalidQuery(sqliteMessage(e), sql, args)
  }
}

/** From this offset a page with a seek (PlannedSearch.seek) seeks instead of walking. */
const SEEK_FROM = 500

/**
 * A deep page through PlannedSearch.seek: the base's row x at the offset with the matches before
 * it (one statement), then the page read from x on. Where more matches than the offset lie before x (rows of the
 * source the base lacks, such as rows deleted since a version), x moves back by the excess, a few
 * times; undefined when it does not settle (the page is then walked).
 */
async function seekPage(
  seek: NonNullable<PlannedSearch['seek']>,
  spec: SearchSpec,
  query: (sql: string, args: InValue[]) => Promise<DsResult>,
): Promise<DsResult | undefined> {
  let at = spec.offset
  for (let attempt = 0; attempt < 4 && at >= 0; attempt++) {
    const found = await run(() => query(seek.at.sql, seek.at.args(at)), seek.at.sql, seek.at.args(at))
    const x = found.rows[0]?.[0] as InValue | undefined
    if (x === undefined || x === null) return undefined
    const before = Number(found.rows[0]?.[1] ?? 0)
    if (before <= spec.offset) {
      const args = seek.page.args(x, spec.limit, spec.offset - before)
      return run(() => query(seek.page.sql, args), seek.page.sql, args)
    }
    at -= before - spec.offset
  }
  return undefined
}

/** Beyond this offset a page walks many rows even without filters. */
const LONG_OFFSET = 10_000

/**
 * Whether a search may take long on a big table: full text, filters, a sort other than by `_id`,
 * distinct rows or a long offset. Those run where a deadline can stop them (the SQL runner:
 * off the main thread and interruptible on Node, an abortable request to a libSQL server); a plain
 * page in `_id` order reads only the rows it returns and takes the direct path.
 */
export function mayTakeLong(spec: SearchSpec): boolean {
  const q = typeof spec.q === 'string' ? spec.q !== '' : !!spec.q && Object.keys(spec.q).length > 0
  const sorts = typeof spec.sort === 'string' ? spec.sort.split(',') : (spec.sort ?? [])
  const bySortOtherThanId = sorts.some((s) => s.trim() !== '' && !/^"?_id"?(\s+(asc|desc))?$/i.test(s.trim()))
  return (
    q ||
    Object.keys(spec.filters ?? {}).length > 0 ||
    spec.distinct ||
    bySortOtherThanId ||
    spec.offset > LONG_OFFSET
  )
}

/**
 * Whether a statement's query plan (the `detail` lines of EXPLAIN QUERY PLAN) may visit many more
 * rows than it returns: a full scan, a temporary b-tree for ORDER BY/DISTINCT, a full-text table.
 * A plan of index lookups only reads what it returns (an offset past LONG_OFFSET is judged apart).
 */
export function planMayTakeLong(details: string[]): boolean {
  return details.some((d) => /^SCAN |TEMP B-TREE|VIRTUAL TABLE/.test(d))
}

/** Rows the runner may return for one search statement (the statement's own LIMIT is lower). */
const RUNNER_MAX_ROWS = 1_000_000

export async function searchTable(
  db: DatastoreReader,
  t: DsTable,
  spec: SearchSpec,
  includeTotal: boolean,
  opts: { timeoutMs?: number } & OutputOptions = {},
): Promise<SearchOutcome> {
  const plan = planSearch(t, spec)
  // where the plan is known at no cost (an embedded file), it decides each statement; else the spec
  const guarded = opts.timeoutMs !== undefined && db.sql && mayTakeLong(spec) ? db.sql : undefined
  const runner =
    guarded && db.statementMayTakeLong && spec.offset <= LONG_OFFSET
      ? [plan.sql, plan.countSql].some((sql) => db.statementMayTakeLong!(sql))
        ? guarded
        : undefined
      : guarded
  const deadline = Date.now() + (opts.timeoutMs ?? 0)
  const query = (sql: string, args: InValue[]): Promise<DsResult> =>
    runner
      ? runner
          .run(sql, { args, timeoutMs: Math.max(1, deadline - Date.now()), maxRows: RUNNER_MAX_ROWS })
          .then((r) => ({ columns: r.columns.map((c) => c.name), rows: r.rows }))
      : db.query(sql, args)
  let counted: DsResult | undefined
  let counting: Promise<DsResult> | undefined
  let page: DsResult
  if (includeTotal && db.queryBatch && !runner) {
    // over a network the count rides along in the page's round trip
    const batch = db.queryBatch
    ;[page, counted] = (await run(
      () => batch([{ sql: plan.sql, args: plan.args as InValue[] }, { sql: plan.countSql, args: plan.countSqlArgs }]),
      plan.sql,
      plan.args,
    )) as [DsResult, DsResult]
  } else {
    // a runner with a local pool runs the count beside the page instead of after it (over a
    // network it would be one more request, even where the page turns out to hold every match)
    if (includeTotal && runner?.concurrent) {
      counting = run(() => query(plan.countSql, plan.countSqlArgs), plan.countSql, plan.countSqlArgs)
      counting.catch(() => {}) // awaited below unless the page fails first or already holds every match
    }
    const sought = plan.seek && spec.offset >= SEEK_FROM ? await seekPage(plan.seek, spec, query) : undefined
    page = sought ?? (await run(() => query(plan.sql, plan.args as InValue[]), plan.sql, plan.args))
  }
  const dec = columnDecoders(t, plan.columns, opts)
  const rows = page.rows.map((r) => r.map((v, i) => dec[i]!(v)))
  let total: number | undefined
  if (includeTotal) {
    // a page that starts at 0 and is not full already holds every match
    if (spec.offset === 0 && rows.length < spec.limit) total = rows.length
    else if (counted) total = Number(counted.rows[0]?.[0] ?? 0)
    else {
      const c = await (counting ??
        run(() => query(plan.countSql, plan.countSqlArgs), plan.countSql, plan.countSqlArgs))
      total = Number(c.rows[0]?.[0] ?? 0)
    }
  }
  return { plan, rows, total }
}
