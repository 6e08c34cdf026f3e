// Flattened key paths (package_revise): matching, resolving, filtering and merging, quirks included.
import { describe, expect, it } from 'vitest'
import {
  checkDict,
  checkStringKey,
  DataError,
  filterGlobMatch,
  pyEquals,
  resolveStringKey,
  updateKeyOrder,
  updateMergeDict,
  updateMergeStringKey,
} from '../../src/lib/dict-paths'

const sample = () => ({ a: [{ b: 'c' }], d: 'e' }) as Record<string, unknown>

function dataError(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (e instanceof DataError) return e.message
    throw e
  }
  throw new Error('no DataError')
}

describe('pyEquals', () => {
  it.each([
    [1, 1.0, true],
    [true, 1, true],
    [false, 0, true],
    ['1', 1, false],
    [null, null, true],
    [null, '', false],
    [{ x: [1, { y: 2 }] }, { x: [1, { y: 2 }] }, true],
    [{ x: 1 }, { x: 1, y: 2 }, false],
    [[1, 2], [1, 2, 3], false],
    [{}, [], false],
  ])('%j == %j is %s', (a, b, same) => {
    expect(pyEquals(a, b)).toBe(same)
  })
})

describe('checkDict', () => {
  it('finds nothing when every selected value matches, at any depth', () => {
    expect(checkDict(sample(), sample())).toEqual([])
    expect(checkDict(sample(), { a: [{ b: 'c' }] })).toEqual([])
    expect(checkDict(sample(), { d: 'e' })).toEqual([])
  })

  it('lists the differing and missing paths, keys in sorted order', () => {
    expect(checkDict(sample(), { r: 'e', q: [{ b: 'c' }], a: [{ z: 'x' }] })).toEqual([
      ['a', 0, 'z'],
      ['q'],
      ['r'],
    ])
  })

  it('reports the path itself where a dict or a list was expected', () => {
    const data = { a: [{ b: [] }], d: 'e' }
    expect(checkDict(data, { a: [{ b: {} }] })).toEqual([['a', 0, 'b']])
    expect(checkDict(data, { a: [['b']] })).toEqual([['a', 0]])
  })

  it('reports list items beyond the end', () => {
    expect(checkDict(sample(), { a: [{ b: 'c' }, { b: 'd' }] })).toEqual([['a', 1]])
  })

  it('compares as Python does (True equals 1) and never sees inherited keys', () => {
    expect(checkDict({ private: true }, { private: 1 })).toEqual([])
    expect(checkDict({}, { constructor: 'x' })).toEqual([['constructor']])
  })
})

describe('resolveStringKey', () => {
  it('follows dict keys and list indexes', () => {
    expect(resolveStringKey(sample(), 'a__0__b')).toEqual({ value: 'c', path: ['a', 0, 'b'] })
    expect(resolveStringKey(sample(), 'a__0')).toEqual({ value: { b: 'c' }, path: ['a', 0] })
  })

  it('counts a negative index from the end and keeps it negative in the path', () => {
    const data = { a: ['x', 'y', 'z'] }
    expect(resolveStringKey(data, 'a__-1')).toEqual({ value: 'z', path: ['a', -1] })
    expect(dataError(() => resolveStringKey(data, 'a__-4'))).toBe('Unmatched key a__-4')
  })

  it('names the first key that leads nowhere', () => {
    expect(dataError(() => resolveStringKey(sample(), 'a__0__c'))).toBe('Unmatched key a__0__c')
    expect(dataError(() => resolveStringKey(sample(), 'a__1__c'))).toBe('Unmatched key a__1')
    expect(dataError(() => resolveStringKey(sample(), 'd__x'))).toBe('Unmatched key d__x')
    expect(dataError(() => resolveStringKey(sample(), 'a__x'))).toBe('Unmatched key a__x')
  })

  it('picks a list item by an id prefix of five characters or more, the first that matches', () => {
    const data = { a: [{ id: 'deadbeef', d: 'e' }, { id: 'deadbabe', d: 'f' }] }
    expect(resolveStringKey(data, 'a__deadb__d')).toEqual({ value: 'e', path: ['a', 0, 'd'] })
    expect(resolveStringKey(data, 'a__deadba__d')).toEqual({ value: 'f', path: ['a', 1, 'd'] })
    expect(dataError(() => resolveStringKey(data, 'a__dead__d'))).toBe('Unmatched key a__dead')
    expect(dataError(() => resolveStringKey(data, 'a__beefs'))).toBe('Unmatched key a__beefs')
  })

  it('refuses an id prefix in a list with an item that has no id', () => {
    expect(dataError(() => resolveStringKey({ a: [{ id: 'abcdef' }, { x: 1 }] }, 'a__zzzzz'))).toBe(
      'Unmatched key a__zzzzz',
    )
  })
})

