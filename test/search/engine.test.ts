// Engine internals: lazy posting lists, exact fields, top-k against a full sort, facet ordering.
import { describe, expect, it } from 'vitest'
import { count, forEachBit, fromDocs } from '../../src/search/bits'
import { indexDocument } from '../../src/search/document'
import { editDistance } from '../../src/search/evaluate'
import { ExactField } from '../../src/search/exact-field'
import { MemoryIndex } from '../../src/search/minisearch'
import { facetCounts, topDocs } from '../../src/search/rank'
import { eachPosting, LazyPostings } from '../../src/search/text-index'
import type { SortKey } from '../../src/search/sort'

const opts = { siteId: 's', vocabularyName: () => undefined, extraResourceFields: [] }

describe('bitsets', () => {
  it('counts and iterates set bits in order, across word boundaries', () => {
    const docs = [0, 1, 31, 32, 33, 63, 64, 1000]
    const b = fromDocs(1001, docs)
    expect(count(b)).toBe(docs.length)
    const seen: number[] = []
    forEachBit(b, (d) => seen.push(d))
    expect(seen).toEqual(docs)
  })
})

describe('LazyPostings', () => {
  it('answers from its pairs until changed, then behaves as a Map', () => {
    const p = new LazyPostings(new Uint32Array([3, 1, 7, 2]), 2)
    expect(p.size).toBe(2)
    const read: number[][] = []
    eachPosting(p, (s, tf) => read.push([s, tf]))
    expect(read).toEqual([[3, 1], [7, 2]])
    expect(p.pairs).not.toBeNull() // reading did not materialise it
    p.set(9, 4)
    p.delete(3)
    expect(p.pairs).toBeNull()
    expect([...p]).toEqual([[7, 2], [9, 4]])
    expect(p.get(7)).toBe(2)
  })
})

describe('ExactField', () => {
  it('keeps postings right through updates, also when loaded without them', () => {
    const f = new ExactField()
    f.set(0, ['a', 'b'])
    f.set(1, ['b'])
    const loaded = ExactField.load(f.dump(2))
    for (const x of [f, loaded]) {
      x.set(1, ['c'])
      x.set(2, ['a', 'a'])
      x.remove(0)
      expect([...(x.docs('a') ?? [])]).toEqual([2])
      expect([...(x.docs('b') ?? [])]).toEqual([])
      expect([...(x.docs('c') ?? [])]).toEqual([1])
      expect(x.valuesOf(2).map((id) => x.values[id])).toEqual(['a'])
      expect(x.first(1)).toBe('c')
    }
  })
})

describe('editDistance', () => {
  it('is Levenshtein, giving up beyond the bound', () => {
    expect(editDistance('roam', 'foam', 2)).toBe(1)
    expect(editDistance('kitten', 'sitting', 3)).toBe(3)
    expect(editDistance('abc', 'xyzabc', 1)).toBe(2)
  })
})

describe('top-k and facets', () => {
  const idx = new MemoryIndex()
  const N = 300
  for (let i = 0; i < N; i++) {
    const d: Record<string, unknown> = {
      id: `id-${String((i * 7919) % N).padStart(4, '0')}`,
      name: `n${(i * 31) % 97}`,
      title: i % 5 === 0 ? '' : `T${i % 13}`,
      state: 'active',
      tags: [{ name: `t${i % 4}` }, { name: `t${i % 6}` }],
      num_resources: i % 9,
    }
    if (i % 11) d.metadata_modified = `2020-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00`
    idx.put(indexDocument(d, opts))
  }
  const all = idx.all()
  const sorts: SortKey[][] = [
    [{ field: 'metadata_modified', direction: 'desc' }],
    [{ field: 'metadata_modified', direction: 'asc' }, { field: 'name', direction: 'desc' }],
    [{ field: 'title_string', direction: 'asc' }],
    [{ field: 'num_resources', direction: 'desc' }, { field: 'id', direction: 'asc' }],
    [{ field: 'score', direction: 'desc' }, { field: 'metadata_modified', direction: 'desc' }],
  ]
  it.each(sorts.map((s) => [s.map((k) => `${k.field} ${k.direction}`).join(', '), s] as const))(
    'the bounded heap gives the prefix of the full sort: %s',
    (_, sort) => {
      const full = topDocs(idx, all, sort, N, null)
      expect(full).toHaveLength(N)
      for (const k of [1, 10, 57]) expect(topDocs(idx, all, sort, k, null)).toEqual(full.slice(0, k))
      // missing values sort last in either direction
      if (sort[0]!.field === 'metadata_modified') {
        const missing = full.map((d) => Number.isNaN(idx.numbers.get('metadata_modified')![d]!))
        expect(missing.indexOf(true)).toBe(missing.lastIndexOf(false) + 1)
      }
    },
  )

  it('counts facet values once per document, highest first, ties by value', () => {
    const tags = facetCounts(idx, all, 'tags', { limit: -1, mincount: 1 })
    const expected = new Map<string, number>()
    for (let i = 0; i < N; i++) for (const t of new Set([`t${i % 4}`, `t${i % 6}`])) expected.set(t, (expected.get(t) ?? 0) + 1)
    const want = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    expect(tags).toEqual(want)
    expect(facetCounts(idx, all, 'tags', { limit: 2, mincount: 1 })).toEqual(want.slice(0, 2))
    expect(facetCounts(idx, all, 'tags', { limit: -1, mincount: 100 })).toEqual(want.filter(([, c]) => c >= 100))
  })
})
