// Table versions (beyond CKAN): superseded row images in a history table per versioned table, one
// `_ds_version` row per write batch, and the SQL that reads a table as it was at a version.
import type { InValue } from '@libsql/client'
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { parseType } from './column-types'
import { quoteIdent } from './ident'
import type { DsColumn, DsTable, TableMeta } from './registry'
import type { DatastoreDb, DatastoreReader } from './store'

/*
 * The public version number is `_ds_table.version`: every write batch bumps it (writeGuard). A
 * versioned table records each of its versions in `_ds_version` (time, kind of write, the largest
 * `_id` at that version, its columns, row counts). Rows are never copied on insert: `_id` is
 * AUTOINCREMENT and never reused, so a row existed at version V when its `_id` is at most V's
 * `max_id` and it was not removed by then.
 *
 * `_hist_<id>` keeps row images in typed columns (every column the table has had since it became
 * versioned) with the versions each was current in, `_v_from` to `_v_to`. The first change of a
 * row (update or delete) keeps its old image (from 0: the row's birth is told by `max_id`) and,
 * for an update, its new one as the row's current image (`_v_to` = CURRENT); later changes close
 * the current image and open another. So a row of the table with no image has never changed, and
 * one with images has exactly one current image, equal to the row. The table at V is
 *   the table's rows with `_id` <= V's max_id and no image, plus
 *   the images with `_v_from` <= V <= `_v_to` and `_id` <= max_id,
 * and a filtered count at V needs no row-by-row check: the table's count, minus the current images
 * opened after V, plus the images closed since V that were current at V (each an index range of
 * the history's copies of the table's indexes). Storage grows with the changed rows (two images a
 * row changed once); a load's swap closes every image and keeps the rows never changed; a column
 * drop keeps the rows never changed as current images (their dropped values stay readable).
 */

export const histName = (id: string) => `_hist_${id}`
const trgName = (id: string, op: 'upd' | 'del') => `_trg_${id}_h${op}`
const hidxName = (id: string, n?: number) => (n === undefined ? `_hidx_${id}` : `_hidx_${id}_${n}`)

/** `_v_to` of a row's current image (2^53 - 1: exact in JavaScript and SQLite alike). */
export const CURRENT = 9007199254740991

export const VERSION_DDL = [
  `CREATE TABLE IF NOT EXISTS _ds_version (
     table_id TEXT NOT NULL, version INTEGER NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL,
     max_id INTEGER NOT NULL, columns TEXT NOT NULL, total INTEGER, added INTEGER, changed INTEGER,
     removed INTEGER, PRIMARY KEY (table_id, version)) WITHOUT ROWID`,
]

export type WriteKind = 'create' | 'insert' | 'upsert' | 'update' | 'delete' | 'run_triggers' | 'load'

const s = (sql: string): RawStatement => ({ sql, args: [] })
const lit = (v: string) => `'${v.replaceAll("'", "''")}'`
/** The version before the batch (the batch's writeGuard bumps it last): images close at it. */
const versionOf = (id: string) => `(SELECT version FROM _ds_table WHERE id = ${lit(id)})`

/** The shape a table's history needs: its columns and the columns of its key and indexes. */
export interface HistoryShape {
  columns: DsColumn[]
  primary_key: string[]
  indexes: string[][]
}

/**
 * Creates `id`'s history table or brings it up to `shape`: missing columns added (none dropped:
 * earlier versions read them), and the table's key and indexes copied, each followed by
 * `_v_to, _v_from`, so a filter as_of a version uses an index in the history as in the table.
 */
export async function historyTableStatements(db: DatastoreReader, id: string, shape: HistoryShape): Promise<RawStatement[]> {
  const h = quoteIdent(histName(id))
  const { rows: have } = await db.query('SELECT name FROM pragma_table_info(?)', [histName(id)])
  const present = new Set(have.map((r) => String(r[0])))
  const out: RawStatement[] = []
  if (!present.size)
    out.push(
      s(
        `CREATE TABLE ${h} (_id INTEGER NOT NULL, _v_to INTEGER NOT NULL, _v_from INTEGER NOT NULL` +
          shape.columns.map((c) => `, ${quoteIdent(c.id)}`).join('') +
          ', PRIMARY KEY (_id, _v_to)) WITHOUT ROWID',
      ),
    )
  else for (const c of shape.columns) if (!present.has(c.id)) out.push(s(`ALTER TABLE ${h} ADD COLUMN ${quoteIdent(c.id)}`))
  const { rows: indexes } = await db.query(
    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    [histName(id)],
  )
  for (const r of indexes) out.push(s(`DROP INDEX IF EXISTS ${quoteIdent(String(r[0]))}`))
  return [...out, ...historyIndexStatements(id, shape)]
}

