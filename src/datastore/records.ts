// Records → write statements: every value checked against its column type before anything is
// written, then multi-row statements for one atomic batch.
import type { InValue } from '@libsql/client'
import type { RawStatement } from '../db/executor'
import { ValidationError } from '../errors'
import { pyRepr } from '../lib/py-repr'
import { quoteIdent } from './ident'
import type { DsTable } from './registry'
import { typeFromName } from './column-types'
import { makeCoercer, makeDecoder, makeReturnedDecoder, ValueError } from './values'

type Stored = string | number | null
export type Row = Record<string, unknown>

/** Trigger functions of a table, composed: the row to write, or null to skip it. */
export type RowTransform = (row: Row, op: 'INSERT' | 'UPDATE', old?: Row) => Row | null

/** Rows per multi-row statement: a fixed size keeps one prepared statement per table shape. */
const CHUNK_CELLS = 6000

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v)

const coercersCache = new WeakMap<DsTable, ((v: unknown) => Stored)[]>()
const decodersCache = new WeakMap<DsTable, ((v: unknown) => unknown)[]>()

export function coercers(t: DsTable) {
  let c = coercersCache.get(t)
  if (!c) coercersCache.set(t, (c = t.types.map((ty) => makeCoercer(ty))))
  return c
}

export function decoders(t: DsTable) {
  let d = decodersCache.get(t)
  if (!d) decodersCache.set(t, (d = t.types.map((ty) => makeDecoder(ty))))
  return d
}

const returnedCache = new WeakMap<DsTable, ((v: unknown) => unknown)[]>()

/** `s` answering each row it writes: `_id`, then every column (CKAN 2.12's include_records). */
export function withReturning(t: DsTable, s: RawStatement): RawStatement {
  const cols = t.columns.map((c) => ', ' + quoteIdent(c.id)).join('')
  return { sql: `${s.sql} RETURNING _id${cols}`, args: s.args }
}

/**
 * The rows RETURNING answered (`[_id, ...columns]`, per statement in the order the statements
 * ran) as CKAN 2.12 returns them: one record per `_id`, where the row was first written, with the
 * values it was left with; `_id` first, then the columns in table order.
 */
export function returnedRecords(t: DsTable, results: unknown[][][]): Row[] {
  let dec = returnedCache.get(t)
  if (!dec) returnedCache.set(t, (dec = t.types.map((ty) => makeReturnedDecoder(ty))))
  const byId = new Map<number, Row>()
  for (const rows of results) {
    // SQLite leaves the order of RETURNING rows open; a statement's rows are written in _id order
    const sorted = rows.length > 1 ? [...rows].sort((a, b) => Number(a[0]) - Number(b[0])) : rows
    for (const r of sorted) {
      const rec: Row = { _id: Number(r[0]) }
      t.columns.forEach((c, i) => {
        const v = r[i + 1]
        rec[c.id] = v === null || v === undefined ? null : dec[i]!(v)
      })
      byId.set(rec._id as number, rec)
    }
  }
  return [...byId.values()]
}

/** How a bad value is reported: datastore_create and insert vs update/upsert (datastore.md §3.4, §4.4). */
export type ValueErrorStyle = 'insert' | 'update'

// ckan: the database's message as it is (PostgreSQL names neither column nor row); 2.9 clients
// read the row as _records_row, 2.11 names the failing record as records_row
function valueError(style: ValueErrorStyle, msg: string, row: number): ValidationError {
  const rows = { _records_row: row, records_row: row }
  return style === 'insert'
    ? new ValidationError({ message: `The data was invalid: ${msg}`, ...rows })
    : new ValidationError({ records: [msg], ...rows })
}

/** Runs the triggers on record `n`; a RAISE names the record as CKAN 2.11 does (records_row). */
function transformed(
  transform: RowTransform,
  n: number,
  style: ValueErrorStyle,
  ...args: Parameters<RowTransform>
): Row | null {
  try {
    return transform(...args)
  } catch (e) {
    if (!(e instanceof ValidationError) || !('records' in e.errors)) throw e
    // ckan 2.9: only update and upsert named the row, as _records_row
    const rows = style === 'update' ? { _records_row: n, records_row: n } : { records_row: n }
    throw new ValidationError({ ...e.errors, ...rows })
  }
}

