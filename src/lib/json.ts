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

/** Marks `value` immutable (see markImmutable) and returns its JSON text, computed once. */
export function immutableJson(value: object): string {
  frozen.add(value)
  return cachedAsciiJson(value)
}

/** asciiJson(value), computed once for a value marked immutable and reused afterwards. */
export function cachedAsciiJson(value: unknown): string {
  if (value === null || typeof value !== 'object' || !frozen.has(value)) return asciiJson(value)
  let text = serialized.get(value)
  if (text === undefined) serialized.set(value, (text = asciiJson(value)))
  return text
}