describe('checkStringKey', () => {
  it('checks a scalar, a dict or a list at the key', () => {
    expect(checkStringKey(sample(), 'a', [{ b: 'c' }])).toEqual([])
    expect(checkStringKey(sample(), 'd', 'e')).toEqual([])
    expect(checkStringKey(sample(), 'a__0__b', 'z')).toEqual([['a', 0, 'b']])
    expect(checkStringKey({ t: sample() }, 't', { r: 'e', a: [{ z: 'x' }] })).toEqual([
      ['t', 'a', 0, 'z'],
      ['t', 'r'],
    ])
    expect(checkStringKey({ a: [{ b: [] }] }, 'a__0__b', {})).toEqual([['a', 0, 'b']])
    expect(checkStringKey({ a: [{ b: [] }] }, 'a__0', ['b'])).toEqual([['a', 0]])
  })
})

describe('filterGlobMatch', () => {
  const data = () => ({ q: [{ b: 'c' }, { z: 'x' }], r: 'e' }) as Record<string, unknown>

  it('removes leaves, keys and list items', () => {
    const d = data()
    filterGlobMatch(d, ['q__0__b', 'q__1__z', 'r'])
    expect(d).toEqual({ q: [{}, {}] })
    const e = data()
    filterGlobMatch(e, ['-q__0'])
    expect(e).toEqual({ q: [{ z: 'x' }], r: 'e' })
  })

  it('protects what a + pattern matches from a later *', () => {
    const d = data()
    filterGlobMatch(d, ['+q__1', 'q__*'])
    expect(d).toEqual({ q: [{ z: 'x' }], r: 'e' })
    const e = data()
    filterGlobMatch(e, ['+q', '-*'])
    expect(e).toEqual({ q: [{ b: 'c' }, { z: 'x' }] })
  })

  it('lets the first matching pattern decide', () => {
    const d: Record<string, unknown> = { q: 'b', c: 'z', r: 'e' }
    filterGlobMatch(d, ['q', '+*', 'r'])
    expect(d).toEqual({ c: 'z', r: 'e' })
    const list = [{ id: 'hello' }, { id: 'world' }, { id: 'people' }]
    filterGlobMatch(list, ['world', '+*', 'hello'])
    expect(list).toEqual([{ id: 'hello' }, { id: 'people' }])
  })

  it('keeps one key of a list item while clearing the rest', () => {
    const d: Record<string, unknown> = { r: [{ id: '34a12bc', url: 'u', name: 'n' }] }
    filterGlobMatch(d, ['+r__34a12__id', '-r__34a12__*'])
    expect(d).toEqual({ r: [{ id: '34a12bc' }] })
  })

  it('ignores patterns that match nothing, spaces included (CKAN does not trim them)', () => {
    const d = data()
    filterGlobMatch(d, ['nothing', 'q__7', 'q__abcdef', ' -r'])
    expect(d).toEqual(data())
  })

  it('removes nothing by a negative index, though its children are filtered (ckan)', () => {
    const d: Record<string, unknown> = { q: [{ b: 'c' }, { z: 'x', y: 'w' }] }
    filterGlobMatch(d, ['q__-1'])
    expect(d).toEqual({ q: [{ b: 'c' }, { z: 'x', y: 'w' }] })
    filterGlobMatch(d, ['q__-1__z'])
    expect(d).toEqual({ q: [{ b: 'c' }, { y: 'w' }] })
  })
})