function historyIndexStatements(id: string, shape: HistoryShape): RawStatement[] {
  const h = quoteIdent(histName(id))
  const sets = [...(shape.primary_key.length ? [shape.primary_key] : []), ...shape.indexes]
  // each twice: with the versions next (a count's ranges), and alone (its entries end with the
  // key, `_id` first: a page in `_id` order walks it instead of sorting)
  return [
    s(`CREATE INDEX ${quoteIdent(hidxName(id))} ON ${h} (_v_to, _v_from)`),
    ...sets.flatMap((set, n) => [
      s(`CREATE INDEX ${quoteIdent(hidxName(id, 2 * n))} ON ${h} (${set.map(quoteIdent).join(', ')}, _v_to, _v_from)`),
      s(`CREATE INDEX ${quoteIdent(hidxName(id, 2 * n + 1))} ON ${h} (${set.map(quoteIdent).join(', ')})`),
    ]),
  ]
}

/**
 * Rewrites the histories kept by the first form of table versions (each superseded image as one
 * JSON text, no current images) in the present form, one table per batch. Run when the DataStore
 * opens; a database without such tables costs one query.
 */
export async function upgradeHistoryTables(db: DatastoreDb) {
  const { rows } = await db.query(
    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '\\_hist\\_%' ESCAPE '\\' AND sql LIKE '%\\_row TEXT%' ESCAPE '\\'",
  )
  for (const [name] of rows) {
    const id = String(name).slice('_hist_'.length)
    // the registry's entry as stored (registry.ts runs this while it opens)
    const { rows: entry } = await db.query('SELECT meta FROM _ds_table WHERE id = ?', [id])
    const t = entry[0] ? (JSON.parse(String(entry[0][0])) as TableMeta) : undefined
    if (!t) {
      await db.write([s(`DROP TABLE IF EXISTS ${quoteIdent(String(name))}`)])
      continue
    }
    // every column some kept version has, then the table's own
    const { rows: lists } = await db.query('SELECT columns FROM _ds_version WHERE table_id = ?', [id])
    const columns = new Map<string, DsColumn>()
    for (const [list] of lists) for (const c of JSON.parse(String(list)) as DsColumn[]) columns.set(c.id, c)
    for (const c of t.columns) columns.set(c.id, c)
    const all = [...columns.values()]
    const h = quoteIdent(histName(id))
    const old = quoteIdent(`_hist_old_${id}`)
    const names = all.map((c) => `, ${quoteIdent(c.id)}`).join('')
    const current = all.filter((c) => t.columns.some((d) => d.id === c.id))
    await db.write([
      ...dropHistoryTriggerStatements(id),
      s(`DROP INDEX IF EXISTS ${quoteIdent(hidxName(id))}`),
      s(`ALTER TABLE ${h} RENAME TO ${old}`),
      s(
        `CREATE TABLE ${h} (_id INTEGER NOT NULL, _v_to INTEGER NOT NULL, _v_from INTEGER NOT NULL${names}, ` +
          'PRIMARY KEY (_id, _v_to)) WITHOUT ROWID',
      ),
      // each image was current from the version after the row's previous image
      s(
        `INSERT INTO ${h} (_id, _v_to, _v_from${names}) SELECT _id, _v_to, ` +
          'coalesce(lag(_v_to) OVER (PARTITION BY _id ORDER BY _v_to) + 1, 0)' +
          all.map((c) => `, json_extract(_row, ${lit(`$."${c.id}"`)})`).join('') +
          ` FROM ${old}`,
      ),
      // a row of the table with images gets its current one
      s(
        `INSERT INTO ${h} (_id, _v_to, _v_from${current.map((c) => `, ${quoteIdent(c.id)}`).join('')}) ` +
          `SELECT t._id, ${CURRENT}, (SELECT max(_v_to) FROM ${old} o WHERE o._id = t._id) + 1` +
          current.map((c) => `, t.${quoteIdent(c.id)}`).join('') +
          ` FROM ${quoteIdent(id)} t WHERE EXISTS (SELECT 1 FROM ${old} o WHERE o._id = t._id)`,
      ),
      s(`DROP TABLE ${old}`),
      ...historyIndexStatements(id, t),
      ...historyTriggerStatements(id, t.columns),
    ])
  }
}

