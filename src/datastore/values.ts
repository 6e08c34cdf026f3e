// DataStore values in and out: type guessing, PostgreSQL-style coercion of every written value to
// its column type, filter operands, and stored → JSON conversion for search and SQL results.
// Coercers and decoders are built once per column type: bulk loads and dumps call them per cell.
import { pgTypeName, type ColumnType } from './column-types'
import { daysIn } from './pg-datetime'
import { ValueError } from './pg-input'
import {
  arrayCoercer,
  exprType,
  INT_RANGES,
  makeScalar,
  mismatch,
  plainNumber,
} from './value-scalars'

export { ValueError }

export type Stored = string | number | null
export type Coercer = (v: unknown) => Stored
export type Decoder = (v: unknown) => unknown

// ---------------------------------------------------------------- guessing

const PY_INT = /^\s*[+-]?\d+\s*$/
const PY_FLOAT = /^\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|nan|inf|infinity)\s*$/i
// Python strptime's patterns for CKAN's date formats (datastore.md §2.2); it ignores case
const Y = '(\\d{4})'
const M = '(1[0-2]|0[1-9]|[1-9])'
const D = '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])'
const HMS = '(?:2[0-3]|[01]\\d|\\d):(?:[0-5]\\d|\\d):(?:[0-5]\\d|\\d)'
const DATE_FORMATS: [RegExp, number, number, number][] = [
  [new RegExp(`^${Y}-${M}-${D}(?:\\s+${HMS}|t${HMS}z?)?$`, 'i'), 1, 2, 3],
  [new RegExp(`^${D}/${M}/${Y}$`), 3, 2, 1],
  [new RegExp(`^${M}/${D}/${Y}$`), 3, 1, 2],
  [new RegExp(`^${D}-${M}-${Y}$`), 3, 2, 1],
  [new RegExp(`^${M}-${D}-${Y}$`), 3, 1, 2],
]

const isDateText = (s: string) =>
  DATE_FORMATS.some(([re, y, m, d]) => {
    const g = re.exec(s)
    return g !== null && Number(g[d]) <= daysIn(Number(g[y]), Number(g[m]))
  })

/**
 * Type to create for a field without `type`, from the first record's value (datastore.md §2.2),
 * as the input type string CKAN echoes. JSON booleans guess `bool` (gaps.md fix; CKAN says `int`).
 */
export function guessType(v: unknown): string {
  if (v === null || v === undefined) return 'text'
  if (typeof v === 'object') return 'json'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float'
  if (typeof v !== 'string') return 'text'
  if (PY_INT.test(v)) return 'integer'
  if (PY_FLOAT.test(v)) return 'numeric'
  return isDateText(v) ? 'timestamp' : 'text'
}

// ---------------------------------------------------------------- writing

// Non-finite floats: SQLite reads the text '1e999' as REAL infinity, so they sort as numbers.
const storedSpecial = (r: unknown) =>
  (r === 'Infinity' ? '1e999' : r === '-Infinity' ? '-1e999' : r) as Stored

function jsonText(v: unknown): string {
  let s: string | undefined
  try {
    s = JSON.stringify(v)
  } catch {
    s = undefined
  }
  if (s === undefined) throw new ValueError('invalid input syntax for type json')
  return s
}

/**
 * The stored-value function of a column type: null/undefined → null, else the SQLite value, or a
 * ValueError with PostgreSQL's message. `column` names the column in type-mismatch messages.
 */
