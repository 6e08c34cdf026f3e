// Table versions (beyond CKAN): superseded row images in a history table per versioned table, one
// `_ds_version` row per write batch, and the SQL that reads a table as it was at a version.
import type { InValue } from '@libsql/client'
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { parseType } from './column-types'
import { quoteIdent } from './ident'
import type { DsColumn, DsTable } from './registry'
import type { DatastoreDb, DatastoreReader } from './store'

/*
 * The public version number is `_ds_table.version`: every write batch bumps it (writeGuard). A
 * versioned table records each of its versions in `_ds_version` (time, kind of write, the largest
 * `_id` at that version, its columns, row counts). Rows are never copied on insert: `_id` is
 * AUTOINCREMENT and never reused, so a row existed at version V when its `_id` is at most V's
 * `max_id` and it was not removed by then. An update or delete copies the old image of the row
 * (JSON, keyed by column name) into `_hist_<id>` with `_v_to`, the last version it was current in;
 * the image of a row at V is its first image with `_v_to >= V`, else the row as it is now. A column
 * drop and a load's swap copy every row first; a column added later is left out of earlier
 * versions by their own column lists.
 */

export const histName = (id: string) => `_hist_${id}`
const trgName = (id: string, op: 'upd' | 'del') => `_trg_${id}_h${op}`

export const VERSION_DDL = [
  `CREATE TABLE IF NOT EXISTS _ds_version (
     table_id TEXT NOT NULL, version INTEGER NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL,
     max_id INTEGER NOT NULL, columns TEXT NOT NULL, total INTEGER, added INTEGER, changed INTEGER,
     removed INTEGER, PRIMARY KEY (table_id, version)) WITHOUT ROWID`,
]

export type WriteKind = 'create' | 'insert' | 'upsert' | 'update' | 'delete' | 'run_triggers' | 'load'

const s = (sql: string): RawStatement => ({ sql, args: [] })
const lit = (v: string) => `'${v.replaceAll("'", "''")}'`
const versionOf = (id: string) => `(SELECT version FROM _ds_table WHERE id = ${lit(id)})`
const image = (columns: DsColumn[], row: string) =>
  `json_object(${columns.map((c) => `${lit(c.id)}, ${row}.${quoteIdent(c.id)}`).join(', ')})`

/** The history table of `id` (kept across swaps and column changes). */
export const historyTableStatements = (id: string): RawStatement[] => [
  s(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(histName(id))} (_id INTEGER NOT NULL, _v_to INTEGER NOT NULL, ` +
      `_row TEXT NOT NULL, PRIMARY KEY (_id, _v_to)) WITHOUT ROWID`,
  ),
  s(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`_hidx_${id}`)} ON ${quoteIdent(histName(id))} (_v_to)`),
]

export const dropHistoryTriggerStatements = (id: string): RawStatement[] => [
  s(`DROP TRIGGER IF EXISTS ${quoteIdent(trgName(id, 'upd'))}`),
  s(`DROP TRIGGER IF EXISTS ${quoteIdent(trgName(id, 'del'))}`),
]

/**
 * The triggers that copy a row's old image on update (only when a value changed; a row updated
 * twice in one batch keeps its first image) and on delete. Recreated whenever the columns change.
 */
export function historyTriggerStatements(id: string, columns: DsColumn[]): RawStatement[] {
  const t = quoteIdent(id)
  const ins = (row: string) =>
    `INSERT OR IGNORE INTO ${quoteIdent(histName(id))} (_id, _v_to, _row) VALUES (${row}._id, ${versionOf(id)}, ${image(columns, row)});`
  const changed = columns.length
    ? columns.map((c) => `OLD.${quoteIdent(c.id)} IS NOT NEW.${quoteIdent(c.id)}`).join(' OR ')
    : '0'
  return [
    ...dropHistoryTriggerStatements(id),
    s(`CREATE TRIGGER ${quoteIdent(trgName(id, 'upd'))} AFTER UPDATE ON ${t} WHEN ${changed} BEGIN ${ins('OLD')} END`),
    s(`CREATE TRIGGER ${quoteIdent(trgName(id, 'del'))} AFTER DELETE ON ${t} BEGIN ${ins('OLD')} END`),
  ]
}

