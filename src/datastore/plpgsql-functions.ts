// The built-in SQL functions trigger functions may call, with PostgreSQL's results and errors.
import {
  castTo,
  checkLength,
  compare,
  textOut,
  TriggerRaise,
  type Kind,
  type SqlType,
} from './plpgsql-values'

export interface Builtin {
  min: number
  max: number
  /** result type from the argument types */
  kind: (args: Kind[]) => Kind
  /** false: also called when an argument is NULL (strict functions return NULL instead) */
  strict: boolean
  fn: (args: unknown[], now: () => string) => unknown
}

const INT: SqlType = { kind: 'int', name: 'integer' }
const NUM: SqlType = { kind: 'num', name: 'numeric' }
const int = (v: unknown) => castTo(INT, v) as number
const num = (v: unknown) => castTo(NUM, v) as number
const chars = (v: unknown) => [...textOut(v)]
const textOrEmpty = (v: unknown) => (v === null ? '' : textOut(v))
const places = (n: unknown) => (n === undefined ? 0 : int(n))

const fixed = (kind: Kind) => (): Kind => kind
const sameAsFirst = (args: Kind[]): Kind => args[0] ?? 'any'
const common = (args: Kind[]): Kind => (args.every((k) => k === args[0]) ? args[0]! : 'any')

/** Moves the decimal point without the binary rounding errors of x * 10 ** n. */
const shift = (x: number, places: number) => {
  const [mantissa, exp = '0'] = String(x).split('e')
  return Number(`${mantissa}e${Number(exp) + places}`)
}
const roundTo = (x: number, places: number, f: (n: number) => number) =>
  Number.isFinite(x) ? Math.sign(x) * shift(f(shift(Math.abs(x), places)), -places) : x

function trimSet(s: unknown, set: unknown, left: boolean, right: boolean): string {
  const cs = chars(s)
  const strip = new Set(set === undefined ? ' ' : chars(set))
  let a = 0
  let b = cs.length
  while (left && a < b && strip.has(cs[a]!)) a++
  while (right && b > a && strip.has(cs[b - 1]!)) b--
  return cs.slice(a, b).join('')
}

/** substr(s, start[, count]) with 1-based positions that may start before the string. */
function substr(s: unknown, start: number, count?: number): string {
  if (count !== undefined && count < 0)
    throw new TriggerRaise('negative substring length not allowed')
  const cs = chars(s)
  const from = Math.max(start, 1)
  const to = count === undefined ? cs.length + 1 : start + count
  return to <= from ? '' : cs.slice(from - 1, to - 1).join('')
}

function pad(args: unknown[], left: boolean): string {
  const cs = chars(args[0])
  const len = int(args[1])
  const fill = args.length > 2 ? chars(args[2]) : [' ']
  if (len > 10_000_000) throw new TriggerRaise('requested length too large')
  if (len <= 0) return ''
  if (cs.length >= len || !fill.length) return cs.slice(0, len).join('')
  const padding = Array.from({ length: len - cs.length }, (_, i) => fill[i % fill.length]).join('')
  return left ? padding + cs.join('') : cs.join('') + padding
}

function splitPart(s: unknown, delim: unknown, n: number): string {
  if (n === 0) throw new TriggerRaise('field position must not be zero')
  const text = textOut(s)
  const d = textOut(delim)
  const parts = d === '' ? [text] : text.split(d)
  return parts[n > 0 ? n - 1 : parts.length + n] ?? ''
}

function strpos(haystack: unknown, needle: unknown): number {
  const h = textOut(haystack)
  const at = h.indexOf(textOut(needle))
  return at < 0 ? 0 : [...h.slice(0, at)].length + 1
}

function mod(a: unknown, b: unknown): number {
  const divisor = num(b)
  if (divisor === 0) throw new TriggerRaise('division by zero')
  return num(a) % divisor
}

