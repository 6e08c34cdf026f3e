// The search index split into shards by a stable hash of the dataset id (Workers' search tier in
// Durable Objects): which shard holds a dataset, and one search over every shard answered exactly
// as the whole index would answer it.
//
// Relevance: a two-phase query. When the answer depends on statistics of the whole index (a sort
// by score, or a phrase check whose candidates are counted over the whole index), every shard
// first counts its own (MemoryIndex.collectStats), the sums go back with the search, and each
// shard scores as the whole index (evaluate.ts ScoreStats): the same floating-point inputs in the
// same order, so the same scores. Otherwise one round trip.
//
// Merging: each shard answers its first `start + rows` documents (or `rows` after a cursor) with
// their sort values; the merged page is the first of their union in the same order (ties by id,
// as in rank.ts), `count` is the sum, facets are every shard's full counts summed, then cut to
// `mincount` and `limit` with the single index's order (count, then value).
import { hasCheckedLeaves } from './evaluate'
import type { SearchHits, SearchIndex, SearchRequest, SearchService } from './index'
import type { Deps } from '../context'

/** A request as it crosses to a shard: everything but the per-request phrase checker. */
export type ShardRequest = Omit<SearchRequest, 'phraseChecker'>

/** One shard of the index (a Durable Object on Workers; an in-process index in tests). */
export interface ShardClient {
  collectStats(req: ShardRequest): Promise<Record<string, number>>
  search(req: ShardRequest): Promise<SearchHits>
}

/**
 * The shard a dataset lives in: FNV-1a (32 bits) of the id's UTF-16 code units, modulo the shard
 * count. Stable across processes, runtimes and releases (changing it moves every dataset).
 */
export function shardOf(id: string, shards: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0) % shards
}

/** Whether the answer depends on statistics of the whole index (see the top of this file). */
export function needsGlobalStats(req: ShardRequest): boolean {
  const scoring = req.sort.some((k) => k.field === 'score') && req.q.root.type !== 'all'
  return scoring || hasCheckedLeaves(req.q) || req.filters.some(hasCheckedLeaves)
}

/** Every shard's statistics summed (each key a count or a total over the shard's documents). */
export function sumStats(parts: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const p of parts) for (const [k, v] of Object.entries(p)) out[k] = (out[k] ?? 0) + v
  return out
}

type Tuple = (number | string | null)[]

/** rank.ts's order over sort tuples: each key in its direction, missing values last, then id. */
function compareTuples(req: ShardRequest, a: Tuple, b: Tuple): number {
  const keys = req.sort
  for (let i = 0; i < keys.length; i++) {
    const x = a[i] ?? null
    const y = b[i] ?? null
    if (x === null) {
      if (y !== null) return 1
      continue
    }
    if (y === null) return -1
    if (x === y) continue
    const sign = keys[i]!.direction === 'asc' ? 1 : -1
    return sign * (x < y ? -1 : 1)
  }
  const ia = String(a[keys.length] ?? '')
  const ib = String(b[keys.length] ?? '')
  return ia < ib ? -1 : ia > ib ? 1 : 0
}

/** The shards' answers to one request (each asked for its first start + rows) as one. */
export function mergeHits(req: ShardRequest, parts: SearchHits[]): SearchHits {
  const count = parts.reduce((n, p) => n + p.count, 0)
  const all: Tuple[] = []
  for (const p of parts) for (const t of p.tuples ?? []) all.push(t)
  all.sort((a, b) => compareTuples(req, a, b))
  const start = req.after ? 0 : req.start
  const page = req.rows > 0 ? all.slice(start, start + req.rows) : []
  const idAt = req.sort.length
  const facets: SearchHits['facets'] = {}
  if (req.facet) {
    const { limit, mincount } = req.facet
    for (const field of req.facet.fields) {
      const sums = new Map<string, number>()
      for (const p of parts) for (const [v, c] of p.facets[field] ?? []) sums.set(v, (sums.get(v) ?? 0) + c)
      const pairs = [...sums].filter(([, c]) => c >= Math.max(1, mincount))
      pairs.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      facets[field] = limit < 0 ? pairs : pairs.slice(0, limit)
    }
  }
  const full = page.length === req.rows && req.rows > 0
  return {
    count,
    ids: page.map((t) => String(t[idAt])),
    facets,
    ...(full ? { last: page[page.length - 1]! } : {}),
    ...(req.withTuples ? { tuples: page } : {}),
  }
}

/**
 * One search over every shard, answered as the whole index would answer it: statistics first
 * when relevance or a phrase check needs them, then each shard's first page and facets, merged.
 */
export async function searchShards(shards: ShardClient[], req: ShardRequest): Promise<SearchHits> {
  if (shards.length === 1) return shards[0]!.search(req)
  const globalStats = needsGlobalStats(req)
    ? sumStats(await Promise.all(shards.map((s) => s.collectStats(req))))
    : undefined
  const shardReq: ShardRequest = {
    ...req,
    start: 0,
    rows: req.rows > 0 ? (req.after ? req.rows : req.start + req.rows) : 0,
    withTuples: true,
    ...(globalStats ? { globalStats } : {}),
    ...(req.facet ? { facet: { fields: req.facet.fields, limit: -1, mincount: 1 } } : {}),
  }
  const parts = await Promise.all(shards.map((s) => s.search(shardReq)))
  return mergeHits(req, parts)
}

/**
 * The search a runtime with a sharded index gives its requests (SearchService): each search goes
 * to every shard through the clients `connect` makes for the request's I/O (on Workers: Durable
 * Object stubs, which belong to the request that made them). The shards keep themselves in step
 * with the change log; nothing here holds an index.
 */
export class ShardedSearchService implements SearchService {
  constructor(private readonly connect: (io: Omit<Deps, 'search'> | null) => ShardClient[], private readonly io: Omit<Deps, 'search'> | null = null) {}

  readonly loaded = true

  async ready(): Promise<SearchIndex> {
    const shards = this.connect(this.io)
    const refuse = () => {
      throw new Error('a sharded index changes only through the change log')
    }
    return {
      search: ({ phraseChecker: _checker, ...req }: SearchRequest) => searchShards(shards, req),
      put: refuse,
      remove: refuse,
      has: refuse,
      get size(): number {
        return refuse()
      },
    }
  }

  /** The shards keep their own snapshots. */
  async writeSnapshot() {}
  async flush() {}
  stop() {}

  through(io: Omit<Deps, 'search'>): SearchService {
    return new ShardedSearchService(this.connect, io)
  }
}
