// The Parquet format of /datastore/dump: typed columns from the DataStore's column types, one row
// group encoded whenever enough rows have come from the cursor and its bytes sent at once, so the
// server holds one row group at most, whatever the table's size.
//
// hyparquet-writer's ParquetWriter writes a file incrementally: it calls its Writer's flush() after
// each row group and keeps only the groups' metadata for the footer. Our Writer is its ByteWriter
// with a flush() that hands the bytes written so far to the response stream and starts the buffer
// over (`offset`, the file position the footer records, keeps counting). Only plain-JS modules of
// hyparquet-writer are imported (no `fs`), so the same code runs in workerd.
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js'
import { ParquetWriter } from 'hyparquet-writer/src/parquet-writer.js'
import type { ColumnType } from './column-types'
import type { OutField } from './formats'
import type { OutColumn } from './query'
import type { DsTable } from './registry'

export const PARQUET_CONTENT_TYPE = 'application/vnd.apache.parquet'

/** A row group ends at this many rows, or earlier once its cells reach ROW_GROUP_BYTES. */
export const ROW_GROUP_ROWS = 50_000
/**
 * Reckoned as CELL_BYTES a cell plus the length of its text, about what the cells cost while held
 * in arrays; encoding takes several times that again. Measured in Node on the DataStore bench's
 * table (11 columns): groups of 8 MiB so reckoned (about 21,000 rows) are written within a 48 MB
 * heap limit, groups of 50,000 rows did not fit in 64 MB. A Worker has 128 MB in all.
 */
const ROW_GROUP_BYTES = 8 * 1024 * 1024
const CELL_BYTES = 24

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number]

/** A stored SQLite value (never null) → the value hyparquet-writer takes for the column. */
type Cell = (v: unknown) => unknown

interface Column {
  element: SchemaElement
  cell: Cell
}

// DuckDB's values for PostgreSQL's infinite dates and timestamps
const DATE_INFINITY = 2147483647
const TIMESTAMP_INFINITY = 9223372036854775807n

const badValue = (kind: string, v: unknown) =>
  new Error(`parquet dump: stored value ${JSON.stringify(String(v))} is not a ${kind}`)

const int32: Cell = (v) => {
  const n = typeof v === 'number' ? v : Number(v)
  if (!Number.isInteger(n)) throw badValue('integer', v)
  return n
}
const int64: Cell = (v) => {
  if (typeof v === 'bigint') return v
  const n = typeof v === 'number' ? v : Number(v)
  if (!Number.isInteger(n)) throw badValue('integer', v)
  return BigInt(n)
}
// float and numeric: a REAL, or text ('NaN', or a numeric's exact decimal beyond 15 digits)
const double: Cell = (v) => (typeof v === 'number' ? v : Number(v))
const bool: Cell = (v) => v !== 0 && v !== 0n && v !== '0'
const text: Cell = (v) => (typeof v === 'string' ? v : String(v))
const json: Cell = (v) => (typeof v === 'string' ? JSON.parse(v) : v)

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468
}

/** Days of a stored `YYYY-MM-DD` (the year may be longer), or NaN; `end` receives its length. */
function storedDays(s: string, at: { end: number }): number {
  const dash = s.indexOf('-', 4)
  if (dash < 0 || s.charCodeAt(dash + 3) !== 45) return NaN
  at.end = dash + 6
  return daysFromCivil(
    Number(s.slice(0, dash)),
    Number(s.slice(dash + 1, dash + 3)),
    Number(s.slice(dash + 4, dash + 6)),
  )
}

/** Microseconds of a stored `HH:MM:SS[.ffffff]` at `from` (before any `+00:00`), or NaN. */
function storedMicros(s: string, from: number): number {
  const secs =
    Number(s.slice(from, from + 2)) * 3600 +
    Number(s.slice(from + 3, from + 5)) * 60 +
    Number(s.slice(from + 6, from + 8))
  let us = 0
  if (s.charCodeAt(from + 8) === 46) {
    let end = from + 9
    while (end < s.length && s.charCodeAt(end) >= 48 && s.charCodeAt(end) <= 57) end++
    us = Number((s.slice(from + 9, end) + '00000').slice(0, 6))
  }
  return secs * 1e6 + us
}

const date: Cell = (v) => {
  const s = text(v) as string
  if (s === 'infinity') return DATE_INFINITY
  if (s === '-infinity') return -DATE_INFINITY
  const days = storedDays(s, { end: 0 })
  if (!Number.isInteger(days)) throw badValue('date', v)
  return days
}

const timestamp: Cell = (v) => {
  const s = text(v) as string
  if (s === 'infinity') return TIMESTAMP_INFINITY
  if (s === '-infinity') return -TIMESTAMP_INFINITY
  const at = { end: 0 }
  const days = storedDays(s, at)
  const us = storedMicros(s, at.end + 1)
  if (!Number.isInteger(days) || !Number.isInteger(us)) throw badValue('timestamp', v)
  // beyond 2^53 µs (year 2255) a double is no longer exact: whole seconds and microseconds apart
  const secs = days * 86400 + Math.floor(us / 1e6)
  return BigInt(secs) * 1000000n + BigInt(us % 1e6)
}

const time: Cell = (v) => {
  const us = storedMicros(text(v) as string, 0)
  if (!Number.isInteger(us)) throw badValue('time', v)
  return BigInt(us)
}

