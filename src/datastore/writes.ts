// datastore_upsert and datastore_delete on an existing table (datastore.md §4, §5).
import type { InValue } from '@libsql/client'
import type { RawStatement } from '../db/executor'
import { nowIso } from '../context'
import { ValidationError } from '../errors'
import { dropTableStatements } from './ddl'
import { tableTransform } from './functions'
import { quoteIdent } from './ident'
import { invalidQuery, planSearch } from './query'
import {
  insertRecords,
  keyColumns,
  keyedWrites,
  lookupHits,
  rerunStatements,
  returnedRecords,
  withReturning,
  type KeyLookup,
  type RecordRules,
  type Row,
} from './records'
import {
  aliasesOf,
  deleteTableStmt,
  isTableChanged,
  requireTable,
  touchTableStmt,
  writeGuard,
  writeGuarded,
  type DsTable,
} from './registry'
import { sqliteCode, sqliteMessage, type DatastoreDb } from './store'
import { dropHistoryStatements, recordVersionStmt, type WriteKind } from './versions'

/** The statement recording the version a batch makes, for a versioned table. */
const versionStmts = (t: DsTable, kind: WriteKind, now: () => string): RawStatement[] =>
  t.versioned ? [recordVersionStmt(t.id, kind, now())] : []

export type UpsertMethod = 'upsert' | 'insert' | 'update'

/**
 * Existing rows by key and by `_id`, read in chunks (inside writeGuarded: the write fails if they
 * changed).
 */
function keyLookup(db: DatastoreDb, t: DsTable): KeyLookup {
  const key = keyColumns(t)
  const keyCols = key.map((i) => quoteIdent(t.columns[i]!.id))
  const select = `SELECT _id, ${t.columns.map((c) => quoteIdent(c.id)).join(', ')} FROM ${quoteIdent(t.id)}`
  return async (keys, ids) => {
    const rows: unknown[][] = []
    const wanted = key.length ? keys.filter((k) => k.every((v) => v !== null)) : []
    const per = Math.max(1, Math.floor(3000 / Math.max(1, key.length)))
    const tuple = `(${keyCols.map(() => '?').join(', ')})`
    for (let i = 0; i < wanted.length; i += per) {
      const chunk = wanted.slice(i, i + per)
      const sql = `${select} WHERE (${keyCols.join(', ')}) IN (VALUES ${chunk.map(() => tuple).join(', ')})`
      rows.push(...((await db.query(sql, chunk.flat() as InValue[])).rows as unknown[][]))
    }
    const distinct = [...new Set(ids)]
    for (let i = 0; i < distinct.length; i += 3000) {
      const chunk = distinct.slice(i, i + 3000)
      const sql = `${select} WHERE _id IN (${chunk.map(() => '?').join(', ')})`
      rows.push(...((await db.query(sql, chunk)).rows as unknown[][]))
    }
    return lookupHits(t, rows)
  }
}

function upsertError(e: unknown, t: DsTable): unknown {
  const msg = sqliteMessage(e)
  if (sqliteCode(e).startsWith('SQLITE_CONSTRAINT') && /UNIQUE/i.test(msg))
    return ValidationError.field('records', `duplicate key value violates unique constraint "_pk_${t.id}"`)
  return e
}

/**
 * Appended to a dry run: a statement that always fails, so the whole batch runs (constraints
 * included, as CKAN's rolled-back transaction does) and then rolls back.
 */
const ROLLBACK: RawStatement = {
  sql: 'INSERT INTO _ds_alias (name, table_id) VALUES (NULL, NULL)',
  args: [],
}
const isRollback = (e: unknown) =>
  sqliteMessage(e).includes('NOT NULL constraint failed: _ds_alias.table_id')

/**
 * Applies records to table `id` with one of the three methods; nothing is written on any error.
 * `includeRecords` (CKAN 2.12): answers the rows as written (`_id` and every column, after the
 * table's triggers), once per row; a dry run answers them too.
 */
