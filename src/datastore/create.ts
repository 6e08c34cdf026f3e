// datastore_create's table work: columns to create or append, records, key, indexes, aliases and
// triggers, all in one batch (datastore.md §3).
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { parseType, type ColumnType } from './column-types'
import {
  alterColumnStatements,
  aliasStatements,
  createTableStatements,
  indexStatements,
  uniqueKeyStatements,
  type ColumnDef,
} from './ddl'
import { findFunction, noSuchFunction, tableTransform } from './functions'
import { isValidAliasName, isValidFieldName, MAX_FIELD_LENGTH } from './ident'
import { insertRecords, returnedRecords, withReturning, type Row } from './records'
import {
  aliasesOf,
  findTable,
  saveTableStmt,
  writeGuard,
  writeGuarded,
  type DsColumn,
  type DsTable,
  type TableMeta,
  type TriggerRef,
} from './registry'
import { sqliteCode, sqliteMessage, type DatastoreDb } from './store'
import { guessType } from './values'
import {
  dropHistoryStatements,
  dropHistoryTriggerStatements,
  historyTableStatements,
  historyTriggerStatements,
  keepUnchangedStatement,
  recordVersionStmt,
} from './versions'

export interface FieldIn {
  id: string
  type?: string
  info?: unknown
}

export interface CreateInput {
  id: string
  fields?: FieldIn[]
  records?: Row[]
  primary_key?: string[]
  indexes?: string[][]
  aliases?: string[]
  triggers?: TriggerRef[]
  /** CKAN 2.11: drop the existing columns that neither `fields` nor the first record names. */
  delete_fields?: boolean
  /** CKAN 2.12: answer the inserted rows as written (`_id` and every column, after triggers). */
  include_records?: boolean
  /**
   * CKAN 2.11 (api_compat 2.11): without delete_fields, `fields` may name the existing columns in
   * any order and leave some out (they are kept), where 2.9 wants them first and in order.
   */
  fields_in_any_order?: boolean
  /** CKAN 2.11 (api_compat 2.11): a record's `""` for a column of any type but text is NULL. */
  blank_is_null?: boolean
  /** Beyond CKAN: record a version per write batch (true), or stop and drop the history (false). */
  versioned?: boolean
}

const fieldsError = (msg: string) => ValidationError.field('fields', msg)

function typeOf(f: FieldIn, sample: Row | undefined): { input: string; type: ColumnType } {
  let input = f.type
  if (input === undefined || input === null || input === '') {
    if (!sample || !(f.id in sample)) throw fieldsError(`"${f.id}" type not guessable`)
    input = guessType(sample[f.id])
  }
  const type = parseType(String(input))
  if (!type) throw fieldsError(`"${String(input)}" is not a valid field type`)
  return { input: String(input), type }
}

function checkFieldName(id: string) {
  if (!isValidFieldName(id)) throw fieldsError(`"${id}" is not a valid field name`)
  if (id.length > MAX_FIELD_LENGTH)
    throw fieldsError(`Column heading "${id}" exceeds limit of ${MAX_FIELD_LENGTH} characters.`)
}

const infoOf = (info: unknown) =>
  info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : undefined

/**
 * The table's columns after this call: existing ones, then new supplied fields, then keys of the
 * first record that are not columns yet. Without `delete_fields`, supplied `fields` must agree
 * with the existing columns position by position (a shorter list leaves the rest alone); with
 * it, they may come in any order and the existing columns they leave out are dropped. Returns
 * the new column list, the added and dropped columns and the supplied fields with their types.
 * With `fields_in_any_order` (CKAN 2.11) they may come in any order, and all columns are kept.
 */
