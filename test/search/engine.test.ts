// Engine internals: the text segments, exact fields, top-k against a full sort, facet ordering.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { count, forEachBit, fromDocs } from '../../src/search/bits'
import { indexDocument } from '../../src/search/document'
import { editDistance } from '../../src/search/evaluate'
import { ExactField } from '../../src/search/exact-field'
import { MemoryIndex } from '../../src/search/minisearch'
import { facetCounts, select, topDocs } from '../../src/search/rank'
import { FIELD_ID, fuzzySorted, TextIndex } from '../../src/search/text-index'
import { encodeSnapshot, decodeSnapshot } from '../../src/search/snapshot'
import { parseQ } from '../../src/search/query'
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

describe('TextIndex: two frozen varint segments plus a live MiniSearch', () => {
  type Text = { title: string[]; all: string[]; kv: string[] }
  const WORDS = ['a', 'ab', 'abc', 'b', 'ba', 'data', 'date', 'x\u0001y', 'é', 'zz']
  const text = fc.record({
    title: fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
    all: fc.array(fc.constantFrom(...WORDS), { maxLength: 6 }),
    kv: fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
  })
  const op = fc.oneof(
    fc.record({ put: fc.nat(30), text }),
    fc.record({ drop: fc.nat(30) }),
    fc.constant({ freeze: true }),
    fc.constant({ reload: true }),
  )
  /** term → field → (doc → tf), read through the index's public reading API. */
  const read = (t: TextIndex) => {
    const out: Record<string, Record<number, Record<number, number>>> = {}
    for (const [term, ref] of t.withPrefix('')) {
      for (const f of Object.values(FIELD_ID)) {
        t.eachPosting(ref, f, (short, tf) => {
          const d = t.docOf(short)
          if (d >= 0) ((out[term] ??= {})[f] ??= {})[d] = tf
        })
      }
    }
    return out
  }

  it('answers like a model through puts, drops, freezes and snapshot round trips', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.constantFrom(0, 24, 1 << 16), (ops, deltaMinBytes) => {
        // small merge thresholds: freezes also merge the small frozen segment into the big one
        let t = new TextIndex({ deltaMinBytes })
        const model = new Map<number, Text>()
        for (const o of ops) {
          if ('put' in o) {
            t.put(o.put, o.text)
            model.set(o.put, o.text)
          } else if ('drop' in o) {
            t.drop(o.drop)
            model.delete(o.drop)
          } else if ('freeze' in o) t.freeze()
          else t = TextIndex.load(decodeSnapshot(encodeSnapshot({ ids: [], exact: {}, numbers: {}, text: t.dump() })).text)
        }
        const want: Record<string, Record<number, Record<number, number>>> = {}
        for (const [d, tx] of model) {
          for (const [field, f] of Object.entries(FIELD_ID)) {
            for (const w of tx[field as keyof Text]) {
              const m = ((want[w] ??= {})[f] ??= {})
              m[d] = (m[d] ?? 0) + 1
            }
          }
        }
        expect(read(t)).toEqual(want)
        expect(t.liveCount).toBe(model.size)
        for (const [term, perField] of Object.entries(want)) {
          const ref = t.termData(term)!
          for (const [f, docs] of Object.entries(perField)) {
            // df counts postings of discarded documents too; never fewer than the live ones, and
            // none of them once a snapshot was written (it drops them all)
            if (ops.at(-1) && 'reload' in ops.at(-1)!) expect(t.df(ref, Number(f))).toBe(Object.keys(docs).length)
            else expect(t.df(ref, Number(f))).toBeGreaterThanOrEqual(Object.keys(docs).length)
          }
        }
        for (const [field, f] of Object.entries(FIELD_ID)) {
          const lengths = [...model.values()].map((tx) => new Set(tx[field as keyof Text]).size)
          const avg = lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0
          expect(t.avgFieldLength(f)).toBeCloseTo(avg || 1, 9)
        }
        expect(read(t)).toEqual(want) // reading changed nothing
      }),
      { numRuns: 600, seed: 20261125 },
    )
  })

  it('drops the postings of replaced documents when frozen, and keeps numbering after a reload', () => {
    const t = new TextIndex()
    t.put(1, { title: ['data'], all: ['data', 'date'], kv: [] })
    t.put(2, { title: [], all: ['data'], kv: [] })
    t.freeze()
    t.put(1, { title: ['date'], all: [], kv: [] })
    expect(t.dirt).toBe(1)
    t.freeze()
    expect(t.dirt).toBe(0)
    expect(t.df(t.termData('data')!, FIELD_ID.all)).toBe(1)
    const again = TextIndex.load(t.dump())
    again.put(3, { title: ['data'], all: [], kv: [] })
    const shorts: number[] = []
    again.eachPosting(again.termData('data')!, FIELD_ID.title, (s) => shorts.push(again.docOf(s)))
    expect(shorts).toEqual([3])
  })
})

