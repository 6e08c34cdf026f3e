// Benchmark: package_search on the Worker (workerd itself, wrangler's bundle) against sqld, with
// the index in every isolate (service.search.shards = 0) and in 2 and 4 Durable Objects (in an
// isolate of their own), beside the Node server on the same sqld. Per catalogue size: the first
// search of a new isolate with its index or its objects cold, the first search of a new isolate
// while the objects are warm, warm p50/p99 of the search benchmark's query mix from one client,
// the throughput of 4 clients, and the shard requests each search makes (counted by the objects).
// BENCH_TIER_SIZES (10000), BENCH_TIER_SHARDS (2,4).
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { filledSqld } from './lib/sqld-fill'
import { queryMix } from './lib/search-queries'
import { startServer } from './lib/server'
import { TEST_PROFILE } from '../test/helpers/setup'
import { bundleWorker } from '../test/worker/harness'
import { startWorkerd, type Workerd } from '../test/worker/workerd'

const SEQUENTIAL = 300
const THROUGHPUT_MS = 6000
const ORGS = 200

type Ask = (body: string) => Promise<void>

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!

async function measure(ask: Ask, bodies: string[]) {
  for (let i = 0; i < 30; i++) await ask(bodies[i % bodies.length]!)
  const ms: number[] = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const t = performance.now()
    await ask(bodies[i % bodies.length]!)
    ms.push(performance.now() - t)
  }
  let done = 0
  const until = performance.now() + THROUGHPUT_MS
  await Promise.all(
    Array.from({ length: 4 }, async (_, c) => {
      for (let i = c; performance.now() < until; i += 4) {
        await ask(bodies[i % bodies.length]!)
        done++
      }
    }),
  )
  // asked: every search sent (warm-up, sequential, 4 clients), for the shard requests per search
  return { p50: pct(ms, 0.5), p99: pct(ms, 0.99), rps: done / (THROUGHPUT_MS / 1000), asked: 30 + SEQUENTIAL + done }
}

const viaHttp = (url: string): Ask => async (body) => {
  const res = await fetch(`${url}/api/3/action/package_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const json = (await res.json()) as { success: boolean }
  if (!json.success) throw new Error(`package_search failed: ${JSON.stringify(json).slice(0, 300)}`)
}

export interface TierRow {
  datasets: number
  label: string
  /** ms to the first answer of a new isolate (and, for shards, of objects that build their shards). */
  first: number
  /** The same with the objects loading their snapshots (shards only). */
  firstFromSnapshots?: number
  /** A new isolate's first answer with the objects warm (the median of three isolates). */
  coldIsolate: number
  p50: number
  p99: number
  rps: number
  /** Shard requests per search, and how many of them wait on each other (rounds). */
  shardRequests?: number
  rounds?: number
}

type Status = { served: { stats: number; search: number } }

/** Every shard's answered requests (stats + search) so far. */
async function servedBy(w: Workerd, of: number) {
  const all = await Promise.all(Array.from({ length: of }, (_, index) => w.shard<Status>({ index, of }, 'status')))
  return all.reduce((n, s) => n + s.served.stats + s.served.search, 0)
}

export async function searchTierBench(): Promise<TierRow[]> {
  const sizes = (process.env.BENCH_TIER_SIZES ?? '10000').split(',').map((s) => Number(s.trim()))
  const shardCounts = (process.env.BENCH_TIER_SHARDS ?? '2,4').split(',').map((s) => Number(s.trim()))
  const rows: TierRow[] = []
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-tier-'))
    // with the isolate-local index's snapshot, as a Node server leaves it in the database
    const sqld = await filledSqld(join(dir, 'catalogue.sqld'), n, { seed: 7, orgCount: ORGS, searchSnapshot: true })
    const fill = sqld.fill
    try {
      console.log(`  ${n} datasets filled into sqld's file in ${fill.seconds.toFixed(1)} s`)
      const script = bundleWorker(dir)
      const bodies = queryMix(40, { seed: 1, corpusSeed: 7, orgCount: ORGS }).map((q) => JSON.stringify(q.body))
      for (const shards of [0, ...shardCounts]) {
        const label = shards ? `${shards} Durable Objects` : 'index in the isolate'
        const opts = {
          dir: join(dir, `workerd-${shards}`),
          script,
          bindings: { ...TEST_PROFILE, DATABASE_URL: sqld.url, SERVICE__SEARCH__SHARDS: String(shards) },
          isolates: 3,
        }
        mkdirSync(opts.dir)
        let w = await startWorkerd(opts)
        try {
          let t = performance.now()
          await viaHttp(w.base)(bodies[0]!)
          const first = performance.now() - t
          const before = shards ? await servedBy(w, shards) : 0
          const m = await measure(viaHttp(w.base), bodies)
          const requests = shards ? ((await servedBy(w, shards)) - before) / m.asked : undefined
          const cold: number[] = []
          for (const url of w.more) {
            t = performance.now()
            await viaHttp(url)(bodies[2]!)
            cold.push(performance.now() - t)
          }
          let firstFromSnapshots: number | undefined
          if (shards) {
            // a new process on the same object storage: the objects load the snapshots they wrote
            await w.stop()
            w = await startWorkerd(opts)
            t = performance.now()
            await viaHttp(w.base)(bodies[1]!)
            firstFromSnapshots = performance.now() - t
          }
          const row: TierRow = {
            datasets: n,
            label,
            first,
            ...(firstFromSnapshots !== undefined ? { firstFromSnapshots } : {}),
            coldIsolate: pct(cold, 0.5),
            p50: m.p50,
            p99: m.p99,
            rps: m.rps,
            ...(requests !== undefined ? { shardRequests: requests, rounds: requests / shards } : {}),
          }
          rows.push(row)
          console.log(
            `  ${label}: first ${first.toFixed(0)} ms${firstFromSnapshots !== undefined ? ` (${firstFromSnapshots.toFixed(0)} ms from snapshots)` : ''}, ` +
              `new isolate ${row.coldIsolate.toFixed(0)} ms, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, 4 clients ${m.rps.toFixed(0)} req/s` +
              (requests !== undefined ? `, ${requests.toFixed(2)} shard requests per search (${(requests / shards).toFixed(2)} rounds)` : ''),
          )
        } finally {
          await w.stop()
        }
      }
      const node = await startServer({ DATABASE_URL: sqld.url, DATASTORE_URL: `file:${join(dir, 'datastore.db')}` })
      try {
        const ask = viaHttp(node.url)
        const t = performance.now()
        await ask(bodies[0]!)
        const first = performance.now() - t
        const m = await measure(ask, bodies)
        rows.push({ datasets: n, label: 'Node server on the same sqld', first, coldIsolate: first, ...m })
        console.log(`  Node server on the same sqld: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, 4 clients ${m.rps.toFixed(0)} req/s`)
      } finally {
        await node.stop()
      }
    } finally {
      await sqld.stop()
    }
  }
  return rows
}
