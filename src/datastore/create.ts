// datastore_create's table work: columns to create or append, records, key, indexes, aliases and
// triggers, all in one batch (datastore.md §3).
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { parseType, type ColumnType } from './column-types'
import {
  addColumnStatements,
  aliasStatements,
  createTableStatements,
  indexStatements,
  uniqueKeyStatements,
  type ColumnDef,
} from './ddl'
import { findFunction, noSuchFunction, tableTransform } from './functions'
import { isValidAliasName, isValidFieldName, MAX_FIELD_LENGTH } from './ident'
import { insertRecords, type Row } from './records'
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
 * The table's columns after this call: existing ones (supplied `fields` must start with them, in
 * order), then new supplied fields, then keys of the first record that are not columns yet.
 * Returns the new column list, the added columns and the supplied fields with their types filled in.
 */
function planColumns(existing: DsTable | undefined, input: CreateInput) {
  const supplied = input.fields ?? []
  const sample = input.records?.[0]
  const old = existing?.columns ?? []
  if (existing && input.fields) {
    old.forEach((c, i) => {
      if (supplied[i]?.id !== c.id) throw fieldsError(`Supplied field "${c.id}" not present or in wrong order`)
    })
  }
  const columns: DsColumn[] = old.map((c, i) => {
    const f = input.fields ? supplied[i] : undefined
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
  supplied.slice(old.length).forEach((f, i) => add(f, echoed[old.length + i]))
  if (sample) for (const k of Object.keys(sample)) if (!columns.some((c) => c.id === k)) add({ id: k })
  return { columns, added, echoed }
}

function checkColumnsExist(names: string[], columns: DsColumn[]) {
  const ids = new Set(columns.map((c) => c.id))
  for (const n of names)
    if (!ids.has(n))
      throw ValidationError.field('index', `The field "${n}" is not a valid column name.`)
}

/** Creates or alters table `input.id` and appends its records. Returns the supplied fields with types. */
export async function createOrAlter(db: DatastoreDb, input: CreateInput, now: () => string) {
  for (const a of input.aliases ?? [])
    if (!isValidAliasName(a)) throw ValidationError.field('alias', `"${a}" is not a valid alias name`)
  return writeGuarded(db, async () => {
    const existing = await findTable(db, input.id)
    const { columns, added, echoed } = planColumns(existing, input)
    const primary_key = input.primary_key ?? existing?.primary_key ?? []
    const indexes = input.indexes ?? existing?.indexes ?? []
    // ckan: the key is checked as one more index, so its errors are index errors too
    checkColumnsExist(primary_key, columns)
    checkColumnsExist(indexes.flat(), columns)
    const triggers = input.triggers ?? existing?.triggers ?? []
    for (const t of input.triggers ?? [])
      if (!(await findFunction(db, t.function)))
        throw ValidationError.field('triggers', noSuchFunction(t.function))
    await checkAliases(db, input.id, input.aliases ?? [])

    const meta: TableMeta = { columns, primary_key, indexes, triggers }
    const table: DsTable = {
      ...meta,
      id: input.id,
      version: 0,
      types: columns.map((c) => parseType(c.type)!),
      position: new Map(columns.map((c, i) => [c.id, i])),
    }
    const stmts: RawStatement[] = existing
      ? addColumnStatements(input.id, columns.map((c, i) => ({ id: c.id, type: table.types[i]! })), added)
      : createTableStatements(input.id, added)
    const transform = await tableTransform(db, table, now)
    if (input.records?.length) stmts.push(...insertRecords(table, input.records, 'insert', transform))
    const keyChanged = input.primary_key !== undefined
    if (keyChanged) stmts.push(...uniqueKeyStatements(input.id, primary_key))
    if (input.indexes !== undefined)
      stmts.push(...indexStatements(input.id, existing?.indexes.length ?? 0, indexes))
    if (input.aliases !== undefined)
      stmts.push(...aliasStatements(input.id, existing ? await aliasesOf(db, input.id) : [], input.aliases))
    stmts.push(saveTableStmt(input.id, meta, now(), existing))
    try {
      await db.write([writeGuard(input.id, existing?.version ?? 0), ...stmts])
    } catch (e) {
      const creatingKey = keyChanged && !sameKey(existing?.primary_key, primary_key)
      throw writeError(e, input.id, creatingKey, existing?.primary_key ?? [])
    }
    return echoed
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
