// Workers: rate-limit counters shared by every isolate (service.ratelimit.*), one Durable Object
// per counted key (caller and class: wrangler.toml RATE_LIMITER). An object keeps its windows in
// memory: an evicted object (idle past its window) starts from zero, which loses nothing that a
// fixed window would still count.
import type { RateLimitStore } from '../context'
import type { ShardNamespace } from './worker-search'

/** The store a request uses: a stub made per call (stubs belong to the request that made them). */
export function durableRateLimitStore(ns: ShardNamespace): RateLimitStore {
  return {
    async hit(key, windowStart, seconds) {
      const stub = ns.get(ns.idFromName(key))
      const res = await stub.fetch('https://rate-limit/hit', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ end: windowStart + seconds }),
      })
      if (!res.ok) throw new Error(`rate limiter answered ${res.status}`)
      return Number(((await res.json()) as { count: number }).count)
    },
  }
}

/** The Durable Object's logic: a count per window end, the ended windows dropped. */
export class RateCounter {
  private readonly counts = new Map<number, number>()

  async handle(req: Request): Promise<Response> {
    const { end } = (await req.json()) as { end: number }
    if (!Number.isFinite(end)) return new Response('bad window', { status: 400 })
    const now = Date.now() / 1000
    for (const e of this.counts.keys()) if (e <= now && e !== end) this.counts.delete(e)
    const count = (this.counts.get(end) ?? 0) + 1
    this.counts.set(end, count)
    return Response.json({ count })
  }
}