export function makeCoercer(t: ColumnType, column?: string): Coercer {
  if (t.array) {
    const arr = arrayCoercer(t, column)
    return (v) => (v === null || v === undefined ? null : arr(v))
  }
  const scalar = makeScalar(t, (v) => mismatch(t, v, column))
  switch (t.kind) {
    case 'int': {
      const [min, max] = INT_RANGES[t.name]!
      return (v) =>
        typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
          ? v + 0 // no -0
          : v === null || v === undefined
            ? null
            : (scalar(v) as number)
    }
    case 'float':
    case 'numeric': {
      const exact = t.name !== 'float4'
      return (v) =>
        typeof v === 'number' && exact
          ? v
          : v === null || v === undefined
            ? null
            : storedSpecial(scalar(v))
    }
    case 'bool':
      return (v) =>
        v === true ? 1 : v === false ? 0 : v === null || v === undefined ? null : scalar(v) ? 1 : 0
    case 'json':
      return (v) => (v === null || v === undefined ? null : jsonText(v))
    default:
      return (v) => (v === null || v === undefined ? null : (scalar(v) as string))
  }
}

const coercers = new WeakMap<ColumnType, Coercer>()

/** The SQLite value to bind for `v` in a column of type t (see makeCoercer). */
export function toStored(t: ColumnType, v: unknown, column?: string): Stored {
  if (column !== undefined) return makeCoercer(t, column)(v)
  let c = coercers.get(t)
  if (!c) coercers.set(t, (c = makeCoercer(t)))
  return c(v)
}

/**
 * A filter value (datastore.md §6.3) → the bound operand of `col = ?` / IN. Strings coerce like
 * written values; a number or boolean against a column of another kind fails as PostgreSQL's
 * `operator does not exist`. null → null (matches nothing). Array columns compare whole arrays.
 */
export function filterValue(t: ColumnType, v: unknown): string | number | null {
  if (v === null || v === undefined) return null
  let f = filters.get(t)
  if (!f) filters.set(t, (f = makeFilter(t)))
  return f(v)
}

const filters = new WeakMap<ColumnType, (v: unknown) => string | number>()

function makeFilter(t: ColumnType): (v: unknown) => string | number {
  const coerce = makeCoercer(t) as (v: unknown) => string | number
  const noOperator = (v: unknown) =>
    new ValueError(`operator does not exist: ${pgTypeName(t)} = ${exprType(v)}`)
  if (t.kind === 'json' && !t.array) return coerce
  const numeric = !t.array && (t.kind === 'int' || t.kind === 'float' || t.kind === 'numeric')
  return (v) => {
    if (typeof v === 'string') return coerce(v)
    // ckan: a number compares as a number (5.5 matches no integer; no range error)
    if (typeof v === 'number' && numeric) return v
    if (t.array ? Array.isArray(v) : typeof v === 'boolean' && t.kind === 'bool') return coerce(v)
    throw noOperator(v)
  }
}

// ---------------------------------------------------------------- reading

const identity: Decoder = (v) => (v === undefined ? null : v)
const parseJson: Decoder = (v) => (typeof v === 'string' ? JSON.parse(v) : identity(v))
const intOut: Decoder = (v) => (typeof v === 'bigint' ? Number(v) : identity(v))
const floatOut: Decoder = (v) =>
  v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : identity(v)
const numericOut: Decoder = (v) =>
  typeof v === 'string' && v !== 'NaN' ? Number(v) : typeof v === 'bigint' ? Number(v) : floatOut(v)
const boolOut: Decoder = (v) =>
  v === null || v === undefined ? null : v !== 0 && v !== 0n && v !== '0'
// ckan: search output formats timestamps with to_char(…'YYYY-MM-DD"T"HH24:MI:SS'): no fraction
const timestampOut: Decoder = (v) =>
  typeof v === 'string' && v.length > 19 ? v.slice(0, 19) : identity(v)

/**
 * ckan 2.12 (ckan.datastore.ms_in_timestamp): to_char(…'YYYY-MM-DD"T"HH24:MI:SS.MS'), the
 * fraction cut (not rounded) to milliseconds and always three digits.
 */
export const timestampMsOut: Decoder = (v) => {
  if (typeof v !== 'string' || v.length < 19 || v.charCodeAt(10) !== 84) return identity(v)
  const frac = v.charCodeAt(19) === 46 ? v.slice(20, 23) : ''
  return v.slice(0, 19) + '.' + frac.padEnd(3, '0')
}