/** Copies every row's image (before a column drop or a swap supersedes them all). */
export const copyAllStatement = (id: string, columns: DsColumn[]): RawStatement =>
  s(
    `INSERT OR IGNORE INTO ${quoteIdent(histName(id))} (_id, _v_to, _row) ` +
      `SELECT t._id, ${versionOf(id)}, ${image(columns, 't')} FROM ${quoteIdent(id)} t`,
  )

/** Drops the history of a table (datastore_delete of the whole table). */
export const dropHistoryStatements = (id: string): RawStatement[] => [
  s(`DROP TABLE IF EXISTS ${quoteIdent(histName(id))}`),
  { sql: 'DELETE FROM _ds_version WHERE table_id = ?', args: [id] },
]

/**
 * A write batch's last statement: records the version the batch made, when the table is
 * versioned (nothing otherwise). Counts: rows now, rows added (new `_id`s), changed and removed.
 */
export function recordVersionStmt(id: string, kind: WriteKind, at: string): RawStatement {
  const t = quoteIdent(id)
  const h = quoteIdent(histName(id))
  const seq = `coalesce((SELECT seq FROM sqlite_sequence WHERE name = ${lit(id)}), 0)`
  const prev = (col: string) =>
    `(SELECT ${col} FROM _ds_version WHERE table_id = ${lit(id)} AND version = d.version - 1)`
  const prevMax = `coalesce(${prev('max_id')}, 0)`
  const added = `(SELECT count(*) FROM ${t} WHERE _id > ${prevMax})`
  const gone = (not: string) =>
    `(SELECT count(*) FROM ${h} h WHERE h._v_to = d.version - 1 AND h._id <= ${prevMax} AND ${not}EXISTS (SELECT 1 FROM ${t} x WHERE x._id = h._id))`
  return {
    sql:
      `INSERT INTO _ds_version (table_id, version, at, kind, max_id, columns, total, added, changed, removed) ` +
      `SELECT d.id, d.version, ?, ?, ${seq}, json_extract(d.meta, '$.columns'), ` +
      // the row count follows from the previous version's without counting the table again
      `coalesce(${prev('total')} + ${added} - ${gone('NOT ')}, (SELECT count(*) FROM ${t})), ` +
      `${added}, ${gone('')}, ${gone('NOT ')} ` +
      `FROM _ds_table d WHERE d.id = ? AND json_extract(d.meta, '$.versioned')`,
    args: [at, kind, id],
  }
}

export interface VersionRow {
  version: number
  at: string
  kind: string
  max_id: number
  columns: DsColumn[]
  total: number
  added: number
  changed: number
  removed: number
}

const VERSION_COLS = 'version, at, kind, max_id, columns, total, added, changed, removed'
const toVersion = (r: unknown[]): VersionRow => ({
  version: Number(r[0]),
  at: String(r[1]),
  kind: String(r[2]),
  max_id: Number(r[3]),
  columns: JSON.parse(String(r[4] ?? '[]')) as DsColumn[],
  total: Number(r[5] ?? 0),
  added: Number(r[6] ?? 0),
  changed: Number(r[7] ?? 0),
  removed: Number(r[8] ?? 0),
})

export async function listVersions(db: DatastoreReader, id: string, limit: number, offset: number) {
  const { rows } = await db.query(
    `SELECT ${VERSION_COLS} FROM _ds_version WHERE table_id = ? ORDER BY version DESC LIMIT ? OFFSET ?`,
    [id, limit, offset],
  )
  const count = await db.query('SELECT count(*), min(version) FROM _ds_version WHERE table_id = ?', [id])
  return { versions: rows.map((r) => toVersion(r as unknown[])), total: Number(count.rows[0]?.[0] ?? 0) }
}

export const isVersioned = (t: DsTable) => !!(t as { versioned?: boolean }).versioned

/**
 * The version `asOf` names (a version number, or an ISO timestamp: the last version at or before
 * it); ValidationError under `field` when the table is not versioned, the version is unknown, in
 * the future or pruned.
 */