export const dropHistoryTriggerStatements = (id: string): RawStatement[] => [
  s(`DROP TRIGGER IF EXISTS ${quoteIdent(trgName(id, 'upd'))}`),
  s(`DROP TRIGGER IF EXISTS ${quoteIdent(trgName(id, 'del'))}`),
]

/**
 * The triggers that keep the images (see above) on update (only when a value changed; a row
 * updated twice in one batch has its current image rewritten) and on delete. Recreated whenever
 * the columns change.
 */
export function historyTriggerStatements(id: string, columns: DsColumn[]): RawStatement[] {
  const t = quoteIdent(id)
  const h = quoteIdent(histName(id))
  const P = versionOf(id)
  const names = columns.map((c) => `, ${quoteIdent(c.id)}`).join('')
  const values = (row: string) => columns.map((c) => `, ${row}.${quoteIdent(c.id)}`).join('')
  // the row's first change: its image until now, current since its birth
  const keepOld =
    `INSERT INTO ${h} (_id, _v_to, _v_from${names}) SELECT OLD._id, ${P}, 0${values('OLD')} ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${h} WHERE _id = OLD._id);`
  // a current image from an earlier batch is closed at the version before this one
  const close = `UPDATE ${h} SET _v_to = ${P} WHERE _id = OLD._id AND _v_to = ${CURRENT} AND _v_from <= ${P};`
  const set = columns.map((c) => `${quoteIdent(c.id)} = NEW.${quoteIdent(c.id)}`).join(', ')
  const changed = columns.length
    ? columns.map((c) => `OLD.${quoteIdent(c.id)} IS NOT NEW.${quoteIdent(c.id)}`).join(' OR ')
    : '0'
  const update = [
    keepOld,
    close,
    // changed again in the same batch: its current image follows
    ...(columns.length ? [`UPDATE ${h} SET ${set} WHERE _id = NEW._id AND _v_to = ${CURRENT};`] : []),
    `INSERT INTO ${h} (_id, _v_to, _v_from${names}) SELECT NEW._id, ${CURRENT}, ${P} + 1${values('NEW')} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ${h} WHERE _id = NEW._id AND _v_to = ${CURRENT});`,
  ]
  const remove = [
    keepOld,
    // a current image this batch opened goes; an earlier one is closed
    `DELETE FROM ${h} WHERE _id = OLD._id AND _v_to = ${CURRENT} AND _v_from > ${P};`,
    close,
  ]
  return [
    ...dropHistoryTriggerStatements(id),
    s(`CREATE TRIGGER ${quoteIdent(trgName(id, 'upd'))} AFTER UPDATE ON ${t} WHEN ${changed} BEGIN ${update.join(' ')} END`),
    s(`CREATE TRIGGER ${quoteIdent(trgName(id, 'del'))} AFTER DELETE ON ${t} BEGIN ${remove.join(' ')} END`),
  ]
}

/** Before a load's swap supersedes every row: each row's image is closed at the last version. */
export const closeAllStatements = (id: string, columns: DsColumn[]): RawStatement[] => [
  s(
    `INSERT INTO ${quoteIdent(histName(id))} (_id, _v_to, _v_from${columns.map((c) => `, ${quoteIdent(c.id)}`).join('')}) ` +
      `SELECT t._id, ${versionOf(id)}, 0${columns.map((c) => `, t.${quoteIdent(c.id)}`).join('')} FROM ${quoteIdent(id)} t ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdent(histName(id))} x WHERE x._id = t._id)`,
  ),
  s(`UPDATE ${quoteIdent(histName(id))} SET _v_to = ${versionOf(id)} WHERE _v_to = ${CURRENT}`),
]

/**
 * Before a column drop: the rows never changed get their image (current since their birth), so
 * the dropped column's values stay readable at the earlier versions.
 */
