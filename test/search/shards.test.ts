// The index split into shards (src/search/shards.ts) answers every search exactly as the whole
// index does: the same ids in the same order, count, facets and cursors, relevance included (two
// phases with the whole index's statistics), at 1, 2 and 8 shards, with visibility applied.
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { indexDocument } from '../../src/search/document'
import type { PhraseChecker, SearchHits, SearchRequest, Visibility } from '../../src/search/index'
import { MemoryIndex } from '../../src/search/minisearch'
import { parseFilter, parseQ } from '../../src/search/query'
import { searchShards, shardOf, type ShardClient, type ShardRequest } from '../../src/search/shards'
import { parseSort } from '../../src/search/sort'

const opts = { siteId: 's', vocabularyName: () => undefined, extraResourceFields: [] }
const WORDS = ['water', 'quality', 'river', 'rivers', 'air', 'pollution', 'budget', 'school', 'health', 'data', 'map', 'transport', 'bus', 'rail', 'energy', 'solar', 'wind', 'census']
const ORGS = ['org-a', 'org-b', 'org-c']
const FORMATS = ['CSV', 'JSON', 'PDF', 'XLSX', 'GeoJSON']
const TAGS = ['environment', 'economy', 'education', 'health', 'mobility', 'open']

/** A small deterministic random source (the corpus is the same on every run). */
function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

type Dict = Record<string, unknown>

function corpus(n: number): Dict[] {
  const r = rng(42)
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS)).join(' ')
  const out: Dict[] = []
  for (let i = 0; i < n; i++) {
    const org = r() < 0.85 ? pick(ORGS) : null
    const state = r() < 0.05 ? 'deleted' : r() < 0.05 ? 'draft' : 'active'
    const day = String(1 + Math.floor(r() * 28)).padStart(2, '0')
    out.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: `dataset-${i}`,
      title: i % 7 === 0 ? 'Water quality' : `${words(2)} ${i % 3 ? '' : 'river'}`.trim(),
      notes: words(3 + Math.floor(r() * 12)),
      type: 'dataset',
      state,
      private: org !== null && r() < 0.2,
      owner_org: org,
      creator_user_id: pick(['u1', 'u2']),
      organization: org ? { name: org, title: org.toUpperCase() } : null,
      tags: Array.from(new Set(Array.from({ length: Math.floor(r() * 3) }, () => pick(TAGS)))).map((name) => ({ name })),
      groups: r() < 0.3 ? [{ name: 'g1' }] : [],
      resources: Array.from({ length: Math.floor(r() * 3) }, () => ({ format: pick(FORMATS), name: words(1), description: words(2) })),
      extras: r() < 0.3 ? [{ key: 'frequency', value: pick(['daily', 'weekly', 'monthly']) }] : [],
      license_id: pick(['cc-by', 'odc-odbl', 'other-open']),
      metadata_created: `2024-01-${day}T10:00:00.000000`,
      metadata_modified: `2024-02-${day}T${String(Math.floor(r() * 24)).padStart(2, '0')}:00:00.000000`,
      num_resources: 0,
      num_tags: 0,
    })
  }
  return out
}

/** The phrase check against the datasets themselves, as the service does through the database. */
function checkerFor(dicts: Map<string, Dict>): PhraseChecker {
  return async (ids, field, leaf) => {
    const ok = new Set<string>()
    const words = leaf.text.toLowerCase().split(/\s+/).filter(Boolean)
    for (const id of ids) {
      const d = dicts.get(id)!
      const text = String(field === 'title' ? d.title : `${d.title} ${d.notes}`).toLowerCase()
      if (text.includes(words.join(' '))) ok.add(id)
    }
    return ok
  }
}

let dicts: Dict[]
let whole: MemoryIndex
let checker: PhraseChecker
const splits = new Map<number, ShardClient[]>()