export async function resolveVersion(
  db: DatastoreReader,
  t: DsTable,
  asOf: unknown,
  field: string,
  now: string,
): Promise<VersionRow> {
  const bad = (m: string) => ValidationError.field(field, m)
  if (!isVersioned(t)) throw bad('The table is not versioned (datastore_create with versioned: true)')
  const text = typeof asOf === 'number' ? String(asOf) : typeof asOf === 'string' ? asOf.trim() : ''
  let where: string
  let arg: InValue
  if (/^\d+$/.test(text)) {
    const n = Number(text)
    if (n > t.version) throw bad(`Version ${n} does not exist yet: the table is at version ${t.version}`)
    where = 'version = ?'
    arg = n
  } else {
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) || !/T/.test(text) ? text : text + 'Z')
    if (!text || Number.isNaN(ms)) throw bad(`"${text}" is neither a version number nor an ISO timestamp`)
    if (ms > Date.parse(now.endsWith('Z') ? now : now + 'Z')) throw bad(`${text} is in the future`)
    where = 'at <= ? ORDER BY version DESC LIMIT 1'
    arg = new Date(ms).toISOString().slice(0, 23) + '999'
  }
  const { rows } = await db.query(`SELECT ${VERSION_COLS} FROM _ds_version WHERE table_id = ? AND ${where}`, [t.id, arg])
  const row = rows[0] as unknown[] | undefined
  if (row) return toVersion(row)
  const first = await db.query('SELECT min(version), count(*) FROM _ds_version WHERE table_id = ?', [t.id])
  const oldest = Number(first.rows[0]?.[0] ?? 0)
  throw bad(
    oldest > 1
      ? `Version ${text} is not kept: the oldest version kept is ${oldest} (service.datastore.versions.retention)`
      : `No version ${text} of this table`,
  )
}

/** The table as it was at version `v`: its columns then, under its own id. */
export function tableAt(t: DsTable, v: VersionRow): DsTable {
  const types = v.columns.map((c) => parseType(c.type)!)
  return { ...t, columns: v.columns, types, position: new Map(v.columns.map((c, i) => [c.id, i])) }
}

/**
 * A subquery (no arguments) of the rows at version `v`: `_id` then `v`'s columns. `ids`: only
 * these `_id`s (datastore_diff).
 */
export const asOfSource = (t: DsTable, v: VersionRow, ids?: number[]): string =>
  asOfArms(t, v, ids).join(' UNION ALL ')

/** asOfSource's two halves: the row images kept in the history, then the rows unchanged since. */
export function asOfArms(t: DsTable, v: VersionRow, ids?: number[]): [string, string] {
  const h = quoteIdent(histName(t.id))
  const V = v.version
  const current = new Set(t.columns.map((c) => c.id))
  const only = ids ? ` AND _id IN (${ids.map((i) => Math.trunc(i)).join(', ') || 'NULL'})` : ''
  const fromHist = v.columns
    .map((c) => `, json_extract(h._row, ${lit(`$."${c.id}"`)}) AS ${quoteIdent(c.id)}`)
    .join('')
  const fromTable = v.columns
    .map((c) => `, ${current.has(c.id) ? `t.${quoteIdent(c.id)}` : 'NULL'} AS ${quoteIdent(c.id)}`)
    .join('')
  return [
    `SELECT h._id AS _id${fromHist} FROM ${h} h WHERE h._v_to >= ${V} AND h._id <= ${v.max_id}${only.replaceAll('_id', 'h._id')} ` +
      `AND NOT EXISTS (SELECT 1 FROM ${h} h2 WHERE h2._id = h._id AND h2._v_to >= ${V} AND h2._v_to < h._v_to)`,
    `SELECT t._id AS _id${fromTable} FROM ${quoteIdent(t.id)} t WHERE t._id <= ${v.max_id}${only.replaceAll('_id', 't._id')} ` +
      `AND NOT EXISTS (SELECT 1 FROM ${h} h3 WHERE h3._id = t._id AND h3._v_to >= ${V})`,
  ]
}

/**
 * Parses service.datastore.versions.retention: "" keeps every version, "N" the last N, "Nd" those
 * of the last N days (the current version is always kept).
 */
export function parseRetention(v: string): { versions?: number; days?: number } {
  const m = /^\s*(\d+)\s*(d?)\s*$/i.exec(v)
  if (!v.trim() || !m) return {}
  const n = Number(m[1])
  return m[2] ? { days: n } : { versions: Math.max(1, n) }
}

