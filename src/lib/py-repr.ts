// Python's repr() and str() of JSON values and floats, as CKAN prints them in messages and files.

/** Python's spelling of null and the booleans; undefined for anything else. */
function pyConstant(v: unknown): string | undefined {
  return v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : undefined
}

/**
 * Python's repr() of a str: in single quotes unless the text holds `'` and no `"`, with `\`, LF,
 * CR and TAB escaped (other control characters stay as they are, unlike Python).
 */
function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote
}

/**
 * Python's str() of a decoded JSON value: a string as it is, None/True/False, a number as JS
 * prints it, lists and dicts as compact JSON (not Python's spelling).
 */
export function pyStr(v: unknown): string {
  const constant = pyConstant(v)
  if (constant !== undefined) return constant
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

/**
 * Python's repr() of a decoded JSON value, as CKAN puts exception arguments into messages: a
 * string quoted (see strRepr), undefined as None, anything else as pyStr() prints it.
 */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return strRepr(v)
  return v === undefined ? 'None' : pyStr(v)
}

/**
 * The short repr of the request parser's "JSON decoded to …" message: a string always in single
 * quotes with only `\` and `'` escaped, a list item by item, any dict as `{...}`.
 */
export function pyReprBrief(v: unknown): string {
  if (typeof v === 'string') return `'${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  if (Array.isArray(v)) return `[${v.map(pyReprBrief).join(', ')}]`
  if (v !== null && typeof v === 'object') return '{...}'
  return pyConstant(v) ?? String(v)
}

/** printf-style exponent form from JS's shortest digits: 1e-7 → 1e-07, 1.5e300 → 1.5e+300. */
export function expForm(n: number): string {
  const s = n.toExponential()
  const e = s.indexOf('e')
  const digits = s.slice(e + 2)
  return s.slice(0, e + 2) + (digits.length < 2 ? '0' + digits : digits)
}

/**
 * Python's repr() of a float: shortest round-trip digits, fixed for 1e-4 <= |n| < 1e16 with `.0`
 * added to whole numbers, else exponent form (1e-05, 1e+16); inf and nan as JS spells them.
 */
export function pyFloatRepr(n: number): string {
  const a = Math.abs(n)
  if (a === 0) return Object.is(n, -0) ? '-0.0' : '0.0'
  if (!Number.isFinite(n)) return String(n)
  if (a < 1e-4 || a >= 1e16) return expForm(n)
  const s = String(n)
  return s.includes('.') ? s : s + '.0'
}

/** A number as Python printed it after a JSON round trip: integers as ints, others as floats. */
export const pyNumber = (n: number): string => (Number.isInteger(n) ? String(n) : pyFloatRepr(n))
