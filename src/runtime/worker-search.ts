// Workers' search tier: the index in Durable Objects (the SEARCH_SHARD binding). Each object is one
// shard (the datasets src/search/shards.ts shardOf puts there), kept in step with the change log
// by a MemorySearchService of its own; a Worker isolate holds no index and fans each
// package_search out to every shard (ShardedSearchService), one round trip each in parallel, two
// when relevance needs the whole index's statistics. Writes never talk to a shard: a shard applies
// the change log before it answers, so one that missed changes (or lost its memory) catches up by
// itself.
import type { Deps } from '../context'
import { MemorySearchService, type SnapshotStore } from '../search/service'
import { ShardedSearchService, type ShardClient, type ShardRequest } from '../search/shards'
import type { SearchHits } from '../search/index'
import { SearchTimeout } from '../search/budget'

/** The parts of a Durable Object namespace binding used here (a structural type). */
export interface ShardNamespace {
  idFromName(name: string): unknown
  get(id: unknown): { fetch(input: string, init?: RequestInit): Promise<Response> }
}

/** The parts of a Durable Object's state used here (structural: SQLite-backed storage). */
export interface ShardState {
  storage: {
    sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] } }
    transactionSync<T>(fn: () => T): T
  }
  waitUntil?(p: Promise<unknown>): void
}

/** A Durable Object's SQLite storage holds 2 MB a value: snapshots go in 1 MB chunks. */
const CHUNK = 1024 * 1024

/**
 * The shard's snapshot in its own storage (SQLite-backed Durable Object storage): read when the
 * object starts cold, then only the change log after it is applied. Chosen over R2 because a shard
 * of the default size (at most 64 MB of heap; its snapshot is about as big as its heap) fits in
 * the object's storage, which is read in the object's own process without a network round trip.
 */
export function shardSnapshotStore(state: ShardState): SnapshotStore & { stored(): { seq: number; bytes: number } | null } {
  const sql = state.storage.sql
  sql.exec('CREATE TABLE IF NOT EXISTS search_snapshot (chunk INTEGER PRIMARY KEY, seq INTEGER NOT NULL, data BLOB NOT NULL)')
  return {
    async read() {
      const rows = sql.exec('SELECT chunk, seq, data FROM search_snapshot ORDER BY chunk').toArray()
      if (!rows.length) return null
      const seq = Number(rows[0]!.seq)
      if (rows.some((r, i) => Number(r.chunk) !== i || Number(r.seq) !== seq)) return null
      const parts = rows.map((r) => new Uint8Array(r.data as ArrayBuffer))
      const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
      let at = 0
      for (const p of parts) {
        bytes.set(p, at)
        at += p.length
      }
      return { seq, bytes }
    },
    /** What is stored, without reading it: the seq it covers and its size. */
    stored() {
      const [r] = sql.exec('SELECT MIN(seq) AS seq, COUNT(*) AS chunks, SUM(LENGTH(data)) AS bytes FROM search_snapshot').toArray()
      return r && Number(r.chunks) > 0 ? { seq: Number(r.seq), bytes: Number(r.bytes) } : null
    },
    async write(_io, seq, bytes) {
      state.storage.transactionSync(() => {
        sql.exec('DELETE FROM search_snapshot')
        for (let i = 0, chunk = 0; i < bytes.length; i += CHUNK, chunk++)
          sql.exec('INSERT INTO search_snapshot (chunk, seq, data) VALUES (?, ?, ?)', chunk, seq, bytes.slice(i, i + CHUNK).buffer)
      })
    },
  }
}

/** Which shard of how many: every request names it, so an object needs no setup of its own. */
export interface ShardName {
  index: number
  of: number
}

type Io = Omit<Deps, 'search'>

/** The object a shard of `of` lives in (a new count is a new set of objects: see the note below). */
export const shardObjectName = (s: ShardName) => `search-${s.of}-${s.index}`

async function ask<T>(ns: ShardNamespace, s: ShardName, op: 'stats' | 'search' | 'status', request: ShardRequest | Record<string, never>): Promise<T> {
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

/** A shard's state, after it has loaded (or built) its index and caught up with the log. */
export const shardStatus = (ns: ShardNamespace, s: ShardName) => ask<ShardStatus>(ns, s, 'status', {})

/** A shard's answer to `status`. */
export interface ShardStatus {
  shard: ShardName
  datasets: number
  /** Where its index came from when the object started: its snapshot or the datasets. */
  loadedFrom: string | null
  /** The change-log seq its index covers. */
  seq: number
  /** Its stored snapshot (the seq it covers, its bytes), null when none is stored. */
  snapshot: { seq: number; bytes: number } | null
  /** The requests this object has answered since it started, by op. */
  served: { stats: number; search: number }
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
  private readonly store: ReturnType<typeof shardSnapshotStore> | null
  private readonly served = { stats: 0, search: 0 }

  constructor(
    private readonly services: () => { shared: Io; forRequest: () => Promise<Io> },
    /** The object's state: its snapshot lives in its storage (none: snapshots are not kept). */
    private readonly state?: ShardState,
  ) {
    this.store = state ? shardSnapshotStore(state) : null
  }

  async handle(req: Request): Promise<Response> {
    let body: { shard: ShardName; request: ShardRequest }
    try {
      body = (await req.json()) as typeof body
    } catch {
      return Response.json({ error: 'bad request' }, { status: 400 })
    }
    const op = new URL(req.url).pathname.slice(1)
    // forget the index in memory, as an evicted or restarted object does (the next search loads
    // the snapshot and catches up): for operators, and for tests of that path
    if (op === 'reset') {
      this.service?.stop()
      this.service = null
      this.name = null
      return Response.json({ ok: true })
    }
    if (op !== 'stats' && op !== 'search' && op !== 'status') return Response.json({ error: `no op ${op}` }, { status: 404 })
    try {
      const { shared, forRequest } = this.services()
      const io = await forRequest()
      const service = this.serviceFor(shared, body.shard)
      const view = service.through(io)
      const index = await view.ready()
      if (op !== 'status') this.served[op]++
      const ok =
        op === 'stats'
          ? await index.collectStats!(body.request)
          : op === 'status'
            ? ({ shard: body.shard, datasets: index.size, loadedFrom: service.loadedFrom, seq: service.seq, snapshot: this.store?.stored() ?? null, served: { ...this.served } } satisfies ShardStatus)
            : await index.search(body.request)
      // a snapshot after a build from the datasets or many changes: written to the object's own
      // storage once the answer has gone (no I/O of the request's is used)
      if (service.snapshotDue) {
        const writing = view.writeSnapshot().catch((e: unknown) => console.error('search shard snapshot failed', e))
        this.state?.waitUntil?.(writing)
      }
      return Response.json({ ok })
    } catch (e) {
      const timeout = e instanceof SearchTimeout
      return Response.json({ error: e instanceof Error ? e.message : String(e), timeout }, { status: timeout ? 503 : 500 })
    }
  }

  private serviceFor(shared: Io, name: ShardName): MemorySearchService {
    if (!this.service || this.name?.index !== name.index || this.name.of !== name.of) {
      this.service?.stop()
      this.service = new MemorySearchService(shared, {
        perRequest: true,
        shard: name,
        ...(this.store ? { snapshotStore: this.store } : { snapshots: false }),
      })
      this.name = name
    }
    return this.service
  }
}
