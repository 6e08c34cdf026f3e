// PostgreSQL's date/time input for DataStore values, reimplemented so SQLite text columns hold
// one canonical ISO form per instant. The fields of the last parse sit in `dt` (no allocation
// per cell on bulk loads).
import { isDigit, isSpace } from './pg-input'

/** Fields of the last parseDateTime; reused to keep bulk loads allocation-free. */
export const dt = {
  y: 0,
  mo: 0,
  d: 0,
  h: 0,
  mi: 0,
  s: 0,
  us: 0,
  tz: 0,
  hasDate: false,
  hasTime: false,
  hasTz: false,
}

/** parseDateTime's verdicts. */
export const DT = { Ok: 0, Syntax: 1, Range: 2, Infinity: 3, NegInfinity: 4 } as const
export type DT = (typeof DT)[keyof typeof DT]

export const daysIn = (y: number, mo: number) =>
  mo === 2
    ? y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
      ? 29
      : 28
    : mo === 4 || mo === 6 || mo === 9 || mo === 11
      ? 30
      : 31

let pos = 0

/** Reads an unsigned run of digits at `pos` (at most `max`); -1 when there is none. */
function num(s: string, max: number): number {
  let v = 0
  const start = pos
  while (pos < s.length && pos - start < max && isDigit(s.charCodeAt(pos)))
    v = v * 10 + s.charCodeAt(pos++) - 48
  return pos === start ? -1 : v
}

function special(word: string): DT {
  if (word === 'infinity' || word === '+infinity') return DT.Infinity
  if (word === '-infinity') return DT.NegInfinity
  if (word === 'epoch') {
    Object.assign(dt, { y: 1970, mo: 1, d: 1, hasDate: true })
    return DT.Ok
  }
  if (word === 'allballs') {
    dt.hasTime = true
    return DT.Ok
  }
  return DT.Syntax
}

/**
 * Parses the date/time forms clients send: `YYYY-MM-DD`, `YYYYMMDD`, `MM/DD/YYYY` (PostgreSQL's
 * default MDY order, also with `-` or `.`), an optional time `HH:MM[:SS[.ffffff]]` after `T` or
 * spaces, optional AM/PM, and a zone `Z`, `UTC`, `GMT` or `±HH[[:]MM]`. Fields land in `dt`.
 */
export function parseDateTime(s: string): DT {
  resetFields()
  if (parseFixed(s)) return checkDate() && checkTime(dt.h, dt.mi, dt.s) ? DT.Ok : DT.Range
  resetFields()
  let n = s.length
  pos = 0
  while (pos < n && isSpace(s.charCodeAt(pos))) pos++
  while (n > pos && isSpace(s.charCodeAt(n - 1))) n--
  if (pos === n) return DT.Syntax
  const c0 = s.charCodeAt(pos) | 32
  if ((c0 >= 97 && c0 <= 122) || ((c0 === 43 || c0 === 45) && (s.charCodeAt(pos + 1) | 32) >= 97))
    return special(s.slice(pos, n).toLowerCase())
  const start = pos
  const a = num(s, 8)
  const aLen = pos - start
  const sep = s.charCodeAt(pos)
  if (sep === 58)
    pos = start // a time alone
  else {
    if (sep === 45 || sep === 47 || sep === 46) {
      pos++
      const b = num(s, 2)
      if (b < 0 || s.charCodeAt(pos) !== sep) return DT.Syntax
      pos++
      const cStart = pos
      const c = num(s, 4)
      const cLen = pos - cStart
      // year first, else PostgreSQL's default DateStyle order: month/day/year
      if (aLen === 4 && cLen > 0 && cLen <= 2) setDate(a, b, c)
      else if (aLen <= 2 && cLen === 4) setDate(c, a, b)
      else return DT.Syntax
    } else if (aLen === 8) setDate(Math.floor(a / 10000), Math.floor(a / 100) % 100, a % 100)
    else return DT.Syntax
    if (!checkDate()) return DT.Range
    if (pos === n) return DT.Ok
    const c = s.charCodeAt(pos)
    if ((c | 32) === 116) pos++
    else if (isSpace(c)) while (isSpace(s.charCodeAt(pos))) pos++
    else return DT.Syntax
  }
  return parseTime(s, n)
}

function resetFields() {
  dt.y = dt.mo = dt.d = dt.h = dt.mi = dt.s = dt.us = dt.tz = 0
  dt.hasDate = dt.hasTime = dt.hasTz = false
}

function setDate(y: number, mo: number, d: number) {
  dt.y = y
  dt.mo = mo
  dt.d = d
  dt.hasDate = true
}

const checkDate = () =>
  dt.y >= 1 && dt.mo >= 1 && dt.mo <= 12 && dt.d >= 1 && dt.d <= daysIn(dt.y, dt.mo)

// 24:00:00 and a leap second are valid input; both roll over
const checkTime = (h: number, mi: number, sec: number) =>
  h <= 24 && mi <= 59 && sec <= 60 && (h < 24 || (mi === 0 && sec === 0 && dt.us === 0))

/** Two digits at i, or -1. */
function digits2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48
  const b = s.charCodeAt(i + 1) - 48
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1
}

/**
 * The shapes bulk loads send, `YYYY-MM-DD[(T| )HH:MM:SS[.ffffff][zone]]`, without the general
 * scan; false sends anything else (or anything odd) to it.
 */
