// Wildcard and Lucene regexp matchers: the same answers as a backtracking RegExp, in linear time.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { luceneRegexpMatcher, wildcardMatcher } from '../../src/search/patterns'
import { QueryParseError } from '../../src/search/query'

/** Regular expressions in the syntax Lucene and JavaScript share, over a small alphabet. */
const regexp: fc.Arbitrary<string> = fc.letrec((tie) => ({
  atom: fc.oneof(
    { maxDepth: 2, depthIdentifier: 'regexp' },
    fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '[a-b]', '\\.'),
    tie('group'),
  ),
  group: fc
    .array(tie('piece'), { minLength: 1, maxLength: 3 })
    .chain((parts) => fc.constantFrom(`(${parts.join('')})`, `(${parts.join('|')})`)),
  piece: fc
    .tuple(tie('atom'), fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,}'))
    .map(([a, q]) => `${a}${q}`),
  expr: fc
    .array(fc.array(tie('piece'), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 })
    .map((alts) => alts.map((a) => a.join('')).join('|')),
})).expr as fc.Arbitrary<string>

// short texts: a backtracking RegExp is exponential in the length on nested quantifiers
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '.'), maxLength: 8 })

describe('luceneRegexpMatcher', () => {
  it('agrees with JavaScript RegExp on the syntax both share', () => {
    fc.assert(
      fc.property(regexp, fc.array(text, { minLength: 1, maxLength: 8 }), (pattern, texts) => {
        const ours = luceneRegexpMatcher(pattern)
        const js = new RegExp(`^(?:${pattern})$`, 'u')
        for (const s of texts) expect(ours(s), `/${pattern}/ on '${s}'`).toBe(js.test(s))
      }),
      { numRuns: 500, seed: 20261125 },
    )
  })

  it('knows Lucene syntax: quoted strings, @, #, shorthand classes, anchoring, code points', () => {
    expect(luceneRegexpMatcher('"a.b"c')('a.bc')).toBe(true)
    expect(luceneRegexpMatcher('"a.b"c')('axbc')).toBe(false)
    expect(luceneRegexpMatcher('ab@')('abanything')).toBe(true)
    expect(luceneRegexpMatcher('a#|b')('a')).toBe(false)
    expect(luceneRegexpMatcher('a#|b')('b')).toBe(true)
    expect(luceneRegexpMatcher('\\d+-\\w+')('2024-data_set')).toBe(true)
    expect(luceneRegexpMatcher('wat.r')('water')).toBe(true)
    expect(luceneRegexpMatcher('wat.r')('waters')).toBe(false)
    expect(luceneRegexpMatcher('.')('😀')).toBe(true)
    expect(luceneRegexpMatcher('()a')('a')).toBe(true)
  })

  it('refuses what it does not support with a query error, not a crash', () => {
    for (const bad of ['~a', 'a&b', '<1-10>', '(a', 'a)', '[a', '*a', 'a{3,1}', 'a{2000}', '(a{999}){999}', '\\']) {
      expect(() => luceneRegexpMatcher(bad), bad).toThrow(QueryParseError)
    }
  })

  it('takes linear time on patterns that make a backtracking engine explode', () => {
    const long = 'a'.repeat(5000)
    const started = performance.now()
    for (const p of ['(a+)+b', '(a|a)*b', '(a|aa)*c', '(.*a){20}b', '(a*)*b']) {
      expect(luceneRegexpMatcher(p)(long), p).toBe(false)
    }
    expect(performance.now() - started).toBeLessThan(2000) // a RegExp needs years for the first
  })

  it('does not overflow the stack on long chains of empty alternatives', () => {
    expect(luceneRegexpMatcher('(()|())*'.repeat(200) + 'a')('a')).toBe(true)
  })
})

describe('wildcardMatcher', () => {
  const wildcard = fc.array(fc.constantFrom('a', 'b', '*', '?', '\\*', '\\?'), { maxLength: 10 }).map((p) => p.join(''))
  const toRegExp = (p: string) =>
    new RegExp(
      `^${p.replace(/\\(.)|([*?])|(.)/gu, (_, esc: string, w: string, c: string) =>
        esc ? `\\${esc}` : w === '*' ? '[\\s\\S]*' : w === '?' ? '[\\s\\S]' : c.replace(/[.+^${}()|[\]]/g, '\\$&'),
      )}$`,
      'u',
    )

  it('agrees with the RegExp translation', () => {
    fc.assert(
      fc.property(wildcard, fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '*', '?'), maxLength: 10 }), { maxLength: 8 }), (p, texts) => {
        const ours = wildcardMatcher(p)
        const js = toRegExp(p)
        for (const s of texts) expect(ours(s), `${p} on '${s}'`).toBe(js.test(s))
      }),
      { numRuns: 500, seed: 20261125 },
    )
  })

  it('takes at most text × pattern steps where a RegExp backtracks', () => {
    const started = performance.now()
    expect(wildcardMatcher('*a'.repeat(30) + 'b')('a'.repeat(3000))).toBe(false)
    expect(wildcardMatcher('?*😀')('x😀')).toBe(true)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