/** Stored SQLite value → datastore_search record value (datastore.md §2.1 "Values in / out"). */
export function makeDecoder(t: ColumnType): Decoder {
  if (t.array || t.kind === 'json') return parseJson
  switch (t.kind) {
    case 'int':
      return intOut
    case 'float':
      return floatOut
    case 'numeric':
      return numericOut
    case 'bool':
      return boolOut
    case 'timestamp':
      return timestampOut
    default:
      return identity
  }
}

const numericSqlOut: Decoder = (v) =>
  typeof v === 'number' && Number.isFinite(v)
    ? plainNumber(v)
    : typeof v === 'bigint'
      ? String(v)
      : floatOut(v)

/** Times with six fraction digits, as Python's isoformat() prints them in CKAN's SQL results. */
const sixDigits: Decoder = (v) => {
  if (typeof v !== 'string') return identity(v)
  const dot = v.indexOf('.')
  if (dot < 0) return v
  let end = dot + 1
  while (end < v.length && v.charCodeAt(end) >= 48 && v.charCodeAt(end) <= 57) end++
  return end - dot > 6 ? v : v.slice(0, end) + '000000'.slice(end - dot - 1) + v.slice(end)
}

const deepMap = (v: unknown, f: Decoder): unknown =>
  Array.isArray(v) ? v.map((x) => deepMap(x, f)) : f(v)

/** Stored SQLite value → datastore_search_sql record value (datastore.md §7). */
/** ckan 2.11: a numeric value of datastore_search_sql is a JSON number (its Decimal, kept). */
const numericSqlNumber: Decoder = (v) =>
  typeof v === 'number' && Number.isFinite(v)
    ? v + 0 // no -0
    : typeof v === 'bigint' && Number.isSafeInteger(Number(v))
      ? Number(v)
      : numericSqlOut(v)

export function makeSqlDecoder(t: ColumnType, numericAsNumber = false): Decoder {
  const kind = t.kind
  const el =
    kind === 'numeric'
      ? numericAsNumber
        ? numericSqlNumber
        : numericSqlOut
      : kind === 'timestamp' || kind === 'timestamptz' || kind === 'time'
        ? sixDigits
        : undefined
  if (!el) return makeDecoder(t)
  if (!t.array) return el
  return (v) => (typeof v === 'string' ? deepMap(JSON.parse(v), el) : identity(v))
}

/**
 * Stored SQLite value → a value of the rows CKAN 2.12's include_records and
 * include_deleted_records return: the database's own values as CKAN's JSON encoder writes them,
 * so as datastore_search shows them but for times, which keep their fraction in six digits
 * (Python's isoformat()).
 */
export function makeReturnedDecoder(t: ColumnType): Decoder {
  const kind = t.kind
  if (kind !== 'timestamp' && kind !== 'timestamptz' && kind !== 'time') return makeDecoder(t)
  if (!t.array) return sixDigits
  return (v) => (typeof v === 'string' ? deepMap(JSON.parse(v), sixDigits) : identity(v))
}

const decoders = new WeakMap<ColumnType, Decoder>()
const sqlDecoders = new WeakMap<ColumnType, Decoder>()
const sqlNumberDecoders = new WeakMap<ColumnType, Decoder>()

/** Stored SQLite value → JSON value for datastore_search records. */
export function fromStored(t: ColumnType, v: unknown): unknown {
  let d = decoders.get(t)
  if (!d) decoders.set(t, (d = makeDecoder(t)))
  return d(v)
}

/**
 * Stored SQLite value → JSON value for datastore_search_sql records: numeric as text (CKAN 2.9 and
 * 2.10), or with `numericAsNumber` as a JSON number (CKAN 2.11).
 */
export function fromStoredSql(t: ColumnType, v: unknown, numericAsNumber = false): unknown {
  const cache = numericAsNumber ? sqlNumberDecoders : sqlDecoders
  let d = cache.get(t)
  if (!d) cache.set(t, (d = makeSqlDecoder(t, numericAsNumber)))
  return d(v)
}