/** CKAN's record shape checks: a list of objects. */
export function checkRecordList(records: unknown): Row[] {
  if (!Array.isArray(records)) throw ValidationError.field('records', 'Records has to be a list of dicts')
  records.forEach((r, i) => {
    if (!isObject(r)) throw ValidationError.field('records', `row "${i}" is not a json object`)
  })
  return records as Row[]
}

/**
 * How records are read where CKAN versions differ (`service.api_compat`); the defaults are 2.9's.
 */
export interface RecordRules {
  /** ckan 2.11: `""` for a column of any type but `text` is written as NULL */
  blankIsNull?: boolean
  /**
   * ckan 2.10: an update or upsert record with `_id` finds its row by `_id` (the key columns it
   * sends are written too), so a table without a primary key can be updated
   */
  byId?: boolean
}

/**
 * A record's values for every column of `t`, coerced to stored form. `blankIsNull` is for records
 * as sent, not for what a trigger returns (CKAN reads `""` so before PostgreSQL sees the row).
 */
function storedRow(t: DsTable, rec: Row, row: number, style: ValueErrorStyle, blankIsNull?: boolean): Stored[] {
  const co = coercers(t)
  const out: Stored[] = new Array(co.length)
  for (let i = 0; i < co.length; i++) {
    const v = rec[t.columns[i]!.id]
    if (v === undefined || v === null || (blankIsNull && v === '' && t.columns[i]!.type !== 'text')) {
      out[i] = null
      continue
    }
    try {
      out[i] = co[i]!(v)
    } catch (e) {
      if (e instanceof ValueError) throw valueError(style, e.message, row)
      throw e
    }
  }
  return out
}

const triggerCache = new WeakMap<DsTable, ((v: unknown) => unknown)[]>()

/**
 * Decoders of the values trigger functions see: as search shows them, but timestamps whole (search
 * cuts their fraction, and a trigger writes NEW back: a cut there would lose it from the row).
 */
function triggerDecoders(t: DsTable) {
  let d = triggerCache.get(t)
  if (!d) {
    const out = decoders(t)
    d = t.types.map((ty, i) => (ty.kind === 'timestamp' && !ty.array ? (v: unknown) => v : out[i]!))
    triggerCache.set(t, d)
  }
  return d
}

/** Output values of a stored row, as trigger functions see them. */
function outputRow(t: DsTable, stored: Stored[]): Row {
  const dec = triggerDecoders(t)
  const row: Row = {}
  t.columns.forEach((c, i) => (row[c.id] = stored[i] === null ? null : dec[i]!(stored[i])))
  return row
}

function extraKeys(t: DsTable, rec: Row): string[] {
  const extra: string[] = []
  for (const k in rec) if (!t.position.has(k)) extra.push(k)
  return extra
}

/** Multi-row INSERTs of full rows. */
function insertStatements(t: DsTable, cols: number[], rows: Stored[][]): RawStatement[] {
  if (!rows.length) return []
  const names = cols.map((i) => quoteIdent(t.columns[i]!.id)).join(', ')
  const one = `(${cols.map(() => '?').join(', ')})`
  const per = Math.max(1, Math.floor(CHUNK_CELLS / Math.max(1, cols.length)))
  const head = cols.length
    ? `INSERT INTO ${quoteIdent(t.id)} (${names}) VALUES `
    : `INSERT INTO ${quoteIdent(t.id)} DEFAULT VALUES`
  const out: RawStatement[] = []
  if (!cols.length) {
    for (let i = 0; i < rows.length; i++) out.push({ sql: head, args: [] })
    return out
  }
  for (let start = 0; start < rows.length; start += per) {
    const chunk = rows.slice(start, start + per)
    const args: InValue[] = []
    for (const r of chunk) for (const i of cols) args.push(r[i] as InValue)
    out.push({ sql: head + new Array(chunk.length).fill(one).join(', '), args })
  }
  return out
}

/**
 * Plain inserts (datastore_create, upsert method insert): every key must be a column; missing
 * ones are NULL. Triggers, when given, see and may change or drop each row.
 */
