// Solr date values for search queries: instants, NOW and date math (`NOW-1YEAR/DAY`), all in UTC.

/** A date string or date-math expression that Solr would reject. */
export class DateMathError extends Error {}

/**
 * Fields indexed as dates: `metadata_created`, `metadata_modified`, `indexed_ts` and any
 * `<name>_date`, except names that a longer schema pattern claims first (`extras_*`,
 * `res_extras_*`, `vocab_*` are text/string fields even when they end in `_date`).
 */
export function isDateField(field: string): boolean {
  if (field === 'metadata_created' || field === 'metadata_modified' || field === 'indexed_ts') {
    return true
  }
  return field.endsWith('_date') && !/^(extras_|res_extras_|vocab_)/.test(field)
}

// Solr's form is `YYYY-MM-DDThh:mm:ss[.fff]Z`; we also accept the date alone, a missing `Z`
// and missing seconds, all read as UTC (Solr would refuse those; accepting them is harmless).
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z?)/
const MATH_OP = /^([+\-/])(\d*)([A-Za-z]+)/

type Unit = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'milli'
const UNITS: Record<string, Unit> = {
  YEAR: 'year',
  YEARS: 'year',
  MONTH: 'month',
  MONTHS: 'month',
  DAY: 'day',
  DAYS: 'day',
  DATE: 'day',
  HOUR: 'hour',
  HOURS: 'hour',
  MINUTE: 'minute',
  MINUTES: 'minute',
  SECOND: 'second',
  SECONDS: 'second',
  MILLI: 'milli',
  MILLIS: 'milli',
  MILLISECOND: 'milli',
  MILLISECONDS: 'milli',
}
const MS: Partial<Record<Unit, number>> = {
  day: 86_400_000,
  hour: 3_600_000,
  minute: 60_000,
  second: 1000,
  milli: 1,
}

/**
 * Resolves an instant or date-math expression (`NOW`, `NOW-7DAYS`, `NOW/DAY+1DAY`,
 * `2020-01-01T00:00:00Z-1MONTH`) against `now`. Throws DateMathError with Solr's wording.
 */
export function parseDateMath(expr: string, now: Date): Date {
  const text = expr.trim()
  let base: number
  let rest: string
  if (text.toUpperCase().startsWith('NOW')) {
    base = now.getTime()
    rest = text.slice(3)
  } else {
    const m = INSTANT.exec(text)
    const parsed = m ? instantFromMatch(m) : null
    if (parsed === null || !/^([+\-/]|$)/.test(text.slice(m![0].length))) {
      throw new DateMathError(`Invalid Date String:'${expr}'`)
    }
    base = parsed
    rest = text.slice(m![0].length)
  }
  let t = base
  while (rest !== '') {
    const op = MATH_OP.exec(rest)
    const unit = op ? UNITS[op[3]!.toUpperCase()] : undefined
    if (!op || !unit || (op[1] === '/') !== (op[2] === '')) {
      throw new DateMathError(`Invalid Date Math String:'${expr}'`)
    }
    t = op[1] === '/' ? roundDown(t, unit) : add(t, unit, Number(op[2]) * (op[1] === '-' ? -1 : 1))
    rest = rest.slice(op[0].length)
  }
  if (!Number.isFinite(t)) throw new DateMathError(`Invalid Date Math String:'${expr}'`)
  return new Date(t)
}

/** Solr's representation of an instant: ISO 8601 in UTC with milliseconds and `Z`. */
export const solrDate = (d: Date) => d.toISOString()

/**
 * Epoch milliseconds of a stored timestamp (CKAN's `2020-01-02T03:04:05.123456`, with or without
 * `Z`); null when it is not a date. Use it for index values; queries go through parseDateMath.
 */
export function storedDateMillis(value: string): number | null {
  const m = INSTANT.exec(value.trim())
  return m && m[0].length === value.trim().length ? instantFromMatch(m) : null
}

function instantFromMatch(m: RegExpExecArray): number | null {
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((v) => Number(v ?? 0))
  const millis = Number(((m[7] ?? '') + '000').slice(0, 3))
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month! - 1)) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  return utc(year!, month! - 1, day!, hour, minute, second, millis)
}

/** Date.UTC without its two-digit-year quirk. */
function utc(year: number, month0: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month0, day)
  d.setUTCHours(h, m, s, ms)
  return d.getTime()
}

const daysIn = (year: number, month0: number) => new Date(utc(year, month0 + 1, 0)).getUTCDate()

function add(t: number, unit: Unit, n: number): number {
  const step = MS[unit]
  if (step !== undefined) return t + n * step
  // calendar arithmetic: Jan 31 + 1 MONTH = Feb 28/29, as java.time does
  const d = new Date(t)
  const months = d.getUTCFullYear() * 12 + d.getUTCMonth() + (unit === 'year' ? n * 12 : n)
  const year = Math.floor(months / 12)
  const month0 = months - year * 12
  const day = Math.min(d.getUTCDate(), daysIn(year, month0))
  const out = new Date(t)
  out.setUTCFullYear(year, month0, day)
  return out.getTime()
}

function roundDown(t: number, unit: Unit): number {
  const d = new Date(t)
  switch (unit) {
    case 'year':
      return utc(d.getUTCFullYear(), 0, 1)
    case 'month':
      return utc(d.getUTCFullYear(), d.getUTCMonth(), 1)
    case 'milli':
      return t
    default:
      return t - (((t % MS[unit]!) + MS[unit]!) % MS[unit]!)
  }
}
