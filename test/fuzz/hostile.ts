// Hostile values and mutations of a data dict: wrong types, nulls, huge strings, deep nesting,
// numeric extremes, unicode edge cases, prototype keys and unknown keys.
import fc from 'fast-check'

export type Dict = Record<string, unknown>

/** A list nested `depth` levels deep around `leaf`. */
export const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

/** Text the SQL, LIKE, FTS, JSON and path layers might take for something else. */
export const hostileText = fc.constantFrom(
  '', ' ', '1e308', 'NaN', '-1', '10.0', 'Infinity', '-0', '0x10', '%_%', '*', '\\', "'", '"',
  '{"a":', '[[[[', 'null', 'true', 'undefined', "' OR 1=1 --", '"; DROP TABLE package; --',
  '../../etc/passwd', '<script>x</script>', 'name:* OR id:*', '${7*7}', '__proto__',
)

/** Strings UTF-16, UTF-8 and SQLite disagree about or render strangely. */
export const unicodeEdge = fc.constantFrom(
  '\uD800', // lone high surrogate
  'a\uDC00b', // lone low surrogate
  '\u0000', // NUL
  'a\u0000b',
  '\u202Eabc', // right-to-left override
  'שלום', // RTL script
  'e\u0301\u0301\u0301', // combining marks
  'Z\u0351\u0352\u0357\u0358\u035B\u0350', // zalgo
  '😀', // astral plane
  '👩‍👩‍👧‍👦', // ZWJ sequence
  '\uFEFF', // BOM
  '\u200B', // zero width space
  'ǅ', // titlecase
  'İ', // lowercases to two code points
  'ﬃ', // uppercases to three
  '\u2028\u2029', // JS line separators
  '\uFFFF',
)

/** Numbers at and past the limits of doubles, integers, SQLite and the validators. */
export const numericExtreme = fc.constantFrom<unknown>(
  1e308, -1e308, 5e-324, -1, -0, 0, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53, 2 ** 53 + 1,
  2 ** 63, -(2 ** 63), 1.5, 'NaN', 'Infinity', '-Infinity', '1e308', '10.0', '9'.repeat(30),
  '-1', ' 1 ', '0x1F', '1_000',
)

/** Keys JavaScript objects treat specially. */
export const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf')

const protoValue = fc.constantFrom<unknown>(
  { sysadmin: true, state: 'active', private: false, polluted: 1 },
  { prototype: { polluted: 1 } },
  null,
  'polluted',
  [],
)

/** A value of a type a parameter would not expect (and the values every check forgets). */
const wrongType = fc.constantFrom<unknown>(
  null, true, false, 0, 1, -1, '', [], [null], {}, { a: 1 }, [[]], [{}], 'a', ['a'], { '': '' },
)

/**
 * One hostile value. The huge string (100 KB) and the deep list (200 levels, past the default
 * service.max_request_depth of 64; 60 levels stays within it and reaches the action) are built once.
 */
const HUGE = 'x'.repeat(100 * 1024)
const HUGE_UNICODE = '😀'.repeat(25 * 1024)
export const hostileValue = (generic: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    wrongType,
    fc.constant(null),
    fc.constantFrom<unknown>(HUGE, HUGE_UNICODE, [HUGE], { [HUGE.slice(0, 5000)]: 1 }),
    fc.constantFrom<unknown>(nested(200), nested(60), nested(60, { a: nested(3) }), nested(30, {})),
    numericExtreme,
    unicodeEdge,
    hostileText,
    generic,
  )

/** Where in a dict a mutation applies: a path of choices, each an index into a container's keys. */
const path = fc.array(fc.nat(), { minLength: 1, maxLength: 3 })

/** A copy of `v` in which the value at the path `picks` leads to is `f(old)`. */
function replaceAt(v: unknown, picks: number[], f: (old: unknown) => unknown): unknown {
  if (picks.length === 0 || v === null || typeof v !== 'object') return f(v)
  const [p, ...rest] = picks as [number, ...number[]]
  if (Array.isArray(v)) {
    if (v.length === 0) return f(v)
    const i = p % v.length
    const copy = [...v]
    copy[i] = replaceAt(v[i], rest, f)
    return copy
  }
  const keys = Object.keys(v)
  if (keys.length === 0) return f(v)
  const k = keys[p % keys.length]!
  return withKey({ ...(v as Dict) }, k, replaceAt((v as Dict)[k], rest, f))
}

/** Sets an own enumerable property, even `__proto__` (which JSON.stringify then sends). */
function withKey(d: Dict, k: string, value: unknown): Dict {
  Object.defineProperty(d, k, { value, enumerable: true, writable: true, configurable: true })
  return d
}

export type Mutation = (d: Dict) => Dict

/**
 * Mutations of a data dict: a value somewhere in it (a top-level one, or one inside its lists
 * and dicts) replaced by a hostile one, a prototype key or an unknown key added, a key dropped.
 * `keys`: names to add or replace (the action's own and common ones).
 */
export function mutation(generic: fc.Arbitrary<unknown>, keys: string[]): fc.Arbitrary<Mutation> {
  const value = hostileValue(generic)
  return fc.oneof(
    // a value inside the dict (or the dict itself when empty) becomes a hostile one
    fc.tuple(path, value).map(
      ([picks, v]): Mutation =>
        (d) => {
          const r = replaceAt(d, picks, () => v)
          return r && typeof r === 'object' && !Array.isArray(r) ? (r as Dict) : { value: r }
        },
    ),
    // a known key gets a hostile value
    fc.tuple(fc.constantFrom(...keys), value).map(([k, v]): Mutation => (d) => withKey({ ...d }, k, v)),
    // a prototype key, at the top or one level down
    fc.tuple(protoKey, protoValue, fc.boolean(), fc.nat()).map(
      ([k, v, deep, p]): Mutation =>
        (d) =>
          deep && Object.keys(d).length > 0
            ? (replaceAt(d, [p], (old) =>
                old && typeof old === 'object' && !Array.isArray(old)
                  ? withKey({ ...(old as Dict) }, k, v)
                  : withKey({}, k, v),
              ) as Dict)
            : withKey({ ...d }, k, v),
    ),
    // an unknown key
    fc.tuple(
      fc.oneof(fc.string({ maxLength: 12 }), unicodeEdge, fc.constantFrom('', ' ', 'ID', 'Name', 'id ', 'a.b', 'a[0]')),
      fc.oneof(generic, value),
    ).map(([k, v]): Mutation => (d) => withKey({ ...d }, k, v)),
    // a key left out (often a required one)
    fc.nat().map(
      (p): Mutation =>
        (d) => {
          const keys = Object.keys(d)
          if (keys.length === 0) return d
          const copy = { ...d }
          delete copy[keys[p % keys.length]!]
          return copy
        },
    ),
  )
}