export const keepUnchangedStatement = (id: string, columns: DsColumn[]): RawStatement =>
  s(
    `INSERT INTO ${quoteIdent(histName(id))} (_id, _v_to, _v_from${columns.map((c) => `, ${quoteIdent(c.id)}`).join('')}) ` +
      `SELECT t._id, ${CURRENT}, 0${columns.map((c) => `, t.${quoteIdent(c.id)}`).join('')} FROM ${quoteIdent(id)} t ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdent(histName(id))} x WHERE x._id = t._id)`,
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
 * A subquery (no arguments) of the rows at version `v`: `_id` then `v`'s columns, for reading
 * whole (a sort, a dump). `ids`: only these `_id`s (datastore_diff).
 */
export const asOfSource = (t: DsTable, v: VersionRow, ids?: number[]): string =>
  asOfArms(t, v, ids, !ids).join(' UNION ALL ')

/** The columns of `v` from the table itself (NULL for those it no longer has). */
const fromTable = (t: DsTable, v: VersionRow) => {
  const current = new Set(t.columns.map((c) => c.id))
  return v.columns.map((c) => `, ${current.has(c.id) ? `t.${quoteIdent(c.id)}` : 'NULL'} AS ${quoteIdent(c.id)}`).join('')
}
const fromHistory = (v: VersionRow) => v.columns.map((c) => `, h.${quoteIdent(c.id)} AS ${quoteIdent(c.id)}`).join('')

/**
 * asOfSource's two halves: the rows never changed, then the images current at `v`. The rows of
 * the table with images are left out by a lookup each (`whole` false: a page reads only some
 * rows), or (`whole`) by a join with the row ids of the current images (a row with images has
 * one), read once with a Bloom filter in front of them (a read of the whole table spends far
 * less per row).
 */
export function asOfArms(t: DsTable, v: VersionRow, ids?: number[], whole = false): [string, string] {
  const h = quoteIdent(histName(t.id))
  const V = v.version
  const only = (a: string) => (ids ? ` AND ${a}._id IN (${ids.map((i) => Math.trunc(i)).join(', ') || 'NULL'})` : '')
  const unchanged = whole
    ? `FROM ${quoteIdent(t.id)} t LEFT JOIN (SELECT _id FROM ${h} WHERE _v_to = ${CURRENT} LIMIT -1) x ON x._id = t._id ` +
      `WHERE t._id <= ${v.max_id}${only('t')} AND x._id IS NULL`
    : `FROM ${quoteIdent(t.id)} t WHERE t._id <= ${v.max_id}${only('t')} AND NOT EXISTS (SELECT 1 FROM ${h} x WHERE x._id = t._id)`
  return [
    `SELECT t._id AS _id${fromTable(t, v)} ${unchanged}`,
    `SELECT h._id AS _id${fromHistory(v)} FROM ${h} h WHERE h._v_to >= ${V} AND h._v_from <= ${V} AND h._id <= ${v.max_id}${only('h')}`,
  ]
}

/** What datastore_search reads in place of the table at version `v` (see SearchSpec). */
export function asOfSearch(t: DsTable, v: VersionRow, filters: Record<string, unknown> | undefined) {
  const countTerms = asOfCountTerms(t, v, Object.keys(filters ?? {}))
  // counted up to a deep page's _id, by _id ranges: `+` keeps the version's other bounds (its
  // versions, its largest _id) from taking the index instead
  const byId = (sql: string) =>
    sql.replaceAll('h._v_to', '+h._v_to').replaceAll(`h._id <= ${v.max_id}`, `+h._id <= ${v.max_id}`).replaceAll(`t._id <= ${v.max_id}`, `+t._id <= ${v.max_id}`)
  return {
    source: asOfSource(t, v),
    sourceArms: asOfArms(t, v),
    countTerms,
    // the table's rows: the version's rows but the few changed since (a deep page seeks in them)
    seek: countTerms && {
      base: countTerms.plus[0]!,
      // the base's own matches before the seek point are the offset it was taken at
      plus: countTerms.plus.slice(1).map(byId),
      minus: countTerms.minus.map(byId),
    },
  }
}

/**
 * The terms of a count at version `v` under any filter on the columns the table still has (see
 * above): the table's rows, minus the current images opened after `v`, plus the images closed
 * since `v` that were current at it. Undefined when a filter names a column the table no longer
 * has (its current images hold values the table lost): the count then reads the rows.
 */
export function asOfCountTerms(t: DsTable, v: VersionRow, filtered: string[]): { plus: string[]; minus: string[] } | undefined {
  const current = new Set(t.columns.map((c) => c.id))
  if (filtered.some((c) => c !== '_id' && !current.has(c))) return undefined
  const h = quoteIdent(histName(t.id))
  const V = v.version
  const images = (where: string) => `SELECT h._id AS _id${fromHistory(v)} FROM ${h} h WHERE ${where} AND h._id <= ${v.max_id}`
  return {
    plus: [
      `SELECT t._id AS _id${fromTable(t, v)} FROM ${quoteIdent(t.id)} t WHERE t._id <= ${v.max_id}`,
      images(`h._v_to >= ${V} AND h._v_to < ${CURRENT} AND h._v_from <= ${V}`),
    ],
    minus: [images(`h._v_to = ${CURRENT} AND h._v_from > ${V}`)],
  }
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
