// The columns of a load: headers checked (seed 001 §8: no duplicate or blank ones), types guessed
// from a sample of rows, and each existing column's info (its type_override) honoured.
import { isValidFieldName, MAX_FIELD_LENGTH } from '../../datastore/ident'
import type { DsColumn } from '../../datastore/registry'
import { LoadError } from './errors'

/** Rows read before the types are chosen: a sample across the file's start, not just row one. */
export const SAMPLE_ROWS = 5000

/** Header cells → column ids, or a LoadError naming every bad one. */
export function checkHeaders(cells: unknown[]): string[] {
  const names = cells.map((c) => (c === null || c === undefined ? '' : String(c).trim()))
  const blank = names.flatMap((n, i) => (n === '' ? [i + 1] : []))
  if (blank.length)
    throw new LoadError(
      `Blank column headers are not supported: column${blank.length > 1 ? 's' : ''} ${blank.join(', ')}`,
    )
  const seen = new Map<string, number>()
  const dupes = new Set<string>()
  for (const n of names) {
    const k = n.toLowerCase() // DataStore column names do not differ by case alone
    seen.set(k, (seen.get(k) ?? 0) + 1)
    if (seen.get(k) === 2) dupes.add(n)
  }
  if (dupes.size)
    throw new LoadError(
      `Duplicate column headers are not supported: ${[...dupes].map((d) => `"${d}"`).join(', ')}`,
    )
  const bad = names.filter((n) => !isValidFieldName(n) || n.length > MAX_FIELD_LENGTH)
  if (bad.length)
    throw new LoadError(
      `Invalid column headers (a header cannot start with "_", contain '"' or control characters, ` +
        `or be longer than ${MAX_FIELD_LENGTH} characters): ${bad.map((b) => `"${b}"`).join(', ')}`,
    )
  return names
}

const INT = /^[+-]?(0|[1-9]\d*)$/
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/
const INT4_MAX = 2147483647n
const INT8_MAX = 9223372036854775807n

type Guess = 'int4' | 'int8' | 'numeric' | 'date' | 'timestamp' | 'text'
const ORDER: Guess[] = ['int4', 'int8', 'numeric', 'date', 'timestamp', 'text']

function fits(v: string, g: Guess): boolean {
  switch (g) {
    case 'int4':
    case 'int8': {
      if (!INT.test(v)) return false // "007" stays text: its zeros are data
      const n = BigInt(v)
      const max = g === 'int4' ? INT4_MAX : INT8_MAX
      return n <= max && n >= -max - 1n
    }
    case 'numeric':
      return NUMBER.test(v) && !/^[+-]?0\d/.test(v)
    case 'date':
      return DATE.test(v) && !Number.isNaN(Date.parse(v))
    case 'timestamp':
      return TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')))
    case 'text':
      return true
  }
}

/**
 * The narrowest type every non-empty sample value of each column fits; a column with no value
 * is text. `forced` (column index → type) wins: type_override, or text after a later failure.
 */
export function guessTypes(ids: string[], sample: (string | null)[][], forced: Map<number, string>) {
  return ids.map((_, i) => {
    const f = forced.get(i)
    if (f) return f
    let at = 0
    let any = false
    for (const row of sample) {
      const v = row[i]
      if (v === null || v === undefined || v === '') continue
      any = true
      while (!fits(v, ORDER[at]!)) at++
      if (ORDER[at] === 'text') break
    }
    return any ? ORDER[at]! : 'text'
  })
}

/** type_override of the table's present columns, by column index of the new header. */
export function overrides(ids: string[], existing: DsColumn[] | undefined): Map<number, string> {
  const out = new Map<number, string>()
  const byId = new Map((existing ?? []).map((c) => [c.id, c]))
  ids.forEach((id, i) => {
    const o = byId.get(id)?.info?.type_override
    if (typeof o === 'string' && o.trim()) out.set(i, o.trim())
  })
  return out
}

/** The new columns: the present columns' data dictionary (info) carries over by id. */
export function columnsOf(ids: string[], types: string[], existing: DsColumn[] | undefined): DsColumn[] {
  const byId = new Map((existing ?? []).map((c) => [c.id, c]))
  return ids.map((id, i) => {
    const info = byId.get(id)?.info
    return info ? { id, type: types[i]!, info } : { id, type: types[i]! }
  })
}
