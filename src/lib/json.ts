// JSON text as CKAN writes it (json.dumps, ensure_ascii), and a cache of the text of shared dicts.

/** JSON with every non-ASCII character escaped as \uXXXX, as CKAN emits it. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'),
  )
}

/**
 * asciiJson() of a string (everything outside ' '..'~' as \uXXXX), without a regular expression:
 * the DataStore's COPY output calls it once per json cell.
 */
export function asciiJsonString(s: string): string {
  const t = JSON.stringify(s)
  let out = ''
  let last = 0
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c > 0x7e) {
      out += t.slice(last, i) + '\\u' + c.toString(16).padStart(4, '0')
      last = i + 1
    }
  }
  return last === 0 ? t : out + t.slice(last)
}

const frozen = new WeakSet<object>()
const serialized = new WeakMap<object, string>()

/**
 * Marks a result object as shared and never mutated (e.g. a cached dataset dict), so its JSON
 * text can be reused by every response that returns it.
 */
export function markImmutable<T extends object>(value: T): T {
  frozen.add(value)
  return value
}

/**
 * Marks `value` immutable with `text` as its JSON text: `text` must be what asciiJson(value)
 * gives (a dict parsed from text asciiJson wrote).
 */
export function adoptJson<T extends object>(value: T, text: string): T {
  frozen.add(value)
  serialized.set(value, text)
  return value
}

/** Marks `value` immutable (see markImmutable) and returns its JSON text, computed once. */
export function immutableJson(value: object): string {
  frozen.add(value)
  return cachedAsciiJson(value)
}

/** A plain array or object, whose JSON text JSON.stringify would make from its members alone. */
function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol'

/**
 * asciiJson(value), reusing the text of values marked immutable: such a value's text is computed
 * once, and a plain array or object up to `depth` levels above one (a package_search result, a
 * list of dataset dicts) is written around the stored texts instead of serialising them again.
 * The text is what asciiJson(value) gives.
 */
export function cachedAsciiJson(value: unknown, depth = 2): string {
  if (value === null || typeof value !== 'object') return asciiJson(value)
  if (frozen.has(value)) {
    let text = serialized.get(value)
    if (text === undefined) serialized.set(value, (text = asciiJson(value)))
    return text
  }
  if (depth <= 0 || !isPlain(value)) return asciiJson(value)
  if (Array.isArray(value)) {
    let out = '['
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i]
      out += (i ? ',' : '') + (skipped(v) ? 'null' : cachedAsciiJson(v, depth - 1))
    }
    return out + ']'
  }
  let out = '{'
  let first = true
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (skipped(v)) continue
    out += (first ? '' : ',') + asciiJson(key) + ':' + cachedAsciiJson(v, depth - 1)
    first = false
  }
  return out + '}'
}
