// The DataStore benchmark's raw libSQL baselines: the same table (built by the project's own DDL),
// the same stored values and the same SQL, without the server (no HTTP, JSON, validation or actions).
import { createClient, type InStatement, type InValue } from '@libsql/client'
import Database from 'libsql'
import { parseType } from '../../src/datastore/column-types'
import { createTableStatements, indexStatements } from '../../src/datastore/ddl'
import { copyNumberOf, dumpCell, dumpWriter, makeCopyLine } from '../../src/datastore/formats'
import { createHash } from 'node:crypto'
import { quoteIdent } from '../../src/datastore/ident'
import { planSearch, type SearchSpec } from '../../src/datastore/query'
import type { DsTable } from '../../src/datastore/registry'
import { columnDecoders } from '../../src/datastore/search'
import { outFields } from '../../src/datastore/search-output'
import { makeCoercer } from '../../src/datastore/values'
import { DS_FIELDS } from './ds-rows'

/** The server's DataStore connection settings (src/runtime/node-datastore.ts). */
const PRAGMAS = [
  'PRAGMA journal_mode=WAL',
  'PRAGMA synchronous=NORMAL',
  'PRAGMA busy_timeout=5000',
  'PRAGMA cache_size=-65536',
  'PRAGMA wal_autocheckpoint=8000',
]

/** Rows per multi-row INSERT, as the server chunks them (records.ts: 6,000 cells / 10 columns). */
export const ROWS_PER_STATEMENT = 600

/**
 * The catalogue entry datastore_create makes for the benchmark's fields (DS_FIELDS order, `category`
 * indexed), or for other fields and indexes (the loader benchmark: the types the loader guessed).
 */
export function benchTable(
  id: string,
  fields: readonly { id: string; type: string }[] = DS_FIELDS,
  indexes: string[][] = [['category']],
): DsTable {
  const types = fields.map((f) => {
    const t = parseType(f.type)
    if (!t) throw new Error(`unknown type ${f.type} of ${f.id}`)
    return t
  })
  return {
    id,
    version: 1,
    columns: fields.map((f, i) => ({ id: f.id, type: types[i]!.name })),
    types,
    position: new Map(fields.map((f, i) => [f.id, i])),
    primary_key: [],
    indexes,
    triggers: [],
  }
}

/** Multi-row INSERTs of already-stored values, shaped like the server's (records.ts insertStatements). */
function insertStatements(t: DsTable, rows: InValue[][]): InStatement[] {
  const head = `INSERT INTO ${quoteIdent(t.id)} (${t.columns.map((c) => quoteIdent(c.id)).join(', ')}) VALUES `
  const one = `(${t.columns.map(() => '?').join(', ')})`
  const out: InStatement[] = []
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT)
    out.push({ sql: head + new Array(chunk.length).fill(one).join(', '), args: chunk.flat() })
  }
  return out
}

/**
 * A fresh file with the table (its FTS5 table, triggers and category index) through
 * @libsql/client. insert() writes records as the server would store them; only its batch() call
 * is timed: coercing the values and building the statements happen outside.
 */
export async function rawTable(path: string, t: DsTable) {
  const client = createClient({ url: `file:${path}`, concurrency: 1 })
  for (const p of PRAGMAS) await client.execute(p)
  const defs = t.columns.map((c, i) => ({ id: c.id, type: t.types[i]! }))
  await client.batch([...createTableStatements(t.id, defs), ...indexStatements(t.id, 0, t.indexes)], 'write')
  const coerce = t.types.map((ty) => makeCoercer(ty))
  return {
    /** Milliseconds spent in the database. */
    async insert(records: Record<string, unknown>[]): Promise<number> {
      const rows = records.map((r) => t.columns.map((c, i) => coerce[i]!(r[c.id]) as InValue))
      const stmts = insertStatements(t, rows)
      const started = performance.now()
      await client.batch(stmts, 'write')
      return performance.now() - started
    },
    close: () => client.close(),
  }
}

/**
 * One datastore_search request's SQL on the sync driver: the page, and the count when the server
 * would run it (search.ts skips it for a first page that is not full). Milliseconds per call.
 */
export function rawSearcher(conn: Database.Database, t: DsTable) {
  // prepared once per SQL text, as the server's statement cache does
  const cache = new Map<string, Database.Statement>()
  const prepare = (sql: string) => {
    let st = cache.get(sql)
    if (!st) cache.set(sql, (st = conn.prepare(sql).raw(true)))
    return st
  }
  return (spec: SearchSpec) => {
    const plan = planSearch(t, spec)
    const started = performance.now()
    const rows = prepare(plan.sql).all(plan.args) as unknown[][]
    let total = rows.length
    if (spec.offset !== 0 || rows.length >= spec.limit)
      total = Number((prepare(plan.countSql).get(plan.countArgs) as unknown[])[0])
    return { ms: performance.now() - started, total }
  }
}

/**
 * The dump's work without HTTP: the dump route's SQL read with a cursor, each value decoded and
 * formatted as a CSV line, in chunks of 2,000 rows as the route builds them. Rows, bytes (UTF-16
 * code units), seconds.
 */
export function rawDump(conn: Database.Database, t: DsTable) {
  const plan = planSearch(t, { plain: true, language: 'english', distinct: false, sort: '_id', limit: 0, offset: 0 })
  const line = makeCopyLine(outFields(plan.columns), ',')
  const decode = columnDecoders(t, plan.columns)
  const started = performance.now()
  const it = conn.prepare(`${plan.allSql} LIMIT ? OFFSET ?`).raw(true).iterate([...plan.countArgs, -1, 0])
  let rows = 0
  let chars = 0
  let out = ''
  for (const r of it as Iterable<unknown[]>) {
    for (let i = 0; i < r.length; i++) r[i] = decode[i]!(r[i])
    out += line(r)
    if (++rows % 2000 === 0) {
      chars += out.length
      out = ''
    }
  }
  chars += out.length
  const seconds = (performance.now() - started) / 1000
  return { rows, chars, seconds, rate: rows / seconds }
}