describe('fuzzySorted', () => {
  it('finds exactly the terms within the edit distance, as a brute-force Levenshtein does', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 7 })
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 80 }), word, fc.integer({ min: 0, max: 2 }), (terms, q, d) => {
        const sorted = terms.filter(Boolean).sort()
        const got = fuzzySorted(sorted, q, d).map((i) => sorted[i])
        const want = sorted.filter((t) => editDistance(t, q, d) <= d)
        expect(got).toEqual(want)
      }),
      { numRuns: 500, seed: 20261125 },
    )
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
      expect(x.valuesOf(2).map((id) => x.value(id))).toEqual(['a'])
      expect(x.first(1)).toBe('c')
    }
  })
})

/** Values added in any order, sorted on reload: prefixes, case, non-ASCII, the empty string. */
const VALUES = ['d', 'a', 'b', 'c', 'ab', 'B', '', 'é', 'e\u0301', 'z'.repeat(20), '\u{1f600}']

describe('ExactField postings', () => {
  it('give every value its documents through sets and removals, built eagerly or on first use', () => {
    const op = fc.oneof(
      fc.record({ doc: fc.nat(12), values: fc.array(fc.constantFrom(...VALUES), { maxLength: 3 }) }),
      fc.record({ remove: fc.nat(12) }),
      fc.constant({ reload: true }),
      fc.constant({ compact: true }),
      fc.record({ look: fc.constantFrom(...VALUES) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let f = new ExactField()
        const model = new Map<number, Set<string>>()
        for (const o of ops) {
          if ('doc' in o) {
            f.set(o.doc, o.values)
            if (o.values.length) model.set(o.doc, new Set(o.values))
            else model.delete(o.doc)
          } else if ('remove' in o) {
            f.remove(o.remove)
            model.delete(o.remove)
          } else if ('compact' in o) f.compactValues(true)
          else if ('look' in o) {
            // postings built here are then overlaid with the documents changed after
            const want = [...model].filter(([, vs]) => vs.has(o.look)).map(([d]) => d).sort((x, y) => x - y)
            expect([...(f.docs(o.look) ?? [])].sort((x, y) => x - y)).toEqual(want)
          } else f = ExactField.load(f.dump(13))
        }
        for (const [doc, vs] of model) {
          expect(new Set(f.valuesOf(doc).map((id) => f.value(id))), `doc ${doc}`).toEqual(vs)
          expect(vs.has(f.first(doc)!)).toBe(true)
        }
        for (const v of VALUES) {
          expect(f.idOf(v) === undefined || f.value(f.idOf(v)!) === v).toBe(true)
          const want = [...model].filter(([, vs]) => vs.has(v)).map(([d]) => d).sort((x, y) => x - y)
          expect([...(f.docs(v) ?? [])].sort((x, y) => x - y), v).toEqual(want)
        }
        const matched = [...f.matching(() => true)].map((docs) => [...docs].length).reduce((a, b) => a + b, 0)
        expect(matched).toBe([...model.values()].reduce((n, vs) => n + vs.size, 0))
      }),
      { numRuns: 1000, seed: 20261125 },
    )
  })

  it('rebuilds postings after many changes and keeps lists right through pool compaction', () => {
    const f = new ExactField()
    const model = new Map<number, string[]>()
    for (let i = 0; i < 3000; i++) {
      const doc = (i * 37) % 700
      const values = [`v${i % 50}`, `w${i % 7}`, `u${i}`]
      f.set(doc, values)
      model.set(doc, values)
      if (i % 97 === 0) f.remove((i * 13) % 700), model.delete((i * 13) % 700)
      if (i % 250 === 0) expect([...(f.docs('w3') ?? [])].length).toBe([...model.values()].filter((v) => v.includes('w3')).length)
      if (i === 2000) f.compactValues()
    }
    for (const v of ['v0', 'v49', 'w0', 'w6', 'u2999', 'u5']) {
      const want = [...model].filter(([, vs]) => vs.includes(v)).map(([d]) => d).sort((x, y) => x - y)
      expect([...(f.docs(v) ?? [])].sort((x, y) => x - y), v).toEqual(want)
    }
    for (const [doc, vs] of model) expect(f.valuesOf(doc).map((id) => f.value(id)).sort()).toEqual([...vs].sort())
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

  it('pages deep into many matches as the full sort does, whatever order the keys follow (selection first)', () => {
    // scores that follow the document order, the reverse, or none, with ties; and a keyset filter
    const scores = new Float64Array(N)
    for (const shape of [(i: number) => i, (i: number) => N - i, (i: number) => (i * 7919) % 17]) {
      for (let i = 0; i < N; i++) scores[i] = shape(i)
      const sort: SortKey[] = [{ field: 'score', direction: 'desc' }, { field: 'metadata_modified', direction: 'desc' }]
      const full = topDocs(idx, all, sort, N, scores)
      for (const k of [1, 5, 20, 37]) expect(topDocs(idx, all, sort, k, scores)).toEqual(full.slice(0, k))
      const after = (d: number) => full.indexOf(d) >= 100
      expect(topDocs(idx, all, sort, 10, scores, after)).toEqual(full.slice(100, 110))
    }
  })

  it('selects the k-th smallest value as a sort would', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(Infinity)), { minLength: 1, maxLength: 200 }), fc.nat(), (xs, k0) => {
        const k = k0 % xs.length
        const sorted = [...xs].sort((a, b) => a - b)
        expect(select(Float64Array.from(xs), xs.length, k)).toBe(sorted[k])
      }),
    )
  })

  it('counts facet values once per document, highest first, ties by value', () => {
    const tags = facetCounts(idx, all, 'tags', { limit: -1, mincount: 1 })
    const expected = new Map<string, number>()
    for (let i = 0; i < N; i++) for (const t of new Set([`t${i % 4}`, `t${i % 6}`])) expected.set(t, (expected.get(t) ?? 0) + 1)
    const want = [...expected].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    expect(tags).toEqual(want)
    // counted by each value's bitset (a field of few values over many matches): the same pairs
    expect(facetCounts(idx, all, 'tags', { limit: -1, mincount: 1 }, count(all))).toEqual(want)
    const some = fromDocs(N, Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 === 0))
    expect(facetCounts(idx, some, 'tags', { limit: 3, mincount: 1 }, count(some))).toEqual(facetCounts(idx, some, 'tags', { limit: 3, mincount: 1 }))
    expect(facetCounts(idx, all, 'tags', { limit: 2, mincount: 1 })).toEqual(want.slice(0, 2))
    expect(facetCounts(idx, all, 'tags', { limit: -1, mincount: 100 })).toEqual(want.filter(([, c]) => c >= 100))
  })
})

