// PostgreSQL's input syntax for DataStore values (numbers, booleans, uuids, array literals),
// reimplemented so SQLite columns accept and reject what PostgreSQL would. Hot paths scan char
// codes instead of using regexes: they run once per cell of bulk loads. Dates: pg-datetime.ts.

/** A value PostgreSQL would refuse; the message is PostgreSQL's text. */
export class ValueError extends Error {
  override name = 'ValueError'
}

export const syntaxError = (type: string, input: string) =>
  new ValueError(`invalid input syntax for type ${type}: "${input}"`)

export const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13)
export const isDigit = (c: number) => c >= 48 && c <= 57

/** An integer in PostgreSQL's int input syntax (spaces, sign, digits); NaN when malformed. */
export function parseIntText(s: string): number {
  let i = 0
  let n = s.length
  while (i < n && isSpace(s.charCodeAt(i))) i++
  while (n > i && isSpace(s.charCodeAt(n - 1))) n--
  const sign = s.charCodeAt(i)
  if (sign === 43 || sign === 45) i++
  if (i >= n) return NaN
  let v = 0
  for (; i < n; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return NaN
    v = v * 10 + d
  }
  return sign === 45 ? 0 - v : v
}

/** scanNumber's verdicts. */
export const Num = { Invalid: 0, Decimal: 1, NaN: 2, Infinity: 3, NegInfinity: 4 } as const
export type Num = (typeof Num)[keyof typeof Num]

/** Set by scanNumber for a Decimal: its significant digits (0 for a zero). */
export let scannedDigits = 0

/** Classifies a float/numeric input (spaces, sign, digits, point, exponent, NaN, Infinity). */
export function scanNumber(s: string): Num {
  let i = 0
  let n = s.length
  while (i < n && isSpace(s.charCodeAt(i))) i++
  while (n > i && isSpace(s.charCodeAt(n - 1))) n--
  const sign = s.charCodeAt(i)
  if (sign === 43 || sign === 45) i++
  if (i < n && !isDigit(s.charCodeAt(i)) && s.charCodeAt(i) !== 46) {
    const word = s.slice(i, n).toLowerCase()
    if (word === 'nan') return Num.NaN
    if (word === 'inf' || word === 'infinity') return sign === 45 ? Num.NegInfinity : Num.Infinity
    return Num.Invalid
  }
  let digits = 0
  let first = -1
  let last = -1
  let point = false
  for (; i < n; i++) {
    const c = s.charCodeAt(i)
    if (isDigit(c)) {
      if (c !== 48) {
        if (first < 0) first = digits
        last = digits
      }
      digits++
    } else if (c === 46 && !point) point = true
    else break
  }
  if (digits === 0) return Num.Invalid
  if (i < n) {
    const e = s.charCodeAt(i)
    if (e !== 101 && e !== 69) return Num.Invalid
    i++
    const es = s.charCodeAt(i)
    if (es === 43 || es === 45) i++
    if (i >= n) return Num.Invalid
    for (; i < n; i++) if (!isDigit(s.charCodeAt(i))) return Num.Invalid
  }
  scannedDigits = first < 0 ? 0 : last - first + 1
  return Num.Decimal
}

/** The plain decimal text of a valid Decimal input, keeping its scale as numeric does. */
export function canonicalDecimal(s: string): string {
  const t = s.trim()
  const neg = t[0] === '-'
  const body = t[0] === '-' || t[0] === '+' ? t.slice(1) : t
  const e = body.search(/[eE]/)
  const mantissa = e < 0 ? body : body.slice(0, e)
  const exp = e < 0 ? 0 : Number(body.slice(e + 1))
  const dot = mantissa.indexOf('.')
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot)
  const fracPart = dot < 0 ? '' : mantissa.slice(dot + 1)
  const digits = intPart + fracPart
  const pointAt = intPart.length + exp
  let out: string
  if (pointAt <= 0) out = '0.' + '0'.repeat(-pointAt) + digits
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length)
  else out = digits.slice(0, pointAt) + '.' + digits.slice(pointAt)
  out = out.replace(/^0+(?=\d)/, '')
  return neg && /[1-9]/.test(out) ? '-' + out : out
}

/** PostgreSQL's boolean input: unique prefixes of true/false/yes/no, on/off, 1/0. */
export function parseBoolText(s: string): boolean | undefined {
  const t = s.trim().toLowerCase()
  if (t.length === 0) return undefined
  if ('true'.startsWith(t) || 'yes'.startsWith(t) || t === 'on' || t === '1') return true
  if ('false'.startsWith(t) || 'no'.startsWith(t) || t === 'of' || t === 'off' || t === '0')
    return false
  return undefined
}

/** A uuid in any form PostgreSQL accepts → its canonical lower-case text, or undefined. */
export function parseUuid(s: string): string | undefined {
  const braced = s.startsWith('{')
  if (braced !== s.endsWith('}')) return undefined
  const body = braced ? s.slice(1, -1) : s
  let hex = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (/[0-9a-f]/i.test(c)) hex += c.toLowerCase()
    else if (
      c !== '-' ||
      hex.length % 4 !== 0 ||
      hex.length === 0 ||
      body[i + 1] === '-' ||
      i === body.length - 1
    )
      return undefined
  }
  if (hex.length !== 32) return undefined
  const group = (from: number, to?: number) => hex.slice(from, to)
  return `${group(0, 8)}-${group(8, 12)}-${group(12, 16)}-${group(16, 20)}-${group(20)}`
}

export type Literal = (string | null | Literal)[]

/** A PostgreSQL array literal (`{a,"b c",NULL,{1,2}}`) → nested lists of element texts. */
export function parseArrayLiteral(s: string): Literal | undefined {
  let pos = 0
  const skip = () => {
    while (pos < s.length && isSpace(s.charCodeAt(pos))) pos++
  }
  const level = (): Literal | undefined => {
    pos++ // '{'
    const out: Literal = []
    skip()
    if (s[pos] === '}') {
      pos++
      return out
    }
    for (;;) {
      skip()
      const c = s[pos]
      if (c === '{') {
        const sub = level()
        if (!sub) return undefined
        out.push(sub)
      } else if (c === '"') {
        let v = ''
        for (pos++; pos < s.length && s[pos] !== '"'; pos++)
          v += s[pos] === '\\' ? (s[++pos] ?? '') : s[pos]
        if (pos++ >= s.length) return undefined
        out.push(v)
      } else {
        let v = ''
        let escapes = false
        let keep = 0 // trailing unescaped spaces are dropped
        for (; pos < s.length && !',}{"'.includes(s[pos]!); pos++) {
          const escaped = s[pos] === '\\'
          v += escaped ? (s[++pos] ?? '') : s[pos]
          if (escaped || !isSpace(s.charCodeAt(pos))) keep = v.length
          escapes ||= escaped
        }
        v = v.slice(0, keep)
        if (v === '') return undefined
        out.push(!escapes && v.toLowerCase() === 'null' ? null : v)
      }
      skip()
      if (s[pos] === ',') pos++
      else if (s[pos] === '}') {
        pos++
        return out
      } else return undefined
    }
  }
  skip()
  if (s[pos] !== '{') return undefined
  const out = level()
  skip()
  return out && pos === s.length ? out : undefined
}