function parseFixed(s: string): boolean {
  const n = s.length
  if ((n !== 10 && n < 19) || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false
  const yh = digits2(s, 0)
  const yl = digits2(s, 2)
  const mo = digits2(s, 5)
  const d = digits2(s, 8)
  if (yh < 0 || yl < 0 || mo < 0 || d < 0) return false
  if (n > 10) {
    const sep = s.charCodeAt(10)
    if ((sep !== 84 && sep !== 32) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58)
      return false
    const h = digits2(s, 11)
    const mi = digits2(s, 14)
    const sec = digits2(s, 17)
    if (h < 0 || mi < 0 || sec < 0) return false
    dt.h = h
    dt.mi = mi
    dt.s = sec
    dt.hasTime = true
    pos = 19
    if (s.charCodeAt(pos) === 46 && (pos++, !readFraction(s, n))) return false
    if (pos < n && parseZone(s, n) !== DT.Ok) return false
  }
  setDate(yh * 100 + yl, mo, d)
  return true
}

/** Fraction digits at `pos` into dt.us, rounded to microseconds as PostgreSQL does. */
function readFraction(s: string, n: number): boolean {
  const start = pos
  let v = 0
  let k = 0
  for (; pos < n; pos++) {
    const d = s.charCodeAt(pos) - 48
    if (d < 0 || d > 9) break
    if (k < 7) {
      v = v * 10 + d
      k++
    }
  }
  if (pos === start) return false
  for (; k < 7; k++) v *= 10
  dt.us = Math.round(v / 10)
  return true
}

function parseTime(s: string, n: number): DT {
  const h = num(s, 2)
  if (h < 0 || s.charCodeAt(pos++) !== 58) return DT.Syntax
  const mi = num(s, 2)
  if (mi < 0) return DT.Syntax
  let sec = 0
  if (s.charCodeAt(pos) === 58) {
    pos++
    sec = num(s, 2)
    if (sec < 0) return DT.Syntax
    if (s.charCodeAt(pos) === 46) {
      pos++
      if (!readFraction(s, n)) return DT.Syntax
    }
  }
  dt.hasTime = true
  while (pos < n && isSpace(s.charCodeAt(pos))) pos++
  let hour = h
  const ap = (s.charCodeAt(pos) | 32) === 97 ? 0 : (s.charCodeAt(pos) | 32) === 112 ? 12 : -1
  if (ap >= 0 && (s.charCodeAt(pos + 1) | 32) === 109) {
    if (h < 1 || h > 12) return DT.Range
    hour = (h % 12) + ap
    pos += 2
    while (pos < n && isSpace(s.charCodeAt(pos))) pos++
  }
  if (pos < n) {
    const zone = parseZone(s, n)
    if (zone !== DT.Ok) return zone
  }
  if (!checkTime(hour, mi, sec)) return DT.Range
  dt.h = hour
  dt.mi = mi
  dt.s = sec
  return DT.Ok
}

function parseZone(s: string, n: number): DT {
  dt.hasTz = true
  if (n - pos === 1 && (s.charCodeAt(pos) | 32) === 122) return DT.Ok // Z
  const word = s.slice(pos, n).toLowerCase()
  if (word === 'utc' || word === 'gmt') return DT.Ok
  const sign = s.charCodeAt(pos)
  if (sign !== 43 && sign !== 45) return DT.Syntax
  pos++
  const start = pos
  const hh = num(s, 4)
  let mm = 0
  let zh = hh
  if (hh < 0) return DT.Syntax
  if (pos - start > 2) {
    if (pos - start !== 4) return DT.Syntax
    zh = Math.floor(hh / 100)
    mm = hh % 100
  } else if (s.charCodeAt(pos) === 58) {
    pos++
    const mStart = pos
    mm = num(s, 2)
    if (pos - mStart !== 2) return DT.Syntax
  }
  if (pos !== n) return DT.Syntax
  if (zh > 15 || mm > 59) return DT.Range
  dt.tz = (sign === 45 ? -1 : 1) * (zh * 60 + mm)
  return DT.Ok
}

const pad2 = (v: number) => (v < 10 ? '0' + v : '' + v)
const pad4 = (v: number) => (v >= 1000 ? '' + v : ('000' + v).slice(-4))

/** `.ffffff` with trailing zeros dropped, or '' for whole seconds (PostgreSQL's output). */
export function fraction(us: number): string {
  if (us === 0) return ''
  let digits = 6
  for (; us % 10 === 0; digits--) us /= 10
  return '.' + String(us).padStart(digits, '0')
}

/** `dt`'s date as `YYYY-MM-DD`. */
export const formatDate = () => pad4(dt.y) + '-' + pad2(dt.mo) + '-' + pad2(dt.d)

export const DAY_US = 86400e6

/**
 * `dt` as `YYYY-MM-DDTHH:MM:SS[.ffffff]`, carrying a rolled-over time of day (and the zone
 * offset when `applyZone`) into the date; undefined when that leaves years 1-9999.
 */
export function formatDateTime(applyZone: boolean): string | undefined {
  let total = ((dt.h * 60 + dt.mi) * 60 + dt.s) * 1e6 + dt.us - (applyZone ? dt.tz * 60e6 : 0)
  if (total >= 0 && total < DAY_US) return formatDate() + 'T' + formatTime(total)
  const days = Math.floor(total / DAY_US)
  total -= days * DAY_US
  const date = new Date(0)
  date.setUTCFullYear(dt.y, dt.mo - 1, dt.d + days)
  const y = date.getUTCFullYear()
  if (y < 1 || y > 9999) return undefined
  const day = `${pad4(y)}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`
  return `${day}T${formatTime(total)}`
}

/** `HH:MM:SS[.ffffff]` of microseconds since midnight (24:00:00 included). */
export function formatTime(total: number): string {
  const us = total % 1e6
  const secs = (total - us) / 1e6
  const h = Math.floor(secs / 3600)
  const m = Math.floor(secs / 60) % 60
  return pad2(h) + ':' + pad2(m) + ':' + pad2(secs % 60) + fraction(us)
}