describe('kept answers', () => {
  const doc = (i: number, tag: string, priv = false) =>
    indexDocument({ id: `k-${i}`, name: `k${i}`, title: `Kept ${i}`, state: 'active', private: priv, tags: [{ name: tag }] }, opts)
  const req = (q: string, extra: Record<string, unknown> = {}) => ({
    q: parseQ(q),
    filters: [],
    visibility: { states: ['active'], includePrivate: false, labels: null as string[] | null },
    sort: [{ field: 'name', direction: 'asc' } as SortKey],
    start: 0,
    rows: 10,
    facet: { fields: ['tags'], limit: 10, mincount: 1 },
    ...extra,
  })

  it('answers the same request from the kept answer until the index changes, and never shares it with the caller', async () => {
    const idx = new MemoryIndex()
    for (let i = 0; i < 5; i++) idx.put(doc(i, i % 2 ? 'odd' : 'even'))
    // a phrase is checked against the datasets once: the second identical search is a lookup
    let checks = 0
    const phraseChecker = async (ids: string[]) => (checks++, new Set(ids))
    const phrased = await idx.search({ ...req('title:"kept 3"'), phraseChecker })
    expect(phrased.ids).toEqual(['k-3'])
    expect(checks).toBe(1)
    expect((await idx.search({ ...req('title:"kept 3"'), phraseChecker, deadline: Date.now() + 1000 })).ids).toEqual(['k-3'])
    expect(checks).toBe(1)
    const first = await idx.search(req('tags:odd'))
    expect(first.ids).toEqual(['k-1', 'k-3'])
    // what a caller does to its answer does not reach the next one
    first.ids.push('junk')
    first.facets.tags![0]![1] = 99
    const again = await idx.search(req('tags:odd'))
    expect(again.ids).toEqual(['k-1', 'k-3'])
    expect(again.facets.tags).toEqual([['odd', 2]])
    // any change to the documents makes the next answer new
    idx.put(doc(7, 'odd'))
    expect((await idx.search(req('tags:odd'))).ids).toEqual(['k-1', 'k-3', 'k-7'])
    await idx.search({ ...req('title:"kept 3"'), phraseChecker })
    expect(checks).toBe(2)
    idx.remove('k-1')
    expect((await idx.search(req('tags:odd'))).ids).toEqual(['k-3', 'k-7'])
    // another caller's visibility, page or sort is another request
    idx.put(doc(9, 'odd', true))
    expect((await idx.search(req('tags:odd'))).count).toBe(2)
    expect((await idx.search(req('tags:odd', { visibility: { states: ['active'], includePrivate: true, labels: null } }))).count).toBe(3)
    expect((await idx.search(req('tags:odd', { start: 1 }))).ids).toEqual(['k-7'])
    expect((await idx.search(req('tags:odd', { sort: [{ field: 'name', direction: 'desc' }] }))).ids).toEqual(['k-7', 'k-3'])
    // values set apart from the documents (usage figures) change answers too
    idx.setNumbers('views_total', new Map([['k-3', 5]]), 0)
    expect((await idx.search(req('tags:odd', { sort: [{ field: 'views_total', direction: 'desc' }] }))).ids).toEqual(['k-3', 'k-7'])
    idx.setNumbers('views_total', new Map([['k-7', 9]]), 0)
    expect((await idx.search(req('tags:odd', { sort: [{ field: 'views_total', direction: 'desc' }] }))).ids).toEqual(['k-7', 'k-3'])
  })
})
