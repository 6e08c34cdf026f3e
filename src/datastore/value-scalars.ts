// Per-type value parsers behind values.ts: each JSON value → the canonical form of its column
// type (JSON-native for array elements), or a ValueError with PostgreSQL's message text.
import { pgTypeName, typeFromName, type ColumnType } from './column-types'
import {
  DAY_US,
  DT,
  dt,
  formatDate,
  formatDateTime,
  formatTime,
  parseDateTime,
} from './pg-datetime'
import {
  canonicalDecimal,
  Num,
  parseArrayLiteral,
  parseBoolText,
  parseIntText,
  parseUuid,
  scanNumber,
  scannedDigits,
  syntaxError,
  ValueError,
} from './pg-input'

/** One value → its canonical form; throws ValueError. */
export type Scalar = (v: unknown) => unknown
type Mismatch = (v: unknown) => ValueError

// Where PostgreSQL's input messages use a shorter name than format_type()
const INPUT_NAMES: Record<string, string> = {
  time: 'time',
  timestamp: 'timestamp',
  timetz: 'time with time zone',
}
const inputName = (t: ColumnType) => INPUT_NAMES[t.name] ?? pgTypeName(t)

const display = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))

/** The type PostgreSQL would see for a JSON value sent as a parameter. */
export function exprType(v: unknown): string {
  if (typeof v === 'boolean') return 'boolean'
  if (typeof v !== 'number') return 'json'
  if (Number.isInteger(v) && Math.abs(v) <= 2147483647) return 'integer'
  return Number.isSafeInteger(v) ? 'bigint' : 'numeric'
}

const malformed = (v: unknown) => new ValueError(`malformed array literal: "${display(v)}"`)

/** A non-string value of the wrong JSON type: PostgreSQL's assignment error, given the column. */
export function mismatch(t: ColumnType, v: unknown, column?: string): ValueError {
  if (column !== undefined)
    return new ValueError(
      `column "${column}" is of type ${pgTypeName(t)} but expression is of type ${exprType(v)}`,
    )
  return t.array ? malformed(v) : syntaxError(inputName(t), display(v))
}

// ---------------------------------------------------------------- scalars

// bigint stops at JS's safe range: larger integers could not be read back as numbers.
export const INT_RANGES: Record<string, [number, number]> = {
  int4: [-2147483648, 2147483647],
  int2: [-32768, 32767],
  int8: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  oid: [0, 4294967295],
}
const FLOAT4_MAX = 3.4028234663852886e38
const FLOAT4_MIN = 1.401298464324817e-45
const SPECIALS = ['', '', 'NaN', 'Infinity', '-Infinity'] as const

function intScalar(t: ColumnType, wrong: Mismatch): Scalar {
  const [min, max] = INT_RANGES[t.name]!
  const name = inputName(t)
  return (v) => {
    if (typeof v === 'number') {
      // ckan: JSON floats reach PostgreSQL as numeric, which rounds half away from zero
      const r = Number.isInteger(v) ? v : Math.sign(v) * Math.round(Math.abs(v))
      if (r >= min && r <= max) return r + 0
      throw new ValueError(`${name} out of range`)
    }
    if (typeof v !== 'string') throw wrong(v)
    const r = parseIntText(v)
    if (r !== r) throw syntaxError(name, v)
    if (r < min || r > max) throw new ValueError(`value "${v}" is out of range for type ${name}`)
    return r
  }
}

const outsideFloat4 = (x: number) =>
  Math.abs(x) > FLOAT4_MAX || (x !== 0 && Math.abs(x) < FLOAT4_MIN)