/** Deletes the versions retention lets go, and the row images only they needed. */
export async function pruneVersions(db: DatastoreDb, id: string, retention: string, now: string) {
  const r = parseRetention(retention)
  if (r.versions === undefined && r.days === undefined) return
  const { rows } = await db.query('SELECT max(version), min(version) FROM _ds_version WHERE table_id = ?', [id])
  const max = Number(rows[0]?.[0] ?? 0)
  const min = Number(rows[0]?.[1] ?? 0)
  if (!max) return
  let keepFrom = min
  if (r.versions !== undefined) keepFrom = Math.max(keepFrom, max - r.versions + 1)
  if (r.days !== undefined) {
    const cutoff = new Date(Date.parse(now + (now.endsWith('Z') ? '' : 'Z')) - r.days * 86400_000)
      .toISOString()
      .slice(0, 23)
    // the last version at or before the cutoff was still current after it: it is kept
    const at = await db.query(
      'SELECT max(version) FROM _ds_version WHERE table_id = ? AND at <= ?',
      [id, cutoff],
    )
    keepFrom = Math.max(keepFrom, Math.min(max, Number(at.rows[0]?.[0] ?? min)))
  }
  if (keepFrom <= min) return
  await db.write([
    { sql: 'DELETE FROM _ds_version WHERE table_id = ? AND version < ?', args: [id, keepFrom] },
    { sql: `DELETE FROM ${quoteIdent(histName(id))} WHERE _v_to < ?`, args: [keepFrom] },
  ])
}

export interface TableDiff {
  added: Record<string, unknown>[]
  changed: { _id: number; before: Record<string, unknown>; after: Record<string, unknown> }[]
  removed: Record<string, unknown>[]
  /** The `after` of the next page, or null when every change was answered. */
  next: number | null
}

/**
 * The rows added, changed (on the columns both versions have) and removed from version `a` to
 * version `b`, in `_id` order after `after`, at most `limit` of them. `read(v, ids)` answers the
 * rows of those `_id`s at version `v` (decoded, with `_id`).
 */
export async function diffVersions(
  db: DatastoreReader,
  t: DsTable,
  a: VersionRow,
  b: VersionRow,
  opts: { limit: number; after: number },
  read: (v: VersionRow, ids: number[]) => Promise<Record<string, unknown>[]>,
): Promise<TableDiff> {
  const out: TableDiff = { added: [], changed: [], removed: [], next: null }
  if (a.version === b.version) return out
  const h = quoteIdent(histName(t.id))
  const common = a.columns.filter((c) => b.columns.some((d) => d.id === c.id)).map((c) => c.id)
  let cursor = opts.after
  let found = 0
  for (;;) {
    const want = opts.limit - found
    const low = Math.max(a.max_id, cursor)
    // every row that changed between the two is superseded by then, or newer than `a`
    const { rows } = await db.query(
      `SELECT _id FROM (SELECT _id FROM ${h} WHERE _v_to >= ? AND _v_to < ? AND _id > ? ` +
        `UNION SELECT _id FROM ${quoteIdent(t.id)} WHERE _id > ? AND _id <= ? ` +
        `UNION SELECT _id FROM ${h} WHERE _id > ? AND _id <= ?) ORDER BY _id LIMIT ?`,
      [a.version, b.version, cursor, low, b.max_id, low, b.max_id, want],
    )
    const ids = rows.map((r) => Number(r[0]))
    if (!ids.length) return out
    const [before, after] = await Promise.all([read(a, ids), read(b, ids)])
    const was = new Map(before.map((r) => [Number(r._id), r]))
    const now = new Map(after.map((r) => [Number(r._id), r]))
    for (const id of ids) {
      const x = was.get(id)
      const y = now.get(id)
      if (x && !y) out.removed.push(x)
      else if (!x && y) out.added.push(y)
      else if (x && y && common.some((c) => JSON.stringify(x[c]) !== JSON.stringify(y[c])))
        out.changed.push({ _id: id, before: x, after: y })
      else continue
      found++
    }
    cursor = ids[ids.length - 1]!
    if (ids.length < want) return out
    if (found >= opts.limit) {
      out.next = cursor
      return out
    }
  }
}