const OPTIONAL = 'OPTIONAL' as const
const INT32 = { type: 'INT32', repetition_type: OPTIONAL } as const
const INT64 = { type: 'INT64', repetition_type: OPTIONAL } as const
const DOUBLE = { type: 'DOUBLE', repetition_type: OPTIONAL } as const
const STRING = {
  type: 'BYTE_ARRAY',
  repetition_type: OPTIONAL,
  converted_type: 'UTF8',
  logical_type: { type: 'STRING' },
} as const
const JSON_TEXT = {
  type: 'BYTE_ARRAY',
  repetition_type: OPTIONAL,
  converted_type: 'JSON',
  logical_type: { type: 'JSON' },
} as const

/** The Parquet column of a DataStore column type (an array's element type does not matter). */
type Typed = { element: Omit<SchemaElement, 'name'>; cell: Cell }

function typedColumn(t: ColumnType): Typed {
  if (t.array || t.kind === 'json') return { element: JSON_TEXT, cell: json }
  switch (t.kind) {
    case 'int':
      if (t.name === 'int4') return { element: INT32, cell: int32 }
      // the legacy annotation alone: hyparquet-writer 0.17 writes the logical INTEGER type's
      // bitWidth as a thrift i32 where the format has an i8, and Arrow then refuses the footer
      if (t.name === 'int2') return { element: { ...INT32, converted_type: 'INT_16' }, cell: int32 }
      return { element: INT64, cell: int64 } // int8, oid (unsigned 32 bits)
    case 'float':
    case 'numeric':
      return { element: DOUBLE, cell: double }
    case 'bool':
      return { element: { type: 'BOOLEAN', repetition_type: OPTIONAL }, cell: bool }
    case 'date':
      return {
        element: { ...INT32, converted_type: 'DATE', logical_type: { type: 'DATE' } },
        cell: date,
      }
    case 'timestamp':
    case 'timestamptz': {
      // the legacy TIMESTAMP_MICROS annotation means UTC-adjusted: only timestamptz carries it
      const utc = t.kind === 'timestamptz'
      const logical = { type: 'TIMESTAMP', isAdjustedToUTC: utc, unit: 'MICROS' } as const
      const element = utc
        ? { ...INT64, converted_type: 'TIMESTAMP_MICROS' as const, logical_type: logical }
        : { ...INT64, logical_type: logical }
      return { element, cell: timestamp }
    }
    case 'time': {
      const logical = { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } as const
      return { element: { ...INT64, logical_type: logical }, cell: time }
    }
    default:
      return { element: STRING, cell: text } // text kinds, uuid, interval, inet, timetz, ...
  }
}

function columnOf(table: DsTable, c: OutColumn): Column {
  // _id is SQLite's 64-bit rowid; rank columns are BM25 scores
  if (c.col === -1) return { element: { ...INT64, name: c.id }, cell: int64 }
  if (c.col === -2) return { element: { ...DOUBLE, name: c.id }, cell: double }
  const { element, cell } = typedColumn(table.types[c.col]!)
  return { element: { ...element, name: c.id }, cell }
}

/** ParquetWriter's sink: each flush() hands the bytes written since the last one to `emit`. */
class StreamingWriter extends ByteWriter {
  constructor(private readonly emit: (bytes: Uint8Array) => void) {
    super(64 * 1024)
  }

  flush() {
    if (this.index) this.emit(this.getBytes().slice())
    this.index = 0
  }
}

/** Rows of stored values in, Parquet bytes out through `emit`. */
export interface ParquetDump {
  /** Sends the file's leading magic number. */
  start(): void
  /** One row of stored SQLite values in `columns` order; may encode and send a row group. */
  row(values: unknown[]): void
  /** The last row group and the footer. */
  end(): void
}

/**
 * A Parquet file of `columns` of `table`, sent through `emit` a row group at a time (and the
 * magic number first, the footer last). The footer's key-value metadata keeps the DataStore's
 * fields (`datastore_fields`: id, type, info) for readers that want CKAN's own type names.
 */
export function parquetDump(
  table: DsTable,
  columns: OutColumn[],
  fields: OutField[],
  emit: (bytes: Uint8Array) => void,
): ParquetDump {
  const cols = columns.map((c) => columnOf(table, c))
  const cells = cols.map((c) => c.cell)
  const width = cols.length
  const writer = new StreamingWriter(emit)
  const pq = new ParquetWriter({
    writer,
    schema: [{ name: 'root', num_children: width }, ...cols.map((c) => c.element)],
    kvMetadata: [{ key: 'datastore_fields', value: JSON.stringify(fields) }],
    createdBy: 'ckan-edge datastore dump (hyparquet-writer)',
  })
  let data: unknown[][] = []
  let rows = 0
  let bytes = 0
  const rowBytes = width * CELL_BYTES
  const fresh = () => {
    data = cols.map(() => [])
    rows = 0
    bytes = 0
  }
  fresh()
  const writeGroup = () => {
    if (!rows) return
    const columnData = cols.map((c, i) => ({ name: c.element.name, data: data[i]! }))
    // our flush() is synchronous, so write() encodes and sends the group before returning
    void pq.write({ columnData, rowGroupSize: rows })
    fresh()
  }
  return {
    start: () => writer.flush(),
    row(values) {
      bytes += rowBytes
      for (let i = 0; i < width; i++) {
        const v = values[i]
        if (v === null || v === undefined) data[i]!.push(null)
        else {
          if (typeof v === 'string') bytes += v.length
          data[i]!.push(cells[i]!(v))
        }
      }
      if (++rows >= ROW_GROUP_ROWS || bytes >= ROW_GROUP_BYTES) writeGroup()
    },
    end() {
      writeGroup()
      void pq.finish()
      writer.flush()
    },
  }
}