export function insertRecords(
  t: DsTable,
  records: Row[],
  style: ValueErrorStyle,
  transform?: RowTransform,
  rules: RecordRules = {},
): RawStatement[] {
  const rows: Stored[][] = []
  for (let n = 0; n < records.length; n++) {
    const rec = records[n]!
    const extra = extraKeys(t, rec)
    if (extra.length)
      throw ValidationError.field('records', `row "${n + 1}" has extra keys "${extra.join(', ')}"`)
    let stored = storedRow(t, rec, n, style, rules.blankIsNull)
    if (transform) {
      const out = transformed(transform, n, style, outputRow(t, stored), 'INSERT')
      if (!out) continue
      stored = storedRow(t, out, n, style)
    }
    rows.push(stored)
  }
  return insertStatements(t, t.columns.map((_, i) => i), rows)
}

/** The key columns an update or upsert needs, with CKAN 2.9's error when there are none. */
export function requireKey(t: DsTable): number[] {
  if (!t.primary_key.length)
    throw ValidationError.field('table', 'table does not have a unique key defined')
  return keyColumns(t)
}

/** Positions of the table's key columns (none without a primary key). */
export const keyColumns = (t: DsTable): number[] => t.primary_key.map((k) => t.position.get(k)!)

/** Checks an update/upsert record: known columns, all key columns present unless found by `_id`. */
function checkKeyed(t: DsTable, rec: Row, withId: boolean) {
  const extra = extraKeys(t, rec).filter((k) => !(withId && k === '_id'))
  if (extra.length) throw ValidationError.field('fields', `fields "${extra.join(', ')}" do not exist`)
  const missing = withId ? [] : t.primary_key.filter((k) => !(k in rec))
  if (missing.length)
    throw ValidationError.field('key', `fields "${missing.join(', ')}" are missing but needed as key`)
}

const keyOf = (stored: Stored[], key: number[]) => JSON.stringify(key.map((i) => stored[i]))

const idCoercer = makeCoercer(typeFromName('int4'))

/** A record's `_id` as PostgreSQL reads it against the integer column (null matches no row). */
function rowId(v: unknown, n: number): number | null {
  try {
    return idCoercer(v) as number | null
  } catch (e) {
    if (e instanceof ValueError) throw valueError('update', e.message, n)
    throw e
  }
}

/** A stored row: its values by column, and its `_id` once written (a row of this call has none). */
export interface StoredHit {
  stored: Stored[]
  id?: number
}

/**
 * Full stored rows of the table, for these key values and these `_id`s; one object per row, so
 * a row asked for both ways is one hit. Run inside writeGuarded.
 */
export type KeyLookup = (
  keys: Stored[][],
  ids: number[],
) => Promise<{ byKey: Map<string, StoredHit>; byId: Map<number, StoredHit> }>

/** The lookup's rows (`[_id, ...columns]`) as hits, by key text and by `_id`. */
export function lookupHits(t: DsTable, rows: unknown[][]) {
  const key = keyColumns(t)
  const byKey = new Map<string, StoredHit>()
  const byId = new Map<number, StoredHit>()
  for (const r of rows) {
    const id = Number(r[0])
    const hit = byId.get(id) ?? { stored: r.slice(1) as Stored[], id }
    byId.set(id, hit)
    if (key.length) byKey.set(keyOf(hit.stored, key), hit)
  }
  return { byKey, byId }
}

/**
 * datastore_upsert methods update and upsert (datastore.md §4.3). Records are applied in order:
 * existing rows are looked up first (the caller holds the DataStore lock), rows inserted earlier
 * in the same call count as existing, and new rows are inserted with multi-row statements.
 * Upsert does not use INSERT ... ON CONFLICT: that spends an `_id` on every updated row, and
 * CKAN's upsert leaves no gaps. With `rules.byId` (CKAN 2.10) a record with `_id` finds its row
 * by `_id` (an upsert that finds none inserts the row with a new `_id`, as CKAN's does).
 */