function planColumns(existing: DsTable | undefined, input: CreateInput) {
  const supplied = input.fields ?? []
  const sample = input.records?.[0]
  const old = existing?.columns ?? []
  const oldIds = new Set(old.map((c) => c.id))
  const byId = new Map(supplied.map((f) => [f.id, f]))
  let kept = old
  let isNew = (_f: FieldIn, i: number) => i >= old.length
  if (existing && input.fields && input.delete_fields) {
    // ckan 2.11: a column named by the first record is kept too
    kept = old.filter((c) => byId.has(c.id) || (sample !== undefined && c.id in sample))
    isNew = (f) => !oldIds.has(f.id)
  } else if (existing && input.fields && input.fields_in_any_order) {
    isNew = (f) => !oldIds.has(f.id)
  } else if (existing && input.fields) {
    supplied.slice(0, old.length).forEach((f, i) => {
      if (f.id !== old[i]!.id)
        throw fieldsError(`Supplied field "${f.id}" not present or in wrong order`)
    })
  }
  const dropped = old.filter((c) => !kept.includes(c)).map((c) => c.id)
  const columns: DsColumn[] = kept.map((c) => {
    const f = byId.get(c.id)
    if (!f || !('info' in f)) return c
    const info = infoOf(f.info)
    return info ? { ...c, info } : { id: c.id, type: c.type }
  })
  const added: ColumnDef[] = []
  const seen = new Set(columns.map((c) => c.id.toLowerCase()))
  const echoed: FieldIn[] = supplied.map((f) => ({ ...f }))
  const add = (f: FieldIn, echo?: FieldIn) => {
    checkFieldName(f.id)
    if (seen.has(f.id.toLowerCase()))
      throw ValidationError.field('field', 'Duplicate column names are not supported')
    seen.add(f.id.toLowerCase())
    const { input: typeName, type } = typeOf(f, sample)
    if (echo && !echo.type) echo.type = typeName
    const info = infoOf(f.info)
    columns.push(info ? { id: f.id, type: type.name, info } : { id: f.id, type: type.name })
    added.push({ id: f.id, type })
  }
  supplied.forEach((f, i) => isNew(f, i) && add(f, echoed[i]))
  if (sample) for (const k of Object.keys(sample)) if (!columns.some((c) => c.id === k)) add({ id: k })
  return { columns, added, dropped, echoed }
}

function checkColumnsExist(names: string[], columns: DsColumn[]) {
  const ids = new Set(columns.map((c) => c.id))
  for (const n of names)
    if (!ids.has(n))
      throw ValidationError.field('index', `The field "${n}" is not a valid column name.`)
}

/**
 * Creates or alters table `input.id` and appends its records. Returns the supplied fields with
 * types, and with `include_records` the inserted rows (none without records, as CKAN).
 */