export async function upsertRecords(
  db: DatastoreDb,
  id: string,
  records: Row[],
  method: UpsertMethod,
  opts: { now: () => string; dryRun?: boolean; includeRecords?: boolean; rules?: RecordRules },
): Promise<Row[] | undefined> {
  return writeGuarded(db, async () => {
    const t = await requireTable(db, id)
    const transform = await tableTransform(db, t, opts.now)
    let stmts: RawStatement[] =
      method === 'insert'
        ? insertRecords(t, records, 'insert', transform, opts.rules)
        : await keyedWrites(t, records, method, keyLookup(db, t), transform, opts.rules)
    if (opts.includeRecords) stmts = stmts.map((s) => withReturning(t, s))
    if (stmts.length) {
      stmts.unshift(writeGuard(id, t.version))
      stmts.push(touchTableStmt(id), ...versionStmts(t, method, opts.now))
    }
    try {
      if (opts.includeRecords)
        return returnedRecords(t, await db.writeReturning(stmts, { rollback: opts.dryRun }))
      await db.write(opts.dryRun ? [...stmts, ROLLBACK] : stmts)
    } catch (e) {
      if (opts.dryRun && isRollback(e)) return undefined
      throw upsertError(e, t)
    }
    return undefined
  })
}

/**
 * Rows `deleteRows` answers at most (CKAN 2.12's include_deleted_records: the first
 * `ckan.datastore.search.rows_max`), in `_id` order.
 */
async function rowsToDelete(db: DatastoreDb, t: DsTable, where: string, args: unknown[], max: number) {
  const cols = t.columns.map((c) => ', t.' + quoteIdent(c.id)).join('')
  const sql = `SELECT t._id${cols} FROM ${quoteIdent(t.id)} AS t${where} ORDER BY t._id LIMIT ?`
  const { rows } = await db.query(sql, [...args, max] as InValue[])
  return returnedRecords(t, [rows])
}

/**
 * Deletes the rows matching `filters` (datastore_search semantics). `returnMax` (CKAN 2.12's
 * include_deleted_records): answers the deleted rows, at most that many, read in the same guarded
 * sequence, so they are exactly the rows deleted. `textFiltersAsText`: see SearchSpec.
 */
export async function deleteRows(
  db: DatastoreDb,
  id: string,
  filters: Record<string, unknown>,
  opts: { returnMax?: number; textFiltersAsText?: boolean; now?: () => string } = {},
): Promise<Row[] | undefined> {
  return writeGuarded(db, async () => {
    const t = await requireTable(db, id)
    const plan = planSearch(t, {
      filters,
      plain: true,
      language: 'english',
      distinct: false,
      limit: 0,
      offset: 0,
      textFiltersAsText: opts.textFiltersAsText,
    })
    const sql = `DELETE FROM ${quoteIdent(t.id)} AS t${plan.where}`
    let deleted: Row[] | undefined
    try {
      if (opts.returnMax !== undefined)
        deleted = await rowsToDelete(db, t, plan.where, plan.countArgs, opts.returnMax)
      await db.write([
        writeGuard(id, t.version),
        { sql, args: plan.countArgs },
        touchTableStmt(id),
        ...versionStmts(t, 'delete', opts.now ?? nowIso),
      ])
    } catch (e) {
      if (isTableChanged(e)) throw e
      throw invalidQuery(sqliteMessage(e), sql, plan.countArgs)
    }
    return deleted
  })
}

/** Drops the table with its aliases and catalogue entry. */
export async function dropTable(db: DatastoreDb, id: string) {
  await writeGuarded(db, async () => {
    const t = await requireTable(db, id)
    const drop = dropTableStatements(id, await aliasesOf(db, id))
    await db.write([writeGuard(id, t.version), ...drop, ...dropHistoryStatements(id), deleteTableStmt(id)])
  })
}

/** Passes every row through the table's triggers as an update; returns the row count. */
export async function rerunTriggers(db: DatastoreDb, id: string, now: () => string): Promise<number> {
  return writeGuarded(db, async () => {
    const t = await requireTable(db, id)
    const transform = await tableTransform(db, t, now)
    const cols = t.columns.map((c) => quoteIdent(c.id))
    const { rows } = await db.query(
      `SELECT _id${cols.length ? ', ' + cols.join(', ') : ''} FROM ${quoteIdent(t.id)} ORDER BY _id`,
    )
    if (!transform || !cols.length) return rows.length
    const { stmts, skipped } = rerunStatements(t, rows, transform)
    try {
      if (stmts.length)
        await db.write([
          writeGuard(id, t.version),
          ...stmts,
          touchTableStmt(id),
          ...versionStmts(t, 'run_triggers', now),
        ])
    } catch (e) {
      throw upsertError(e, t)
    }
    return rows.length - skipped
  })
}
