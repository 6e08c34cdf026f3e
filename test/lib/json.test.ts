// CKAN's ASCII-escaped JSON text and the cache of the JSON text of immutable dicts.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  asciiJson,
  asciiJsonString,
  cachedAsciiJson,
  immutableJson,
  markImmutable,
} from '../../src/lib/json'

const SAMPLES = [
  '',
  'plain ascii ~',
  'Delta symbol: \u0394',
  'del \u007f and nbsp \u00a0',
  'controls \u0000\u001f\t\n\r "quoted" \\ back',
  'emoji 🙂 and lone \ud800 surrogate',
  'line \u2028 and paragraph \u2029 separators',
  '\uffff\ufeff',
]

describe('asciiJson', () => {
  it('escapes every character from U+007F up as \\uXXXX (surrogates one by one)', () => {
    expect(asciiJson({ a: 'Delta symbol: \u0394' })).toBe('{"a":"Delta symbol: \\u0394"}')
    expect(asciiJson(['\u007f', '🙂'])).toBe('["\\u007f","\\ud83d\\ude42"]')
    expect(asciiJson('~')).toBe('"~"')
  })

  it('writes what JSON.stringify writes for other values', () => {
    expect(asciiJson(null)).toBe('null')
    expect(asciiJson({ n: 1.5, b: true, l: [1, 'x'] })).toBe('{"n":1.5,"b":true,"l":[1,"x"]}')
  })
})

describe('asciiJsonString', () => {
  it('answers exactly what asciiJson answers for a string', () => {
    for (const s of SAMPLES) expect(asciiJsonString(s)).toBe(asciiJson(s))
  })

  it('returns the JSON.stringify text unchanged when it is all ASCII', () => {
    expect(asciiJsonString('a"b')).toBe('"a\\"b"')
  })
})

describe('immutable JSON cache', () => {
  it('serialises an unmarked object anew each time', () => {
    const o: Record<string, unknown> = { a: 1 }
    expect(cachedAsciiJson(o)).toBe('{"a":1}')
    o.a = 2
    expect(cachedAsciiJson(o)).toBe('{"a":2}')
  })

  it('reuses the text of an object marked immutable', () => {
    const o: Record<string, unknown> = { a: 'é' }
    expect(markImmutable(o)).toBe(o)
    expect(cachedAsciiJson(o)).toBe('{"a":"\\u00e9"}')
    o.a = 'changed' // breaks the contract on purpose: the cached text shows it was reused
    expect(cachedAsciiJson(o)).toBe('{"a":"\\u00e9"}')
  })

  it('immutableJson marks the object and returns the text the cache then serves', () => {
    const o: Record<string, unknown> = { b: [1] }
    expect(immutableJson(o)).toBe('{"b":[1]}')
    o.b = null
    expect(cachedAsciiJson(o)).toBe('{"b":[1]}')
  })

  it('passes scalars and null through asciiJson', () => {
    expect(cachedAsciiJson(null)).toBe('null')
    expect(cachedAsciiJson('\u0394')).toBe('"\\u0394"')
  })
  it('writes a result around the stored texts of immutable dicts inside it', () => {
    const dict: Record<string, unknown> = { name: 'caf\u00e9', tags: [{ name: 't' }] }
    expect(immutableJson(dict)).toBe('{"name":"caf\\u00e9","tags":[{"name":"t"}]}')
    dict.name = 'changed' // what is stored is served (the dict is immutable by contract)
    const result = { count: 1, results: [dict, undefined], facets: {}, skip: undefined, sort: 'x' }
    expect(cachedAsciiJson(result)).toBe(
      '{"count":1,"results":[{"name":"caf\\u00e9","tags":[{"name":"t"}]},null],"facets":{},"sort":"x"}',
    )
  })

  it('gives asciiJson\'s text for any value, immutable parts or not (property)', () => {
    const leaf = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.date({ noInvalidDate: true }),
    )
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object'), tie('frozen')),
      array: fc.array(tie('tree'), { maxLength: 4 }),
      object: fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('tree'), { maxKeys: 4 }),
      frozen: fc.dictionary(fc.string({ maxLength: 4 }), tie('tree'), { maxKeys: 3 }).map((o) => markImmutable(o)),
    }))
    fc.assert(
      fc.property(tree, (v) => {
        fc.pre(v !== undefined) // no JSON text at all (asciiJson throws)
        expect(cachedAsciiJson(v)).toBe(asciiJson(v))
      }),
      { numRuns: 500, seed: 17 },
    )
  })
})