/** float4/float8: a number, or 'NaN' / 'Infinity' / '-Infinity'. */
function floatScalar(t: ColumnType, wrong: Mismatch): Scalar {
  const single = t.name === 'float4'
  const name = inputName(t)
  const range = (v: unknown) => new ValueError(`"${display(v)}" is out of range for type ${name}`)
  return (v) => {
    if (typeof v === 'number') {
      if (single && outsideFloat4(v)) throw range(v)
      return v
    }
    if (typeof v !== 'string') throw wrong(v)
    const kind = scanNumber(v)
    if (kind === Num.Invalid) throw syntaxError(name, v)
    if (kind !== Num.Decimal) return SPECIALS[kind]
    const x = Number(v)
    if (!Number.isFinite(x) || (x === 0 && scannedDigits > 0) || (single && outsideFloat4(x)))
      throw range(v)
    return x + 0
  }
}

const stripZeros = (s: string) => (s.includes('.') ? s.replace(/\.?0+$/, '') : s)

/** numeric: a number when it holds the value exactly, else the canonical decimal text. */
function numericScalar(wrong: Mismatch): Scalar {
  return (v) => {
    if (typeof v === 'number') return v
    if (typeof v !== 'string') throw wrong(v)
    const kind = scanNumber(v)
    if (kind === Num.Invalid) throw syntaxError('numeric', v)
    if (kind !== Num.Decimal) return SPECIALS[kind]
    const digits = scannedDigits
    const x = Number(v)
    if (!Number.isFinite(x)) throw new ValueError('value overflows numeric format')
    if (digits <= 15 && (x !== 0 || digits === 0)) return x + 0
    const canonical = canonicalDecimal(v)
    return String(x) === stripZeros(canonical) ? x : canonical
  }
}

function boolScalar(wrong: Mismatch): Scalar {
  return (v) => {
    if (typeof v === 'boolean') return v
    if (typeof v !== 'string') throw wrong(v)
    const b = parseBoolText(v)
    if (b === undefined) throw syntaxError('boolean', v)
    return b
  }
}

/** Numbers as PostgreSQL's numeric text: never in exponent form. */
export const plainNumber = (n: number) => {
  const s = String(n)
  return s.includes('e') ? canonicalDecimal(s) : s
}

function textScalar(wrong: Mismatch): Scalar {
  return (v) => {
    if (typeof v === 'string') {
      if (v.includes('\u0000'))
        throw new ValueError('invalid byte sequence for encoding "UTF8": 0x00')
      return v
    }
    if (typeof v === 'number') return plainNumber(v)
    if (typeof v === 'boolean') return String(v)
    throw wrong(v)
  }
}

/**
 * A parsed zone-less timestamp that is already in stored form but for a space separator (the
 * bulk-load case), rebuilt without formatting; undefined when it needs the general path.
 */
