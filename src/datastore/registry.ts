// The column catalogue: per table its columns (CKAN type names, order, data dictionary), key, indexes,
// triggers; plus aliases and trigger functions. Kept in the DataStore database next to the tables.
import type { RawStatement } from '../db/executor'
import { NotFound, ValidationError } from '../errors'
import { typeFromName, type ColumnType } from './column-types'
import { sqliteMessage, type DatastoreDb, type DatastoreReader } from './store'
import { PROFILE_DDL } from './profile'
import { upgradeHistoryTables, VERSION_DDL } from './versions'

export interface DsColumn {
  id: string
  /** Reported (PostgreSQL) type name: int4, text, _text, ... */
  type: string
  /** Data dictionary entry: label, notes, type_override and any user keys. */
  info?: Record<string, unknown>
}

/** A column as field lists show it: `info` only when the column has one. */
export const fieldDict = (c: DsColumn): DsColumn =>
  c.info ? { id: c.id, type: c.type, info: c.info } : { id: c.id, type: c.type }

export interface TriggerRef {
  function: string
}

export interface TableMeta {
  columns: DsColumn[]
  primary_key: string[]
  /** Non-unique indexes, each a list of columns. */
  indexes: string[][]
  triggers: TriggerRef[]
  /** Beyond CKAN: every write batch records a version that datastore_search can read (as_of). */
  versioned?: boolean
}

export interface DsTable extends TableMeta {
  id: string
  version: number
  /** Column types, in column order. */
  types: ColumnType[]
  /** Position of each column by id. */
  position: Map<string, number>
}

/** `_table_metadata`: every table and alias (a view over the catalogue, created with the registry). */
const TABLE_METADATA_VIEW = `CREATE VIEW IF NOT EXISTS _table_metadata AS
  SELECT printf('%016x', t.rowid) AS _id, t.id AS name, s.rootpage AS oid, NULL AS alias_of
    FROM _ds_table t JOIN sqlite_schema s ON s.name = t.id AND s.type = 'table'
  UNION ALL
  SELECT printf('%016x', 4294967296 + a.rowid), a.name, s.rootpage, a.table_id
    FROM _ds_alias a JOIN sqlite_schema s ON s.name = a.table_id AND s.type = 'table'`

const DDL = [
  `CREATE TABLE IF NOT EXISTS _ds_table (
     id TEXT PRIMARY KEY, version INTEGER NOT NULL, meta TEXT NOT NULL,
     created TEXT NOT NULL, modified TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS _ds_alias (
     name TEXT PRIMARY KEY COLLATE NOCASE, table_id TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS _ds_alias_table ON _ds_alias (table_id)`,
  `CREATE TABLE IF NOT EXISTS _ds_function (
     name TEXT PRIMARY KEY, definition TEXT NOT NULL, rettype TEXT NOT NULL, arguments TEXT NOT NULL,
     created TEXT NOT NULL)`,
  TABLE_METADATA_VIEW,
  ...PROFILE_DDL,
  ...VERSION_DDL,
]

export async function ensureRegistry(db: DatastoreDb) {
  await db.write(DDL.map((sql) => ({ sql, args: [] })))
  await upgradeHistoryTables(db)
}

/**
 * Parsed entries by table id, with the text they were parsed from. Parsing depends on nothing
 * else, so one cache serves every DataStore database of the process or isolate (a Worker opens a
 * new handle per request); the text check covers a table dropped and re-created.
 */
const parsed = new Map<string, { meta: string; table: DsTable }>()
const PARSED_MAX = 2000

function build(id: string, version: number, meta: TableMeta): DsTable {
  const types = meta.columns.map((c) => typeFromName(c.type))
  return { ...meta, id, version, types, position: new Map(meta.columns.map((c, i) => [c.id, i])) }
}

function entry(id: string, version: number, meta: string): DsTable {
  const hit = parsed.get(id)
  // a copy: the version moves with every write (see writeGuard), the parsed entry only with the meta
  if (hit && hit.meta === meta) return hit.table.version === version ? hit.table : { ...hit.table, version }
  const table = build(id, version, JSON.parse(meta) as TableMeta)
  if (parsed.size >= PARSED_MAX && !parsed.has(id)) parsed.delete(parsed.keys().next().value!)
  parsed.set(id, { meta, table })
  return table
}