describe('updateMergeDict', () => {
  it('merges dicts key by key and lists item by item, appending extra items', () => {
    const d = sample()
    updateMergeDict(d, { q: [{ b: 'c' }], a: [{ z: 'x' }], r: 'e' })
    expect(d).toEqual({ q: [{ b: 'c' }], a: [{ b: 'c', z: 'x' }], r: 'e', d: 'e' })
    const l: Record<string, unknown> = { a: ['q', 'w', 'e', 'r', 't'] }
    updateMergeDict(l, { a: ['z', 'x', 'c'] })
    expect(l).toEqual({ a: ['z', 'x', 'c', 'r', 't'] })
    const n: Record<string, unknown> = { a: null }
    updateMergeDict(n, { a: { b: 1 } })
    expect(n).toEqual({ a: { b: 1 } })
  })

  it('refuses to put a dict where a list is and the other way round', () => {
    expect(dataError(() => updateMergeDict({ a: [{ b: [] }] }, { a: [{ b: {} }] }))).toBe(
      'Expected list for a__0__b',
    )
    expect(dataError(() => updateMergeDict({ a: [{ b: [] }] }, { a: [['b']] }))).toBe(
      'Expected dict for a__0',
    )
  })

  it('stores "__proto__" as a plain key', () => {
    const d: Record<string, unknown> = {}
    updateMergeDict(d, JSON.parse('{"__proto__": {"polluted": 1}}'))
    expect(Object.getPrototypeOf(d)).toBe(Object.prototype)
    expect(Object.keys(d)).toEqual(['__proto__'])
  })
})

describe('updateMergeStringKey', () => {
  it('replaces or merges the value at a flattened key', () => {
    const d = sample()
    updateMergeStringKey(d, 'a__0__b', 'z')
    expect(d).toEqual({ a: [{ b: 'z' }], d: 'e' })
    updateMergeStringKey(d, 'd', 'd')
    expect(d).toEqual({ a: [{ b: 'z' }], d: 'd' })
    updateMergeStringKey(d, 'a__0', { y: 1 })
    expect(d).toEqual({ a: [{ b: 'z', y: 1 }], d: 'd' })
    const l: Record<string, unknown> = { a: ['q', 'w', 'e'] }
    updateMergeStringKey(l, 'a__0', 'z')
    updateMergeStringKey(l, 'a__-1', 'y')
    expect(l).toEqual({ a: ['z', 'w', 'y'] })
  })

  it('appends the items of a list with __extend', () => {
    const d: Record<string, unknown> = { a: [1] }
    updateMergeStringKey(d, 'a__extend', [2, 3])
    expect(d).toEqual({ a: [1, 2, 3] })
    expect(dataError(() => updateMergeStringKey(d, 'a__extend', 4))).toBe('Expected list for a')
  })

  it("answers CKAN's messages for mismatched types and unknown keys", () => {
    expect(dataError(() => updateMergeStringKey({ a: [{ b: [] }] }, 'a__0__b', {}))).toBe(
      'Expected list for a__0__b',
    )
    expect(dataError(() => updateMergeStringKey({ a: [{ b: [] }] }, 'a__0', ['b']))).toBe(
      'Expected dict for a__0',
    )
    expect(dataError(() => updateMergeStringKey(sample(), 'd__x', 1))).toBe(
      'Expected list or dict for d',
    )
    expect(dataError(() => updateMergeStringKey(sample(), 'a__5', 1))).toBe('Unmatched key 5')
    expect(dataError(() => updateMergeStringKey(sample(), 'x__y', 1))).toBe('Unmatched key x')
  })
})

describe('updateKeyOrder', () => {
  it('sorts keys, an …extend key as the letter "e" (ckan)', () => {
    expect(updateKeyOrder(['title', 'resources__0__name', 'resources__extend', 'author'])).toEqual([
      'author',
      'resources__extend',
      'resources__0__name',
      'title',
    ])
  })
})