export async function keyedWrites(
  t: DsTable,
  records: Row[],
  method: 'update' | 'upsert',
  lookup: KeyLookup,
  transform?: RowTransform,
  rules: RecordRules = {},
): Promise<RawStatement[]> {
  const key = rules.byId ? keyColumns(t) : requireKey(t)
  const all = t.columns.map((_, i) => i)
  const prepared = records.map((rec, n) => {
    const withId = !!rules.byId && '_id' in rec
    // ckan 2.10: checked record by record, since a record with _id needs no key
    if (!withId && !key.length)
      throw ValidationError.field('table', 'unique key must be passed for update/upsert')
    checkKeyed(t, rec, withId)
    const stored = storedRow(t, rec, n, 'update', rules.blankIsNull)
    return { rec, n, stored, withId, id: withId ? rowId(rec._id, n) : null }
  })
  const found = await lookup(
    prepared.filter((p) => !p.withId).map((p) => key.map((i) => p.stored[i]!)),
    prepared.flatMap((p) => (p.id === null ? [] : [p.id])),
  )
  const out: RawStatement[] = []
  let pending: Stored[][] = []
  const flush = () => {
    out.push(...insertStatements(t, all, pending))
    pending = []
  }
  const tbl = quoteIdent(t.id)
  const where = key.map((i) => `${quoteIdent(t.columns[i]!.id)} = ?`).join(' AND ')
  const fullKey = (row: Stored[]) => key.length > 0 && key.every((i) => row[i] !== null)
  for (const { rec, n, stored, withId, id } of prepared) {
    const hit = withId
      ? id === null
        ? undefined
        : found.byId.get(id)
      : fullKey(stored)
        ? found.byKey.get(keyOf(stored, key))
        : undefined
    if (!hit) {
      if (method === 'update') {
        const given = withId ? [rec._id] : t.primary_key.map((c) => rec[c])
        throw ValidationError.field('key', `key "[${given.map(pyRepr).join(', ')}]" not found`)
      }
      let row = stored
      if (transform) {
        const changed = transformed(transform, n, 'update', outputRow(t, stored), 'INSERT')
        if (!changed) continue
        row = storedRow(t, changed, n, 'update')
      }
      pending.push(row)
      if (fullKey(row)) found.byKey.set(keyOf(row, key), { stored: row })
      continue
    }
    // present columns replace the old values; the others keep them
    const merged = hit.stored.slice()
    for (const c in rec) if (t.position.has(c)) merged[t.position.get(c)!] = stored[t.position.get(c)!]!
    let next = merged
    if (transform) {
      const old = outputRow(t, hit.stored)
      const changed = transformed(transform, n, 'update', outputRow(t, merged), 'UPDATE', old)
      if (!changed) continue
      next = storedRow(t, changed, n, 'update')
    }
    // found by _id, the key columns sent are written too
    const cols = transform
      ? all
      : all.filter((i) => t.columns[i]!.id in rec && (withId || !key.includes(i)))
    if (!cols.length) continue
    flush()
    const sets = cols.map((i) => `${quoteIdent(t.columns[i]!.id)} = ?`).join(', ')
    const args = cols.map((i) => next[i] as InValue)
    // a row of this call has no _id yet: found by its key
    const at = hit.id !== undefined ? [hit.id] : key.map((i) => hit.stored[i] as InValue)
    const sql = `UPDATE ${tbl} SET ${sets} WHERE ${hit.id !== undefined ? '_id = ?' : where}`
    out.push({ sql, args: [...args, ...at] })
    if (key.length && keyOf(next, key) !== keyOf(hit.stored, key)) {
      if (found.byKey.get(keyOf(hit.stored, key)) === hit) found.byKey.delete(keyOf(hit.stored, key))
      if (fullKey(next)) found.byKey.set(keyOf(next, key), hit)
    }
    hit.stored = next
  }
  flush()
  return out
}

/**
 * datastore_run_triggers: an UPDATE for each stored row (`[_id, ...columns]`) its triggers change,
 * and how many rows the triggers skipped (RETURN NULL: PostgreSQL's UPDATE does not count them).
 */
export function rerunStatements(
  t: DsTable,
  rows: unknown[][],
  transform: RowTransform,
): { stmts: RawStatement[]; skipped: number } {
  const out: RawStatement[] = []
  let skipped = 0
  const sets = t.columns.map((c) => `${quoteIdent(c.id)} = ?`).join(', ')
  const sql = `UPDATE ${quoteIdent(t.id)} SET ${sets} WHERE _id = ?`
  rows.forEach((r, n) => {
    const stored = r.slice(1) as Stored[]
    const before = outputRow(t, stored)
    const after = transform({ ...before }, 'UPDATE', before)
    if (!after) {
      skipped++
      return
    }
    const next = storedRow(t, after, n, 'update')
    if (next.every((v, i) => v === stored[i])) return
    out.push({ sql, args: [...(next as InValue[]), r[0] as InValue] })
  })
  return { stmts: out, skipped }
}