/** The table's catalogue entry, or undefined when `id` has no table. */
export async function findTable(db: DatastoreReader, id: string): Promise<DsTable | undefined> {
  const { rows } = await db.query('SELECT version, meta FROM _ds_table WHERE id = ?', [id])
  const row = rows[0]
  return row ? entry(id, Number(row[0]), String(row[1])) : undefined
}

/** The table behind a table id or an alias, in one query; undefined when neither. */
export async function findTableByName(db: DatastoreReader, name: string): Promise<DsTable | undefined> {
  const { rows } = await db.query(
    'SELECT id, version, meta FROM _ds_table WHERE id = ? UNION ALL ' +
      'SELECT t.id, t.version, t.meta FROM _ds_alias a JOIN _ds_table t ON t.id = a.table_id WHERE a.name = ? LIMIT 1',
    [name, name],
  )
  const row = rows[0]
  return row ? entry(String(row[0]), Number(row[1]), String(row[2])) : undefined
}

export const tableNotFound = (id: string) => new NotFound(`Resource "${id}" was not found.`)

/** The table behind an id, or NotFound in CKAN's words. */
export async function requireTable(db: DatastoreReader, id: string): Promise<DsTable> {
  const t = await findTable(db, id)
  if (!t) throw tableNotFound(id)
  return t
}

export async function aliasesOf(db: DatastoreReader, id: string): Promise<string[]> {
  const { rows } = await db.query('SELECT name FROM _ds_alias WHERE table_id = ? ORDER BY name', [id])
  return rows.map((r) => String(r[0]))
}

/** The statement that records a table's catalogue entry (insert or replace), bumping its version. */
export function saveTableStmt(id: string, meta: TableMeta, now: string, previous?: DsTable): RawStatement {
  const clean: TableMeta = {
    columns: meta.columns.map(fieldDict),
    primary_key: meta.primary_key,
    indexes: meta.indexes,
    triggers: meta.triggers,
    ...(meta.versioned && { versioned: true }),
  }
  return previous
    ? {
        sql: 'UPDATE _ds_table SET version = version + 1, meta = ?, modified = ? WHERE id = ?',
        args: [JSON.stringify(clean), now, id],
      }
    : {
        sql: 'INSERT INTO _ds_table (id, version, meta, created, modified) VALUES (?, 1, ?, ?, ?)',
        args: [id, JSON.stringify(clean), now, now],
      }
}

/*
 * Read-then-write sequences (datastore_create's alter, keyed upserts, deletes, trigger reruns) are
 * kept right by the database, not by a lock of one process (Worker requests and Node processes
 * share the database but no lock): every write to a table bumps its catalogue version in the same
 * batch, and each such batch starts with a guard that fails unless the table is still at the
 * version read before (0: no table yet). A failed guard rolls the whole batch back and the sequence
 * runs again on fresh reads (writeGuarded).
 */

/** A batch's first statement: fails (inserting nothing) unless table `id` is still at `version`. */
export function writeGuard(id: string, version: number): RawStatement {
  return {
    // NOT NULL fails before the primary key is checked: the message names _ds_table.version
    sql:
      "INSERT INTO _ds_table (id, version, meta, created, modified) SELECT ?, NULL, '', '', '' " +
      'WHERE coalesce((SELECT version FROM _ds_table WHERE id = ?), 0) <> ?',
    args: [id, id, version],
  }
}

/** Bumps the table's version: every write batch on the table's rows carries this. */
export const touchTableStmt = (id: string): RawStatement => ({
  sql: 'UPDATE _ds_table SET version = version + 1 WHERE id = ?',
  args: [id],
})

/** The error of a batch whose writeGuard found the table changed. */
export const isTableChanged = (e: unknown) =>
  sqliteMessage(e).includes('NOT NULL constraint failed: _ds_table.version')

const ATTEMPTS = 20

/**
 * Runs a read-then-write sequence under this process's lock, and again (re-reading) while its
 * batch's writeGuard finds that another process or isolate changed the table meanwhile.
 */
export async function writeGuarded<T>(db: DatastoreDb, sequence: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.exclusive(sequence)
    } catch (e) {
      if (!isTableChanged(e)) throw e
      // other writers kept changing the table: nothing of this write is stored, the caller may retry
      if (attempt === ATTEMPTS)
        throw ValidationError.field('resource_id', `The table was changed by other writes ${ATTEMPTS} times while this write was tried: nothing was written, try again`)
      // jittered back-off, so that competing writers do not collide again in step
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}

export const deleteTableStmt = (id: string): RawStatement => ({
  sql: 'DELETE FROM _ds_table WHERE id = ?',
  args: [id],
})
