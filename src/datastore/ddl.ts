// Dynamic DDL for DataStore tables: every name is validated then quoted (ident.ts); types come from
// the allow-list in column-types.ts. Each function returns statements for one atomic batch.
import type { RawStatement } from '../db/executor'
import type { ColumnType } from './column-types'
import { internalNames, quoteIdent } from './ident'

const s = (sql: string): RawStatement => ({ sql, args: [] })

export interface ColumnDef {
  id: string
  type: ColumnType
}

/** PostgreSQL's english tokens through SQLite FTS5: porter stemming over unicode61 words. */
export const FTS_TOKENIZER = 'porter unicode61 remove_diacritics 2'

/** The text FTS indexes for a cell: booleans as words, everything else as SQLite's text of the value. */
function cellText(ref: string, col: ColumnDef): string {
  return col.type.kind === 'bool' && !col.type.array
    ? `CASE ${ref} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END`
    : ref
}

function ftsColumns(columns: ColumnDef[]): string[] {
  // FTS5 needs at least one column; a table without user columns indexes nothing in it.
  return columns.length ? columns.map((_, i) => `c${i}`) : ['c0']
}

function ftsValues(columns: ColumnDef[], row: string): string {
  return columns.length
    ? columns.map((c) => cellText(`${row}.${quoteIdent(c.id)}`, c)).join(', ')
    : 'NULL'
}

/**
 * The full-text side of a table: a contentless FTS5 table (one column per user column, rowid =
 * `_id`) and the triggers that keep it in step with every insert, update and delete, so each write
 * statement updates it in the same transaction. Drops and rebuilds any previous one.
 */
export function ftsStatements(id: string, columns: ColumnDef[], rebuild: boolean): RawStatement[] {
  const n = internalNames(id)
  const t = quoteIdent(id)
  const fts = quoteIdent(n.fts)
  const cols = ftsColumns(columns)
  const out = [
    ...dropFtsTriggerStatements(id),
    s(`DROP TABLE IF EXISTS ${fts}`),
    s(
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${cols.join(', ')}, content='', ` +
        `contentless_delete=1, tokenize='${FTS_TOKENIZER}')`,
    ),
    ...ftsTriggerStatements(id, columns),
  ]
  if (rebuild)
    out.push(
      s(`INSERT INTO ${fts} (rowid, ${cols.join(', ')}) SELECT _id, ${ftsValues(columns, t)} FROM ${t}`),
    )
  return out
}

/** The triggers that keep table `id`'s full-text table in step (see ftsStatements). */
export function ftsTriggerStatements(id: string, columns: ColumnDef[]): RawStatement[] {
  const n = internalNames(id)
  const t = quoteIdent(id)
  const fts = quoteIdent(n.fts)
  const cols = ftsColumns(columns)
  const ins = `INSERT INTO ${fts} (rowid, ${cols.join(', ')}) VALUES (NEW._id, ${ftsValues(columns, 'NEW')});`
  const del = `DELETE FROM ${fts} WHERE rowid = OLD._id;`
  return [
    s(`CREATE TRIGGER ${quoteIdent(n.trigger('ins'))} AFTER INSERT ON ${t} BEGIN ${ins} END`),
    s(`CREATE TRIGGER ${quoteIdent(n.trigger('upd'))} AFTER UPDATE ON ${t} BEGIN ${del} ${ins} END`),
    s(`CREATE TRIGGER ${quoteIdent(n.trigger('del'))} AFTER DELETE ON ${t} BEGIN ${del} END`),
  ]
}

export const dropFtsTriggerStatements = (id: string): RawStatement[] =>
  (['ins', 'upd', 'del'] as const).map((op) =>
    s(`DROP TRIGGER IF EXISTS ${quoteIdent(internalNames(id).trigger(op))}`),
  )

const columnSql = (c: ColumnDef) => `${quoteIdent(c.id)} ${c.type.sqlType}`

/** A new table: `_id` (never reused, like PostgreSQL's serial) then the user columns. */
export function createTableStatements(id: string, columns: ColumnDef[]): RawStatement[] {
  const body = ['"_id" INTEGER PRIMARY KEY AUTOINCREMENT', ...columns.map(columnSql)].join(', ')
  return [s(`CREATE TABLE ${quoteIdent(id)} (${body})`), ...ftsStatements(id, columns, false)]
}

/**
 * Columns dropped from and appended to a table (`all` is the result); the full-text table is
 * rebuilt to cover them. Indexes over a dropped column must be gone before these run.
 */
export function alterColumnStatements(
  id: string,
  all: ColumnDef[],
  added: ColumnDef[],
  dropped: string[] = [],
): RawStatement[] {
  if (!added.length && !dropped.length) return []
  return [
    // SQLite refuses to drop a column that a trigger names: the full-text triggers go first
    ...dropFtsTriggerStatements(id),
    ...dropped.map((c) => s(`ALTER TABLE ${quoteIdent(id)} DROP COLUMN ${quoteIdent(c)}`)),
    ...added.map((c) => s(`ALTER TABLE ${quoteIdent(id)} ADD COLUMN ${columnSql(c)}`)),
    ...ftsStatements(id, all, true),
  ]
}

/** Replaces the unique key (`[]` removes it). */
export function uniqueKeyStatements(id: string, key: string[]): RawStatement[] {
  const name = quoteIdent(internalNames(id).pk)
  const out = [s(`DROP INDEX IF EXISTS ${name}`)]
  if (key.length)
    out.push(s(`CREATE UNIQUE INDEX ${name} ON ${quoteIdent(id)} (${key.map(quoteIdent).join(', ')})`))
  return out
}

/** Replaces the non-unique indexes: `previous` is how many the table had. */
export function indexStatements(id: string, previous: number, indexes: string[][]): RawStatement[] {
  const n = internalNames(id)
  const out: RawStatement[] = []
  for (let i = 0; i < previous; i++) out.push(s(`DROP INDEX IF EXISTS ${quoteIdent(n.index(i))}`))
  indexes.forEach((cols, i) =>
    out.push(
      s(`CREATE INDEX ${quoteIdent(n.index(i))} ON ${quoteIdent(id)} (${cols.map(quoteIdent).join(', ')})`),
    ),
  )
  return out
}

/** Replaces a table's aliases (read-only views). */
export function aliasStatements(id: string, previous: string[], aliases: string[]): RawStatement[] {
  const out: RawStatement[] = []
  for (const a of previous) out.push(s(`DROP VIEW IF EXISTS ${quoteIdent(a)}`))
  out.push({ sql: 'DELETE FROM _ds_alias WHERE table_id = ?', args: [id] })
  for (const a of aliases) {
    out.push(s(`CREATE VIEW ${quoteIdent(a)} AS SELECT * FROM ${quoteIdent(id)}`))
    out.push({ sql: 'INSERT INTO _ds_alias (name, table_id) VALUES (?, ?)', args: [a, id] })
  }
  return out
}

/** Drops a table with its full-text index, triggers, indexes and aliases. */
export function dropTableStatements(id: string, aliases: string[]): RawStatement[] {
  return [
    ...aliasStatements(id, aliases, []),
    s(`DROP TABLE IF EXISTS ${quoteIdent(internalNames(id).fts)}`),
    s(`DROP TABLE IF EXISTS ${quoteIdent(id)}`),
  ]
}