beforeAll(() => {
  dicts = corpus(600)
  const docs = dicts.map((d) => indexDocument(d, opts))
  checker = checkerFor(new Map(dicts.map((d) => [String(d.id), d])))
  whole = MemoryIndex.build(docs)
  for (const n of [1, 2, 8]) {
    const parts: MemoryIndex[] = Array.from({ length: n }, () => new MemoryIndex())
    // the shards are grown document by document, the whole index in bulk: text segments differ
    for (const d of docs) parts[shardOf(d.id, n)]!.put(d)
    splits.set(
      n,
      parts.map((idx) => ({
        collectStats: (req: ShardRequest) => idx.collectStats(req),
        // a structured clone on the way, as a Durable Object's RPC would make
        search: async (req: ShardRequest) => structuredClone(await idx.search({ ...structuredClone(req), phraseChecker: checker })),
      })),
    )
  }
})

const PUBLIC: Visibility = { states: ['active'], excludeStates: ['deleted'], includePrivate: false, labels: ['public'] }
const MEMBER: Visibility = { states: ['active', 'draft'], includePrivate: true, labels: ['public', 'member-org-b', 'creator-u1'] }
const SYSADMIN: Visibility = { states: null, excludeStates: ['deleted'], includePrivate: true, labels: null }

interface Ask {
  q?: string
  fq?: string[]
  sort?: string
  start?: number
  rows?: number
  facets?: string[]
  limit?: number
  mincount?: number
  visibility?: Visibility
}

function request(a: Ask): SearchRequest {
  return {
    q: parseQ(a.q ?? ''),
    filters: (a.fq ?? []).map((f) => parseFilter(f)),
    visibility: a.visibility ?? PUBLIC,
    sort: parseSort(a.sort ?? 'score desc, metadata_modified desc'),
    start: a.start ?? 0,
    rows: a.rows ?? 10,
    ...(a.facets ? { facet: { fields: a.facets, limit: a.limit ?? 50, mincount: a.mincount ?? 1 } } : {}),
  }
}

async function both(a: Ask, n: number): Promise<[SearchHits, SearchHits]> {
  const req = request(a)
  const one = await whole.search({ ...req, phraseChecker: checker })
  const many = await searchShards(splits.get(n)!, req)
  return [one, many]
}

const ASKS: Ask[] = [
  { q: '' },
  { q: 'water' },
  { q: 'water quality', facets: ['organization', 'tags', 'res_format', 'license_id'] },
  { q: 'river OR rivers', sort: 'score desc, name asc', rows: 25 },
  { q: '"water quality"' },
  { q: 'title:"water quality"', visibility: SYSADMIN },
  { q: 'air pollution -wind', start: 5, rows: 7 },
  { q: 'tags:health', fq: ['res_format:CSV'], facets: ['tags'], limit: 2 },
  { q: 'solar~1 wind*', visibility: MEMBER },
  { q: 'budget^3 school', facets: ['organization'], mincount: 5 },
  { q: 'name:dataset-1*', sort: 'name desc', rows: 15 },
  { fq: ['organization:org-a'], sort: 'metadata_modified desc', rows: 20, start: 40 },
  { fq: ['metadata_modified:[2024-02-10T00:00:00Z TO *]'], sort: 'metadata_created asc, name desc', visibility: SYSADMIN },
  { q: 'frequency:weekly', facets: ['frequency'] },
  { q: 'data', sort: 'title_string asc', rows: 50, facets: ['license_id', 'groups'], visibility: MEMBER },
  { q: 'census OR energy OR transport', rows: 0, facets: ['res_format'] },
  { q: 'water', start: 590, rows: 20 },
]