export async function createOrAlter(
  db: DatastoreDb,
  input: CreateInput,
  now: () => string,
): Promise<{ fields: FieldIn[]; records?: Row[] }> {
  for (const a of input.aliases ?? [])
    if (!isValidAliasName(a)) throw ValidationError.field('alias', `"${a}" is not a valid alias name`)
  return writeGuarded(db, async () => {
    const existing = await findTable(db, input.id)
    const { columns, added, dropped, echoed } = planColumns(existing, input)
    // ckan: dropping a column drops the key and the indexes that cover it (PostgreSQL does so)
    const covers = (cols: string[]) => cols.some((c) => dropped.includes(c))
    const oldKey = existing?.primary_key ?? []
    const oldIndexes = existing?.indexes ?? []
    const keyLost = covers(oldKey)
    const indexesLost = oldIndexes.some(covers)
    const primary_key = input.primary_key ?? (keyLost ? [] : oldKey)
    const indexes = input.indexes ?? oldIndexes.filter((ix) => !covers(ix))
    // ckan: the key is checked as one more index, so its errors are index errors too
    checkColumnsExist(primary_key, columns)
    checkColumnsExist(indexes.flat(), columns)
    const triggers = input.triggers ?? existing?.triggers ?? []
    for (const t of input.triggers ?? [])
      if (!(await findFunction(db, t.function)))
        throw ValidationError.field('triggers', noSuchFunction(t.function))
    await checkAliases(db, input.id, input.aliases ?? [])

    const wasVersioned = !!existing?.versioned
    const versioned = input.versioned ?? wasVersioned
    const meta: TableMeta = { columns, primary_key, indexes, triggers, versioned }
    const table: DsTable = {
      ...meta,
      id: input.id,
      version: 0,
      types: columns.map((c) => parseType(c.type)!),
      position: new Map(columns.map((c, i) => [c.id, i])),
    }
    const stmts: RawStatement[] = []
    // a dropped column's values stay readable at the earlier versions: the rows never changed get
    // their image first (the history triggers name the columns: SQLite refuses the drop while they exist)
    if (wasVersioned && versioned && dropped.length) stmts.push(keepUnchangedStatement(input.id, existing!.columns))
    if (wasVersioned && (dropped.length || !versioned)) stmts.push(...dropHistoryTriggerStatements(input.id))
    if (wasVersioned && !versioned) stmts.push(...dropHistoryStatements(input.id))
    if (keyLost) stmts.push(...uniqueKeyStatements(input.id, []))
    if (indexesLost) stmts.push(...indexStatements(input.id, oldIndexes.length, []))
    const defs = columns.map((c, i) => ({ id: c.id, type: table.types[i]! }))
    stmts.push(
      ...(existing
        ? alterColumnStatements(input.id, defs, added, dropped)
        : createTableStatements(input.id, added)),
    )
    // the history follows the columns, the key and the indexes
    if (versioned && (!wasVersioned || added.length || dropped.length || input.primary_key !== undefined || input.indexes !== undefined || indexesLost || keyLost))
      stmts.push(
        ...(await historyTableStatements(db, input.id, { columns, primary_key, indexes })),
        ...historyTriggerStatements(input.id, columns),
      )
    const transform = await tableTransform(db, table, now)
    const inserts = input.records?.length
      ? insertRecords(table, input.records, 'insert', transform, { blankIsNull: input.blank_is_null })
      : []
    const returning = input.include_records && input.records?.length
    stmts.push(...(returning ? inserts.map((s) => withReturning(table, s)) : inserts))
    const keyChanged = input.primary_key !== undefined
    if (keyChanged) stmts.push(...uniqueKeyStatements(input.id, primary_key))
    if (input.indexes !== undefined || indexesLost)
      stmts.push(...indexStatements(input.id, indexesLost ? 0 : oldIndexes.length, indexes))
    if (input.aliases !== undefined)
      stmts.push(...aliasStatements(input.id, existing ? await aliasesOf(db, input.id) : [], input.aliases))
    stmts.push(saveTableStmt(input.id, meta, now(), existing))
    if (versioned) stmts.push(recordVersionStmt(input.id, 'create', now()))
    const all = [writeGuard(input.id, existing?.version ?? 0), ...stmts]
    try {
      if (returning) return { fields: echoed, records: returnedRecords(table, await db.writeReturning(all)) }
      await db.write(all)
    } catch (e) {
      const creatingKey = keyChanged && !sameKey(existing?.primary_key, primary_key)
      throw writeError(e, input.id, creatingKey, keyLost ? [] : oldKey)
    }
    return { fields: echoed }
  })
}

const sameKey = (a: string[] | undefined, b: string[]) =>
  !!a && a.length === b.length && a.every((x, i) => x === b[i])

async function checkAliases(db: DatastoreDb, id: string, aliases: string[]) {
  for (const a of aliases) {
    const { rows } = await db.query(
      `SELECT 1 FROM _ds_alias WHERE name = ? AND table_id <> ?
       UNION ALL SELECT 1 FROM sqlite_schema WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')
         AND name NOT IN (SELECT name FROM _ds_alias WHERE table_id = ?)`,
      [a, id, a, id],
    )
    if (rows.length) throw ValidationError.field('alias', `The alias "${a}" already exists.`)
  }
}

/**
 * A failed create batch in CKAN's words. Records go in under `insertKey` (the key before this
 * call) and a new key is built afterwards; SQLite names the columns of the index that failed,
 * which tells the two apart.
 */
export function writeError(
  e: unknown,
  id: string,
  creatingKey: boolean,
  insertKey: string[],
): unknown {
  const code = sqliteCode(e)
  const msg = sqliteMessage(e)
  if (code.startsWith('SQLITE_CONSTRAINT') && /UNIQUE/i.test(msg)) {
    const insertIndex = insertKey.map((c) => `${id}.${c}`).join(', ')
    const byInsert = msg === `UNIQUE constraint failed: ${insertIndex}`
    if (creatingKey && !byInsert)
      return new ValidationError({
        constraints: ['Cannot insert records or create indexbecause of uniqueness constraint'],
        info: { orig: msg, pgcode: '23505' },
      })
    return ValidationError.field('records', `duplicate key value violates unique constraint "_pk_${id}"`)
  }
  return e
}
