// Multi-row INSERTs as plain SQL for hot write paths (drizzle's builder costs ~10 µs per row).
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import type { RawStatement } from './executor'

interface TableInfo {
  name: string
  /** property key → column */
  columns: Map<string, SQLiteColumn>
}

const infos = new WeakMap<SQLiteTable, TableInfo>()

function info(table: SQLiteTable): TableInfo {
  let i = infos.get(table)
  if (!i) {
    const cfg = getTableConfig(table)
    const columns = new Map<string, SQLiteColumn>()
    // Keys in schema.ts equal the SQL column names (snake_case).
    for (const c of cfg.columns) columns.set(c.name, c)
    infos.set(table, (i = { name: cfg.name, columns }))
  }
  return i
}

const quote = (id: string) => `"${id.replaceAll('"', '""')}"`

/**
 * `INSERT INTO table (given columns) VALUES (...), (...)` with bound values converted as drizzle
 * would (booleans → 0/1). Columns absent from every row take their database defaults.
 */
export function rawInsert(
  table: SQLiteTable,
  rows: Record<string, unknown>[],
  opts: { onConflictDoNothing?: boolean } = {},
): RawStatement {
  const t = info(table)
  const keys: string[] = []
  const seen = new Set<string>()
  for (const r of rows)
    for (const k of Object.keys(r))
      if (!seen.has(k) && r[k] !== undefined && t.columns.has(k)) {
        seen.add(k)
        keys.push(k)
      }
  const cols = keys.map((k) => t.columns.get(k)!)
  const args: RawStatement['args'] = []
  for (const r of rows)
    cols.forEach((c, i) => {
      const v = r[keys[i]!]
      args.push(v === undefined || v === null ? null : (c.mapToDriverValue(v) as RawStatement['args'][number]))
    })
  const tuple = `(${keys.map(() => '?').join(', ')})`
  const sql =
    `INSERT INTO ${quote(t.name)} (${keys.map(quote).join(', ')}) VALUES ` +
    rows.map(() => tuple).join(', ') +
    (opts.onConflictDoNothing ? ' ON CONFLICT DO NOTHING' : '')
  return { sql, args }
}

/**
 * A row read with plain SQL (`SELECT * FROM table`, e.g. through ctx.read) as drizzle's select()
 * gives it: each column's value converted from the driver's (0/1 → boolean, …), null kept.
 */
export function rowFromDriver<T>(table: SQLiteTable, raw: Record<string, unknown>): T {
  const out: Record<string, unknown> = {}
  for (const [name, c] of info(table).columns) {
    const v = raw[name]
    out[name] = v === undefined || v === null ? null : c.mapFromDriverValue(v)
  }
  return out as T
}
