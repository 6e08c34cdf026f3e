// Workers' search tier: the index in Durable Objects (the SEARCH_SHARD binding). Each object is one
// shard (the datasets src/search/shards.ts shardOf puts there), kept in step with the change log
// by a MemorySearchService of its own; a Worker isolate holds no index and fans each
// package_search out to every shard (ShardedSearchService), one round trip each in parallel, two
// when relevance needs the whole index's statistics. Writes never talk to a shard: a shard applies
// the change log before it answers, so one that missed changes (or lost its memory) catches up by
// itself.
import type { Deps } from '../context'
import { MemorySearchService } from '../search/service'
import { ShardedSearchService, type ShardClient, type ShardRequest } from '../search/shards'
import type { SearchHits } from '../search/index'
import { SearchTimeout } from '../search/budget'

/** The parts of a Durable Object namespace binding used here (a structural type). */
export interface ShardNamespace {
  idFromName(name: string): unknown
  get(id: unknown): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** Which shard of how many: every request names it, so an object needs no setup of its own. */
export interface ShardName {
  index: number
  of: number
}

type Io = Omit<Deps, 'search'>

/** The object a shard of `of` lives in (a new count is a new set of objects: see the note below). */
export const shardObjectName = (s: ShardName) => `search-${s.of}-${s.index}`

async function ask<T>(ns: ShardNamespace, s: ShardName, op: 'stats' | 'search', request: ShardRequest): Promise<T> {
  const stub = ns.get(ns.idFromName(shardObjectName(s)))
  const res = await stub.fetch(`https://search-shard/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ shard: s, request }),
  })
  const body = (await res.json()) as { ok: T } | { error: string; timeout?: boolean }
  if ('ok' in body) return body.ok
  // the request's time ran out in the shard: the caller answers as for its own timeout
  if (body.timeout) throw new SearchTimeout()
  throw new Error(`search shard ${s.index} of ${s.of}: ${body.error}`)
}

/**
 * The Worker's search with the index in `of` Durable Objects: clients are made per request (a
 * stub belongs to the request that made it).
 */
export function shardedSearch(ns: ShardNamespace, of: number): ShardedSearchService {
  return new ShardedSearchService(() =>
    Array.from({ length: of }, (_, index): ShardClient => ({
      collectStats: (req) => ask<Record<string, number>>(ns, { index, of }, 'stats', req),
      search: (req) => ask<SearchHits>(ns, { index, of }, 'search', req),
    })),
  )
}

/**
 * The shard's side: one per Durable Object. `services` gives the isolate's shared services (the
 * change feed the index follows) and a request's own I/O, as the Worker builds them for its
 * requests.
 */
export class ShardHost {
  private service: MemorySearchService | null = null
  private name: ShardName | null = null

  constructor(
    private readonly services: () => { shared: Io; forRequest: () => Promise<Io> },
  ) {}

  async handle(req: Request): Promise<Response> {
    let body: { shard: ShardName; request: ShardRequest }
    try {
      body = (await req.json()) as typeof body
    } catch {
      return Response.json({ error: 'bad request' }, { status: 400 })
    }
    const op = new URL(req.url).pathname.slice(1)
    try {
      const { shared, forRequest } = this.services()
      const io = await forRequest()
      const index = await this.serviceFor(shared, body.shard).through(io).ready()
      const ok = op === 'stats' ? await index.collectStats!(body.request) : await index.search(body.request)
      return Response.json({ ok })
    } catch (e) {
      const timeout = e instanceof SearchTimeout
      return Response.json({ error: e instanceof Error ? e.message : String(e), timeout }, { status: timeout ? 503 : 500 })
    }
  }

  private serviceFor(shared: Io, name: ShardName): MemorySearchService {
    if (!this.service || this.name?.index !== name.index || this.name.of !== name.of) {
      this.service = new MemorySearchService(shared, { perRequest: true, snapshots: false, shard: name })
      this.name = name
    }
    return this.service
  }
}
