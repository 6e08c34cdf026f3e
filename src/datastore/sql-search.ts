// datastore_search_sql: guard, table permissions, time-limited run, CKAN's output (datastore.md §7).
import { apiAtLeast } from '../config/api-compat'
import { timeLeft, type ActionContext } from '../context'
import { ValidationError } from '../errors'
import { explainTables } from './client-store'
import { findTable, type DsTable } from './registry'
import { allowedFunctions, guardSql, pgMessage, SqlRefused } from './sql-guard'
import { SqlTimeout, sqliteMessage, type DatastoreReader, type SqlResult } from './store'
import { fromStoredSql } from './values'

/**
 * What datastore_search_sql asks auth/ (auth/datastore.ts `sqlSearchRules`): the refusal of a
 * table the guard kept out on permission grounds, and the check of every table a query reads.
 */
export interface SqlSearchRules {
  permissionRefused(message: string): Error
  readTables(tables: { name: string; isTable: boolean }[]): Promise<void>
}

const sqlError = (e: unknown, sql: string) => {
  const msg = e instanceof SqlRefused ? e.message : pgMessage(sqliteMessage(e))
  const info = { statement: [sql], params: [{}], orig: [msg] }
  return new ValidationError({ query: [msg], info })
}

function refused(e: SqlRefused, rules: SqlSearchRules, sql: string): Error {
  if (e.kind === 'auth') return rules.permissionRefused(e.message)
  return e.kind === 'syntax' ? sqlError(e, sql) : ValidationError.field('query', e.message)
}

/** Every table the query reads must be a DataStore table the caller may read. */
async function authorizeTables(db: DatastoreReader, tables: string[], rules: SqlSearchRules) {
  const byName = new Map<string, DsTable>()
  const found: { name: string; isTable: boolean }[] = []
  for (const name of tables) {
    const t = await findTable(db, name)
    if (t) byName.set(name, t)
    found.push({ name, isTable: !!t })
  }
  await rules.readTables(found)
  return byName
}

// The guard's wrapper around the user's (checked, rewritten) statement.
const WRAPPED = /^SELECT \* FROM \(([\s\S]*)\) AS t LIMIT \d+$/

/**
 * A syntax error of the wrapped statement as the user's statement alone reports it, so that
 * `SELECT … WHERE` fails "at end of input", not near the wrapper's ")". The inner text is what
 * the guard checked, and it is only compiled (EXPLAIN), never run.
 */
async function syntaxErrorOfInner(
  compile: (sql: string) => Promise<unknown>,
  wrapped: string,
  e: unknown,
): Promise<unknown> {
  const inner = WRAPPED.exec(wrapped)?.[1]
  if (!inner || !/syntax error$|^incomplete input$/.test(sqliteMessage(e))) return e
  try {
    await compile(inner)
  } catch (innerError) {
    return innerError
  }
  return e
}

function guessType(rows: unknown[][], i: number): string {
  for (const r of rows) {
    const v = r[i]
    if (v === null || v === undefined) continue
    if (typeof v === 'number') return Number.isInteger(v) ? 'int8' : 'float8'
    if (typeof v === 'bigint') return 'int8'
    return 'text'
  }
  return 'text'
}

export async function searchSql(
  ctx: ActionContext,
  db: DatastoreReader,
  sql: string,
  rules: SqlSearchRules,
) {
  const rowsMax = ctx.config.int('service.datastore.search.rows_max')
  let guarded
  try {
    const allowed = allowedFunctions(ctx.config.list('service.datastore.sqlsearch.allowed_functions'))
    guarded = guardSql(sql, rowsMax, allowed)
  } catch (e) {
    if (e instanceof SqlRefused) throw refused(e, rules, sql)
    throw e
  }
  const tablesRead = (q: string) => (db.sql ? db.sql.tablesRead(q) : explainTables(db, q))
  let tables: string[]
  try {
    tables = await tablesRead(guarded.sql)
  } catch (e) {
    throw sqlError(await syntaxErrorOfInner(tablesRead, guarded.sql, e), sql)
  }
  const known = await authorizeTables(db, tables, rules)
  let result: SqlResult
  try {
    const timeoutMs = timeLeft(ctx, ctx.config.int('service.datastore.sqlsearch.timeout_ms'))
    if (db.sql) result = await db.sql.run(guarded.sql, { timeoutMs, maxRows: rowsMax + 1 })
    else {
      const r = await db.query(guarded.sql)
      const columns = r.columns.map((name) => ({ name, table: null, column: null }))
      result = { columns, rows: r.rows }
    }
  } catch (e) {
    if (e instanceof SqlTimeout) throw ValidationError.field('query', 'Query took too long')
    throw sqlError(e, sql)
  }
  // ckan 2.11 keeps a numeric column's Decimal, which its JSON encoder writes as a number
  const numericAsNumber = apiAtLeast(ctx.config, '2.11')
  const truncated = result.rows.length > rowsMax
  const rows = truncated ? result.rows.slice(0, rowsMax) : result.rows
  const fields = result.columns.map((c, i) => {
    const t = c.table ? known.get(c.table) : undefined
    if (t && c.column === '_id') return { id: c.name, type: 'int4', decode: (v: unknown) => v }
    const pos = t && c.column ? t.position.get(c.column) : undefined
    if (t && pos !== undefined) {
      const type = t.types[pos]!
      const decode = (v: unknown) => (v === null ? null : fromStoredSql(type, v, numericAsNumber))
      return { id: c.name, type: type.name, decode }
    }
    return { id: c.name, type: guessType(rows, i), decode: (v: unknown) => v }
  })
  const records = rows.map((r) => {
    const o: Record<string, unknown> = {}
    fields.forEach((f, i) => (o[f.id] = f.decode(r[i] ?? null)))
    return o
  })
  const out: Record<string, unknown> = {
    sql,
    fields: fields.map((f) => ({ id: f.id, type: f.type })),
    records,
  }
  if (truncated) out.records_truncated = true
  return out
}