function plainTimestamp(v: string): string | undefined {
  const n = v.length
  if (n < 19 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45) return undefined
  if (v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return undefined
  // a fraction of at most 6 digits without trailing zeros is kept as sent
  if (n > 19 && (v.charCodeAt(19) !== 46 || n > 26 || v.charCodeAt(n - 1) === 48)) return undefined
  return v.charCodeAt(10) === 84 ? v : v.slice(0, 10) + 'T' + v.slice(11)
}

/** date, time, timestamp, timestamptz → their stored text (timestamptz in UTC). */
function dateTimeScalar(t: ColumnType, wrong: Mismatch): Scalar {
  const { kind } = t
  const name = inputName(t)
  return (v) => {
    if (typeof v !== 'string') throw wrong(v)
    const r = parseDateTime(v)
    if (r === DT.Syntax) throw syntaxError(name, v)
    if (r === DT.Range) throw new ValueError(`date/time field value out of range: "${v}"`)
    if (r !== DT.Ok) {
      if (kind === 'time') throw syntaxError(name, v)
      return r === DT.Infinity ? 'infinity' : '-infinity'
    }
    if (kind === 'time') {
      const total = ((dt.h * 60 + dt.mi) * 60 + dt.s) * 1e6 + dt.us
      if (!dt.hasTime) throw syntaxError(name, v)
      if (total > DAY_US) throw new ValueError(`date/time field value out of range: "${v}"`)
      return formatTime(total)
    }
    if (!dt.hasDate) throw syntaxError(name, v)
    if (kind === 'date')
      return v.length === 10 && v.charCodeAt(4) === 45 && v.charCodeAt(7) === 45 ? v : formatDate()
    if (kind === 'timestamp' && dt.s < 60 && dt.h < 24 && !dt.hasTz) {
      const plain = plainTimestamp(v)
      if (plain !== undefined) return plain
    }
    const text = formatDateTime(kind === 'timestamptz')
    if (text === undefined) throw new ValueError(`timestamp out of range: "${v}"`)
    return kind === 'timestamp' ? text : text + '+00:00'
  }
}

function otherScalar(t: ColumnType, wrong: Mismatch): Scalar {
  const uuid = t.name === 'uuid'
  return (v) => {
    if (typeof v !== 'string') throw wrong(v)
    if (!uuid) return v
    const u = parseUuid(v)
    if (u === undefined) throw syntaxError('uuid', v)
    return u
  }
}

export function makeScalar(t: ColumnType, wrong: Mismatch): Scalar {
  switch (t.kind) {
    case 'int':
      return intScalar(t, wrong)
    case 'float':
      return floatScalar(t, wrong)
    case 'numeric':
      return numericScalar(wrong)
    case 'bool':
      return boolScalar(wrong)
    case 'text':
      return textScalar(wrong)
    case 'json':
      return (v) => v
    case 'other':
      return otherScalar(t, wrong)
    default:
      return dateTimeScalar(t, wrong)
  }
}

// ---------------------------------------------------------------- arrays

const dimsOf = (v: unknown[]) => {
  const dims: number[] = []
  for (let x: unknown = v; Array.isArray(x); x = x[0]) dims.push(x.length)
  return dims
}

/** Maps every element, insisting on a rectangular shape as PostgreSQL's arrays do. */
function mapDims(
  items: unknown[],
  dims: number[],
  depth: number,
  el: Scalar,
  bad: () => ValueError,
): unknown[] {
  if (items.length !== dims[depth]) throw bad()
  const last = depth === dims.length - 1
  const out = new Array<unknown>(items.length)
  for (let i = 0; i < items.length; i++) {
    const x = items[i]
    if (Array.isArray(x) === last) throw bad()
    out[i] = last
      ? x === null || x === undefined
        ? null
        : el(x)
      : mapDims(x as unknown[], dims, depth + 1, el, bad)
  }
  return out
}

const jsonFromText: Scalar = (v) => {
  try {
    return JSON.parse(v as string)
  } catch {
    throw new ValueError('invalid input syntax for type json')
  }
}

const elementType = (t: ColumnType) => typeFromName(t.name.slice(1))

/** An array value (JSON list, or PostgreSQL literal text) → its canonical JSON text. */
export function arrayCoercer(t: ColumnType, column?: string): (v: unknown) => string {
  const e = elementType(t)
  const scalar = makeScalar(e, (v) => mismatch(e, v))
  const el: Scalar =
    e.kind === 'numeric'
      ? (v) => {
          const r = scalar(v)
          return typeof r === 'string' && r !== 'NaN' && r !== 'Infinity' && r !== '-Infinity'
            ? Number(r)
            : r
        }
      : scalar
  const fromText = e.kind === 'json' ? jsonFromText : el
  const dimsError = () =>
    new ValueError('multidimensional arrays must have array expressions with matching dimensions')
  return (v) => {
    if (Array.isArray(v)) return JSON.stringify(mapDims(v, dimsOf(v), 0, el, dimsError))
    if (typeof v !== 'string') throw mismatch(t, v, column)
    const lit = parseArrayLiteral(v)
    if (!lit) throw malformed(v)
    return JSON.stringify(mapDims(lit, dimsOf(lit), 0, fromText, () => malformed(v)))
  }
}
