// Operators of trigger-function expressions on non-NULL values: arithmetic, dates, logic helpers.
import { PlpgsqlSyntaxError } from './plpgsql-lex'
import {
  addDays,
  castTo,
  compare,
  daysBetween,
  KIND_NAMES,
  parseNumber,
  TriggerRaise,
  valueTypeName,
  type Kind,
  type SqlType,
} from './plpgsql-values'

/** A binary operator specialised for its operand types; NULL handling is the caller's. */
export interface BinaryOp {
  apply: (a: unknown, b: unknown) => unknown
  kind: Kind
}

const INT: SqlType = { kind: 'int', name: 'integer' }

export const COMPARE_TESTS: Record<string, (c: number) => boolean> = {
  '=': (c) => c === 0,
  '<>': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
}

export const not3 = (b: boolean | null) => (b === null ? null : !b)

/** Three-valued AND of two already evaluated operands. */
export const and3 = (a: boolean | null, b: boolean | null) =>
  a === false || b === false ? false : a === null || b === null ? null : true

/** Three-valued OR of two already evaluated operands. */
export const or3 = (a: boolean | null, b: boolean | null) =>
  a === true || b === true ? true : a === null || b === null ? null : false

export function isDistinct(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a !== b
  return compare(a, b) !== 0
}

/** A number operand: numbers, or strings that hold one (values not yet cast to a column type). */
function operand(v: unknown, describe: () => string): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string') {
    const n = parseNumber(v)
    if (n === undefined) throw new TriggerRaise(`invalid input syntax for type numeric: "${v}"`)
    return n
  }
  throw new TriggerRaise(`operator does not exist: ${describe()}`)
}

export function negate(v: unknown): number {
  return -operand(v, () => `- ${valueTypeName(v)}`)
}

const ARITHMETIC: Record<string, (x: number, y: number, intDivision: boolean) => number> = {
  '+': (x, y) => x + y,
  '-': (x, y) => x - y,
  '*': (x, y) => x * y,
  '/': (x, y, intDivision) => {
    if (y === 0) throw new TriggerRaise('division by zero')
    return intDivision ? Math.trunc(x / y) : x / y
  },
  '%': (x, y) => {
    if (y === 0) throw new TriggerRaise('division by zero')
    return x % y
  },
}

/**
 * Drops binary floating-point noise so decimal results look like numeric ones (0.1 + 0.2 is 0.3):
 * 15 significant digits is what a double always holds exactly.
 */
const tidy = (r: number) =>
  Number.isInteger(r) || !Number.isFinite(r) ? r : Number(r.toPrecision(15))

/** + - * / % on numbers. */
export function arithmetic(op: string, lk: Kind, rk: Kind): BinaryOp {
  if (lk === 'date' || rk === 'date') return dateArithmetic(op, lk, rk)
  const kind: Kind =
    lk === 'int' && rk === 'int' ? 'int' : lk === 'num' || rk === 'num' ? 'num' : 'any'
  // PostgreSQL divides integers as integers; values of unknown type count as integers when whole.
  const intDivision =
    kind === 'int'
      ? () => true
      : kind === 'num'
        ? () => false
        : (x: number, y: number) => Number.isInteger(x) && Number.isInteger(y)
  const f = ARITHMETIC[op]!
  const describe = (a: unknown, b: unknown) => () => `${valueTypeName(a)} ${op} ${valueTypeName(b)}`
  return {
    apply: (a, b) => {
      const x = operand(a, describe(a, b))
      const y = operand(b, describe(a, b))
      return tidy(f(x, y, intDivision(x, y)))
    },
    kind,
  }
}

/** date + integer, integer + date, date - integer, date - date (days). */
function dateArithmetic(op: string, lk: Kind, rk: Kind): BinaryOp {
  const both = lk === 'date' && rk === 'date'
  const dateFirst = lk === 'date'
  const other = dateFirst ? rk : lk
  const numberSide = other === 'int' || other === 'any'
  const supported = both ? op === '-' : numberSide && (op === '+' || (op === '-' && dateFirst))
  if (!supported)
    throw new PlpgsqlSyntaxError(
      `operator does not exist: ${KIND_NAMES[lk]} ${op} ${KIND_NAMES[rk]}`,
    )
  if (both) return { apply: (a, b) => daysBetween(String(a), String(b)), kind: 'int' }
  return {
    apply: (a, b) => {
      const [date, days] = dateFirst ? [a, b] : [b, a]
      const n = castTo(INT, days) as number
      return addDays(String(date), op === '-' ? -n : n)
    },
    kind: 'date',
  }
}
