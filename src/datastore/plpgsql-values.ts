// SQL values in trigger functions: types, casts, text forms and comparison, as PostgreSQL does them.
import { PlpgsqlSyntaxError } from './plpgsql-lex'

/** A trigger function stopped the write: RAISE EXCEPTION, or a runtime error such as a bad cast. */
export class TriggerRaise extends Error {
  override name = 'TriggerRaise'
}

/** What the evaluator needs to know about a type: int/num pick integer or exact division. */
export type Kind = 'int' | 'num' | 'text' | 'bool' | 'date' | 'ts' | 'json' | 'any'

export interface SqlType {
  kind: Kind
  /** PostgreSQL's name, for error messages */
  name: string
}

const TYPES: Record<string, SqlType> = {}
const define = (kind: Kind, name: string, aliases: string) => {
  for (const alias of [name, ...aliases.split(' ').filter(Boolean)]) TYPES[alias] = { kind, name }
}
define('int', 'integer', 'int int4')
define('int', 'smallint', 'int2')
define('int', 'bigint', 'int8')
define('num', 'numeric', 'decimal')
define('num', 'double precision', 'float float8')
define('num', 'real', 'float4')
define('text', 'text', 'varchar bpchar char character name string')
TYPES['character varying'] = TYPES.varchar!
define('bool', 'boolean', 'bool')
define('date', 'date', '')
define('ts', 'timestamp without time zone', 'timestamp timestamptz')
TYPES['timestamp with time zone'] = TYPES.timestamp!
define('text', 'time without time zone', 'time')
define('json', 'json', 'jsonb')

const ANY: SqlType = { kind: 'any', name: 'unknown' }

/** A type name as written in DECLARE or a cast; throws for types outside the dialect. */
export function parseTypeName(words: string, array: boolean): SqlType {
  const type = TYPES[words]
  if (!type) throw new PlpgsqlSyntaxError(`type "${words}" does not exist`)
  return array ? { kind: 'any', name: `${type.name}[]` } : type
}

export const isTypeName = (word: string) => Object.hasOwn(TYPES, word)

/** The type of a DataStore column from its CKAN type name (int4, _text, float8...). */
export function columnType(ckanType: string | undefined): SqlType {
  if (!ckanType) return ANY
  const t = ckanType.toLowerCase()
  if (t.startsWith('_') || t.endsWith('[]')) return ANY
  return TYPES[t] ?? ANY
}

export const KIND_NAMES: Record<Kind, string> = {
  int: 'integer',
  num: 'numeric',
  text: 'text',
  bool: 'boolean',
  date: 'date',
  ts: 'timestamp without time zone',
  json: 'json',
  any: 'unknown',
}

/** The PostgreSQL type a runtime value would have, for "operator does not exist" messages. */
export function valueTypeName(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'numeric'
  if (typeof v === 'string') return 'text'
  if (typeof v === 'boolean') return 'boolean'
  return 'json'
}

export const MAX_TEXT = 10_000_000

/** Guards against functions that grow strings without bound (lpad, repeated ||). */
export function checkLength(s: string): string {
  if (s.length > MAX_TEXT) throw new TriggerRaise('requested length too large')
  return s
}

export function numText(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity'
  return String(n)
}

/** value::text (booleans print as true/false). */
export function castText(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return numText(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  return JSON.stringify(v)
}

/** The output form used by ||, concat() and RAISE (booleans print as t/f, as in PostgreSQL). */
export function textOut(v: unknown): string {
  return typeof v === 'boolean' ? (v ? 't' : 'f') : castText(v)
}

const badInput = (type: string, v: unknown) =>
  new TriggerRaise(`invalid input syntax for type ${type}: "${castText(v)}"`)

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i
const SPECIAL_NUMBERS: Record<string, number> = {
  nan: NaN,
  infinity: Infinity,
  '+infinity': Infinity,
  '-infinity': -Infinity,
}

/** A string's numeric value, or undefined when it is not a number. */
export function parseNumber(s: string): number | undefined {
  const t = s.trim()
  if (NUMERIC.test(t)) return Number(t)
  return SPECIAL_NUMBERS[t.toLowerCase()]
}

const INT_RANGE: Record<string, number> = { smallint: 2 ** 15, integer: 2 ** 31, bigint: 2 ** 63 }

/** Rounds half away from zero, like PostgreSQL's numeric → integer. */
export const roundHalfAway = (n: number) => Math.sign(n) * Math.round(Math.abs(n))

function toInt(v: unknown, type: SqlType): number {
  let n: number
  if (typeof v === 'number') n = roundHalfAway(v)
  else if (typeof v === 'boolean') n = v ? 1 : 0
  else if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) n = Number(v)
  else if (typeof v === 'string') throw badInput(type.name, v)
  else throw new TriggerRaise(`cannot cast type json to ${type.name}`)
  const max = INT_RANGE[type.name] ?? INT_RANGE.bigint!
  if (!(n >= -max && n < max)) throw new TriggerRaise(`${type.name} out of range`)
  return n
}

function toNum(v: unknown, type: SqlType): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string') {
    const n = parseNumber(v)
    if (n === undefined) throw badInput(type.name, v)
    return n
  }
  throw new TriggerRaise(`cannot cast type ${valueTypeName(v)} to ${type.name}`)
}

const TRUE_WORDS = new Set(['t', 'tr', 'tru', 'true', 'y', 'ye', 'yes', 'on', '1'])
const FALSE_WORDS = new Set(['f', 'fa', 'fal', 'fals', 'false', 'n', 'no', 'of', 'off', '0'])

/** PostgreSQL's boolean input: true/false/yes/no/on/off/1/0 and unique prefixes. */
export function parseBool(s: string): boolean | undefined {
  const t = s.trim().toLowerCase()
  if (TRUE_WORDS.has(t)) return true
  if (FALSE_WORDS.has(t)) return false
  return undefined
}

function toBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (typeof v === 'string') {
    const b = parseBool(v)
    if (b === undefined) throw badInput('boolean', v)
    return b
  }
  throw new TriggerRaise('cannot cast type json to boolean')
}

const DATE_TIME =
  /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(?:\s*(?:Z|[+-]\d{2}(?::?\d{2})?))?\s*$/i
const pad = (n: number | string, w = 2) => String(n).padStart(w, '0')

/** [date, time] in ISO form, or undefined. Time zones are dropped, as timestamp input does. */
function parseDateTime(s: string): [string, string] | undefined {
  const m = DATE_TIME.exec(s)
  if (!m) return undefined
  const [, y = '', mo = '', d = '', h = '0', mi = '0', sec = '0', frac = ''] = m
  const t = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
  const validDate = t.getUTCDate() === Number(d) && t.getUTCMonth() === Number(mo) - 1
  if (!validDate || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return undefined
  return [`${y}-${pad(mo)}-${pad(d)}`, `${pad(h)}:${pad(mi)}:${pad(sec)}${frac}`]
}

function toDate(v: unknown): string {
  const parts = typeof v === 'string' ? parseDateTime(v) : undefined
  if (!parts) throw badInput('date', v)
  return parts[0]
}

function toTimestamp(v: unknown): string {
  const parts = typeof v === 'string' ? parseDateTime(v) : undefined
  if (!parts) throw badInput('timestamp', v)
  return `${parts[0]}T${parts[1]}`
}

/** A date moved by a number of days (date + integer). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number)
  const t = new Date(Date.UTC(y!, m! - 1, d! + days))
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`
}

/** Whole days from b to a (date - date). */
export const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(a.slice(0, 10)) - Date.parse(b.slice(0, 10))) / 86_400_000)

function toJson(v: unknown): unknown {
  if (typeof v !== 'string') return v
  try {
    return JSON.parse(v)
  } catch {
    throw badInput('json', v)
  }
}

/** value::type, with PostgreSQL's errors for input it would refuse. NULL stays NULL. */
export function castTo(type: SqlType, v: unknown): unknown {
  if (v === null || v === undefined) return null
  switch (type.kind) {
    case 'text':
      return castText(v)
    case 'int':
      return toInt(v, type)
    case 'num':
      return toNum(v, type)
    case 'bool':
      return toBool(v)
    case 'date':
      return toDate(v)
    case 'ts':
      return toTimestamp(v)
    case 'json':
      return toJson(v)
    case 'any':
      return v
  }
}

/** Like castTo, but keeps a value it cannot convert (the writer reports it with the row). */
export function castLenient(type: SqlType, v: unknown): unknown {
  try {
    return castTo(type, v)
  } catch {
    return v
  }
}

const sign = (d: number) => (d < 0 ? -1 : d > 0 ? 1 : 0)
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * -1/0/1, or null when either side is NULL. A number meets a numeric string as a number, a
 * boolean meets 'true'/'f'... as a boolean; other mixes compare their text forms.
 */
export function compare(a: unknown, b: unknown): number | null {
  if (a === null || b === null || a === undefined || b === undefined) return null
  const ta = typeof a
  if (ta === typeof b && ta !== 'object') {
    if (ta === 'string') return compareText(a as string, b as string)
    return sign(Number(a) - Number(b))
  }
  if (ta === 'number' && typeof b === 'string') {
    const n = parseNumber(b)
    if (n !== undefined) return sign((a as number) - n)
  } else if (ta === 'string' && typeof b === 'number') {
    const n = parseNumber(a as string)
    if (n !== undefined) return sign(n - b)
  } else if (ta === 'boolean' && typeof b === 'string') {
    const v = parseBool(b)
    if (v !== undefined) return sign(Number(a) - Number(v))
  } else if (ta === 'string' && typeof b === 'boolean') {
    const v = parseBool(a as string)
    if (v !== undefined) return sign(Number(v) - Number(b))
  }
  return compareText(castText(a), castText(b))
}

// A pattern element: a code point to match, or ANY_ONE (_) / ANY_RUN (%).
const ANY_ONE = 1
const ANY_RUN = 2
type LikeToken = string | typeof ANY_ONE | typeof ANY_RUN

/**
 * A LIKE/ILIKE test (%, _, backslash escape). It matches without regular expressions: a
 * backtracking regex turns '%a%a%a%b' on a long value into minutes of CPU, this loop stays
 * O(value × pattern).
 */
export function likeMatcher(pattern: string, ci: boolean): (value: string) => boolean {
  const fold = (s: string) => [...(ci ? s.toLowerCase() : s)]
  const tokens: LikeToken[] = []
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === '\\') {
      const next = chars[++i]
      if (next === undefined)
        throw new TriggerRaise('LIKE pattern must not end with escape character')
      tokens.push(...fold(next))
    } else if (c === '%') tokens.push(ANY_RUN)
    else if (c === '_') tokens.push(ANY_ONE)
    else tokens.push(...fold(c))
  }
  return (value) => matchTokens(fold(value), tokens)
}

function matchTokens(s: string[], p: LikeToken[]): boolean {
  let si = 0
  let pi = 0
  let run = -1 // index of the last % seen
  let resume = 0 // where in s that % currently stops swallowing
  while (si < s.length) {
    const t = p[pi]
    if (t === ANY_RUN) {
      run = pi++
      resume = si
    } else if (t !== undefined && (t === ANY_ONE || t === s[si])) {
      si++
      pi++
    } else if (run >= 0) {
      pi = run + 1
      si = ++resume
    } else return false
  }
  while (p[pi] === ANY_RUN) pi++
  return pi === p.length
}