describe('an index in shards answers as the whole index', () => {
  for (const n of [1, 2, 8])
    it(`at ${n} shard${n > 1 ? 's' : ''}: ids, order, count, facets and cursors of every search`, async () => {
      for (const a of ASKS) {
        const [one, many] = await both(a, n)
        expect(many, JSON.stringify(a)).toEqual(one)
      }
    })

  it('spreads datasets over the shards and keeps each where it was', () => {
    const counts = new Array(8).fill(0)
    for (const d of dicts) counts[shardOf(String(d.id), 8)]++
    for (const c of counts) expect(c).toBeGreaterThan(600 / 8 / 2)
    expect(shardOf('a-fixed-id', 8)).toBe(shardOf('a-fixed-id', 8))
    expect(shardOf('dataset-1', 1)).toBe(0)
  })

  it('follows a cursor through every page the same way', async () => {
    for (const n of [2, 8]) {
      const pages: string[][] = [[], []]
      for (const [k, run] of [
        [0, (req: SearchRequest) => whole.search({ ...req, phraseChecker: checker })],
        [1, (req: SearchRequest) => searchShards(splits.get(n)!, req)],
      ] as const) {
        let after: SearchHits['last'] | undefined
        for (let page = 0; page < 100; page++) {
          const req = { ...request({ q: 'water OR river OR data', rows: 13 }), ...(after ? { after } : {}) }
          const hits = await run(req)
          pages[k]!.push(...hits.ids)
          if (!hits.last) break
          after = hits.last
        }
      }
      expect(pages[1]).toEqual(pages[0])
      expect(new Set(pages[0]).size).toBe(pages[0]!.length)
    }
  })

  it('agrees on random searches', async () => {
    const word = fc.constantFrom(...WORDS, ...TAGS)
    const clause = fc.oneof(
      word,
      word.map((w) => `${w}*`),
      fc.tuple(word, word).map(([a, b]) => `"${a} ${b}"`),
      word.map((w) => `tags:${w}`),
      word.map((w) => `-${w}`),
      fc.constantFrom(...FORMATS).map((f) => `res_format:${f}`),
    )
    const ask = fc.record({
      q: fc.array(clause, { maxLength: 4 }).map((cs) => cs.join(' ')),
      fq: fc.array(fc.constantFrom('organization:org-a', 'license_id:cc-by', 'groups:g1', '-tags:open', 'num_resources:[1 TO *]'), { maxLength: 2 }),
      sort: fc.constantFrom('score desc, metadata_modified desc', 'name asc', 'metadata_modified desc', 'title_string desc, score desc'),
      start: fc.nat(40),
      rows: fc.integer({ min: 0, max: 30 }),
      facets: fc.constantFrom(undefined, ['tags', 'organization'], ['res_format']),
      visibility: fc.constantFrom(PUBLIC, MEMBER, SYSADMIN),
    })
    await fc.assert(
      fc.asyncProperty(ask, fc.constantFrom(2, 8), async (a, n) => {
        const [one, many] = await both(a as Ask, n)
        expect(many).toEqual(one)
      }),
      { numRuns: 150, seed: 20261127 },
    )
  })
})

describe('automatic shard count', () => {
  it('keeps small catalogues in the isolate, then picks the smallest power of two under the heap budget', async () => {
    const { autoShardCount, configuredShards, BYTES_PER_DATASET, OBJECT_BASE_MB } = await import('../../src/search/shard-plan')
    const { loadConfig } = await import('../../src/config/load')
    const config = loadConfig({})
    expect(configuredShards(config)).toBeNull()
    expect(configuredShards(loadConfig({ 'ckan.search.shards': '4' }))).toBe(4)
    expect(configuredShards(loadConfig({ 'ckan.search.shards': '0' }))).toBe(0)
    const perShard = Math.floor(((64 - OBJECT_BASE_MB) * 2 ** 20) / BYTES_PER_DATASET)
    expect(autoShardCount(0, config)).toBe(0)
    expect(autoShardCount(10_000, config)).toBe(0)
    expect(autoShardCount(10_001, config)).toBe(2)
    expect(autoShardCount(2 * perShard, config)).toBe(2)
    expect(autoShardCount(2 * perShard + 1, config)).toBe(4)
    expect(autoShardCount(100_000, config)).toBe(4)
    expect(autoShardCount(300_000, config)).toBe(16)
    // a smaller budget: more shards
    expect(autoShardCount(100_000, loadConfig({ 'ckan.search.shard_heap_mb': '32' }))).toBe(16)
  })
})