function extreme(args: unknown[], want: number): unknown {
  let best: unknown = null
  for (const v of args) if (v !== null && (best === null || compare(v, best)! * want > 0)) best = v
  return best
}

const f = (
  min: number,
  max: number,
  kind: Builtin['kind'],
  fn: Builtin['fn'],
  strict = true,
): Builtin => ({ min, max, kind, fn, strict })
const text = fixed('text')
const ONE_OR_TWO_TEXT = (fn: (a: unknown[]) => string) => f(1, 2, text, fn)

export const BUILTINS: Record<string, Builtin> = {
  upper: f(1, 1, text, ([s]) => textOut(s).toUpperCase()),
  lower: f(1, 1, text, ([s]) => textOut(s).toLowerCase()),
  btrim: ONE_OR_TWO_TEXT(([s, set]) => trimSet(s, set, true, true)),
  ltrim: ONE_OR_TWO_TEXT(([s, set]) => trimSet(s, set, true, false)),
  rtrim: ONE_OR_TWO_TEXT(([s, set]) => trimSet(s, set, false, true)),
  length: f(1, 1, fixed('int'), ([s]) => chars(s).length),
  substr: f(2, 3, text, ([s, a, n]) => substr(s, int(a), n === undefined ? n : int(n))),
  replace: f(3, 3, text, ([s, from, to]) =>
    textOut(from) === ''
      ? textOut(s)
      : checkLength(textOut(s).split(textOut(from)).join(textOut(to))),
  ),
  concat: f(1, Infinity, text, (args) => checkLength(args.map(textOrEmpty).join('')), false),
  greatest: f(1, Infinity, common, (args) => extreme(args, 1), false),
  least: f(1, Infinity, common, (args) => extreme(args, -1), false),
  nullif: f(2, 2, sameAsFirst, ([a, b]) => (a === null || compare(a, b) !== 0 ? a : null), false),
  abs: f(1, 1, sameAsFirst, ([x]) => Math.abs(num(x))),
  round: f(1, 2, fixed('num'), ([x, n]) => roundTo(num(x), places(n), Math.round)),
  trunc: f(1, 2, fixed('num'), ([x, n]) => roundTo(num(x), places(n), Math.floor)),
  ceil: f(1, 1, fixed('num'), ([x]) => Math.ceil(num(x))),
  floor: f(1, 1, fixed('num'), ([x]) => Math.floor(num(x))),
  mod: f(
    2,
    2,
    (k) => (k[0] === 'int' && k[1] === 'int' ? 'int' : 'num'),
    ([a, b]) => mod(a, b),
  ),
  now: f(0, 0, fixed('ts'), (_, now) => now()),
  current_date: f(0, 0, fixed('date'), (_, now) => now().slice(0, 10)),
  strpos: f(2, 2, fixed('int'), ([s, sub]) => strpos(s, sub)),
  left: f(2, 2, text, ([s, n]) => {
    const cs = chars(s)
    const k = int(n)
    return cs.slice(0, k < 0 ? Math.max(cs.length + k, 0) : k).join('')
  }),
  right: f(2, 2, text, ([s, n]) => {
    const cs = chars(s)
    const k = int(n)
    return cs.slice(k < 0 ? Math.min(-k, cs.length) : Math.max(cs.length - k, 0)).join('')
  }),
  lpad: f(2, 3, text, (args) => pad(args, true)),
  rpad: f(2, 3, text, (args) => pad(args, false)),
  split_part: f(3, 3, text, ([s, d, n]) => splitPart(s, d, int(n))),
}
BUILTINS.trim = BUILTINS.btrim!
BUILTINS.char_length = BUILTINS.length!
BUILTINS.character_length = BUILTINS.length!
BUILTINS.substring = BUILTINS.substr!
BUILTINS.ceiling = BUILTINS.ceil!
BUILTINS.current_timestamp = BUILTINS.now!
BUILTINS.localtimestamp = BUILTINS.now!