const QUOTE = /[,"\r\n]/

const TSV_QUOTE = /[\t"\r\n]/

/** A text cell of a COPY line (csv or tsv) as PG writes it: quoted for the delimiter, '"', CR, LF; '' as "". */
function textCellOf(quote: RegExp): (v: unknown) => string {
  return (v) => {
    if (v === null || v === undefined) return ''
    const s = typeof v === 'string' ? v : String(v)
    if (s === '') return '""'
    if (quote.test(s)) return '"' + s.replaceAll('"', '""') + '"'
    return s
  }
}

const SEPARATORS = /[\u2028\u2029]/g

/**
 * The reference of the dumps (issue 36): the fastest honest way to do a dump's work in one thread.
 * The same SQL read with libsql's synchronous API (`raw()` + `iterate()`), each column's cell
 * writer chosen once by its type (no per-cell dispatch, no decode pass), lines joined into chunks
 * of 2,000 rows and encoded to UTF-8 as a server must send them; the header and footer as the
 * route writes them. The SHA-256 of every byte, which the benchmark checks against the HTTP
 * dump's: the same bytes, so the same work. Columns of types without a fast path here use the
 * dump's own cells. `format`: csv (COPY csv), tsv (COPY csv with tabs) or json (CKAN's json dump).
 */
export function fastestDump(conn: Database.Database, t: DsTable, format: 'csv' | 'tsv' | 'json' = 'csv') {
  const plan = planSearch(t, { plain: true, language: 'english', distinct: false, sort: '_id', limit: 0, offset: 0 })
  const fields = outFields(plan.columns)
  const decode = columnDecoders(t, plan.columns)
  const json = format === 'json'
  const delimiter = format === 'tsv' ? '\t' : ','
  const quote = format === 'tsv' ? TSV_QUOTE : QUOTE
  const text = textCellOf(quote)
  const copyCell = (type: string, i: number): ((v: unknown) => string) => {
    if (type === 'int' || type === 'int2' || type === 'int4' || type === 'int8')
      return (v) => (v === null ? '' : typeof v === 'number' ? '' + v : String(Number(v)))
    if (type === 'float8' || type === 'numeric') {
      const num = copyNumberOf(type)
      return (v) => (v === null ? '' : typeof v === 'number' ? num(v) : text(decode[i]!(v)))
    }
    if (type === 'bool') return (v) => (v === null ? '' : v === 0 || v === 0n || v === '0' ? 'f' : 't')
    if (type === 'timestamp') return (v) => (v === null ? '' : text(typeof v === 'string' && v.length > 19 ? v.slice(0, 19) : v))
    // COPY quotes a lone `\.` in a one-column table (it would read back as the end of the data)
    if (type === 'text' || type === 'date' || type === 'time')
      return plan.columns.length === 1 ? (v) => (v === '\\.' ? '"\\."' : text(v)) : text
    // anything else: the dump's own cell (one column alone, its line without the newline)
    const one = makeCopyLine([fields[i]!], delimiter)
    return (v) => one([decode[i]!(v)]).slice(0, -1)
  }
  const jsonCell = (type: string, i: number): ((v: unknown) => string) => {
    if (type === 'int' || type === 'int2' || type === 'int4' || type === 'int8')
      return (v) => (v === null ? 'null' : typeof v === 'number' ? '' + v : String(Number(v)))
    if (type === 'text') return (v) => (v === null ? 'null' : JSON.stringify(v))
    if (type === 'bool') return (v) => (v === null ? 'null' : v === 0 || v === 0n || v === '0' ? 'false' : 'true')
    // anything else: the dump's own cell of the decoded value
    const own = dumpCell(fields[i]!)
    return (v) => own(decode[i]!(v))
  }
  const cells = plan.columns.map((c, i) => (json ? jsonCell : copyCell)(c.type.toLowerCase(), i))
  const n = cells.length
  const hash = createHash('sha256')
  const writer = dumpWriter(format, fields)
  const header = writer.header()
  const started = performance.now()
  let bytes = 0
  const emit = (text: string) => {
    const b = Buffer.from(json ? text.replace(SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029')) : text)
    bytes += b.length
    hash.update(b)
  }
  emit(header)
  const it = conn.prepare(`${plan.allSql} LIMIT ? OFFSET ?`).raw(true).iterate([...plan.countArgs, -1, 0])
  let rows = 0
  let out = ''
  for (const r of it as Iterable<unknown[]>) {
    if (json) {
      out += rows === 0 ? '\n    [' : ',\n    ['
      out += cells[0]!(r[0])
      for (let i = 1; i < n; i++) out += ',' + cells[i]!(r[i])
      out += ']'
    } else {
      out += cells[0]!(r[0])
      for (let i = 1; i < n; i++) out += delimiter + cells[i]!(r[i])
      out += '\n'
    }
    if (++rows % 2000 === 0) {
      emit(out)
      out = ''
    }
  }
  emit(out)
  emit(writer.footer())
  const seconds = (performance.now() - started) / 1000
  return { rows, bytes, seconds, rate: rows / seconds, sha256: hash.digest('hex') }
}

export const openSync = (path: string) => new Database(path)
