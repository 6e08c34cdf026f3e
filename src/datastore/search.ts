// Runs a planned datastore_search: the page, the total, decoded values, and the _table_metadata view.
import { parseType } from './column-types'
import { planSearch, invalidQuery, type OutColumn, type PlannedSearch, type SearchSpec } from './query'
import { decoders } from './records'
import type { DsTable } from './registry'
import { sqliteMessage, type DatastoreReader, type DsResult } from './store'
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

/** A value decoder per output column. */
export function columnDecoders(t: DsTable, columns: OutColumn[]): ((v: unknown) => unknown)[] {
  const dec = decoders(t)
  return columns.map((c) =>
    c.col >= 0 ? (v: unknown) => (v === null ? null : dec[c.col]!(v)) : t.id === TABLE_METADATA && c.col === -1 ? (v: unknown) => v : (v: unknown) => (v === null ? null : Number(v)),
  )
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
    throw invalidQuery(sqliteMessage(e), sql, args)
  }
}

export async function searchTable(
  db: DatastoreReader,
  t: DsTable,
  spec: SearchSpec,
  includeTotal: boolean,
): Promise<SearchOutcome> {
  const plan = planSearch(t, spec)
  let counted: DsResult | undefined
  let page: DsResult
  if (includeTotal && db.queryBatch) {
    // over a network the count rides along in the page's round trip
    const batch = db.queryBatch
    ;[page, counted] = (await run(
      () => batch([{ sql: plan.sql, args: plan.args as InValue[] }, { sql: plan.countSql, args: plan.countArgs as InValue[] }]),
      plan.sql,
      plan.args,
    )) as [DsResult, DsResult]
  } else page = await run(() => db.query(plan.sql, plan.args), plan.sql, plan.args)
  const dec = columnDecoders(t, plan.columns)
  const rows = page.rows.map((r) => r.map((v, i) => dec[i]!(v)))
  let total: number | undefined
  if (includeTotal) {
    // a page that starts at 0 and is not full already holds every match
    if (spec.offset === 0 && rows.length < spec.limit) total = rows.length
    else if (counted) total = Number(counted.rows[0]?.[0] ?? 0)
    else {
      const c = await run(() => db.query(plan.countSql, plan.countArgs), plan.countSql, plan.countArgs)
      total = Number(c.rows[0]?.[0] ?? 0)
    }
  }
  return { plan, rows, total }
}
