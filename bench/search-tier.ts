// Benchmark: package_search on the Worker (workerd via Miniflare, wrangler's bundle) against sqld,
// with the index in every isolate (service.search.shards = 0) and in 2 and 4 Durable Objects,
// beside the Node server on the same sqld. Per catalogue size: the first search of a new isolate
// (its index or its shards cold), warm p50/p99 of the search benchmark's query mix from one
// client, and the throughput of 4 clients. BENCH_TIER_SIZES (10000), BENCH_TIER_SHARDS (2,4).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Miniflare } from 'miniflare'
import { bulkFill } from './lib/bulk-fill'
import { queryMix } from './lib/search-queries'
import { startServer } from './lib/server'
import { clientExecutor } from '../src/db/executor'
import { loadConfig } from '../src/config/load'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
// @ts-expect-error: plain ESM script without types
import { startSqld } from '../scripts/sqld.mjs'
import { TEST_PROFILE } from '../test/helpers/setup'
import { bundleWorker, workerIsolate } from '../test/worker/harness'

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
  return { p50: pct(ms, 0.5), p99: pct(ms, 0.99), rps: done / (THROUGHPUT_MS / 1000) }
}

const viaWorker = (mf: Miniflare): Ask => async (body) => {
  const res = await mf.dispatchFetch('http://localhost/api/3/action/package_search', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const json = (await res.json()) as { success: boolean }
  if (!json.success) throw new Error(`package_search failed: ${JSON.stringify(json).slice(0, 300)}`)
}

const viaHttp = (url: string): Ask => async (body) => {
  const res = await fetch(`${url}/api/3/action/package_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const json = (await res.json()) as { success: boolean }
  if (!json.success) throw new Error(`package_search failed: ${JSON.stringify(json).slice(0, 300)}`)
}

export interface TierRow {
  datasets: number
  label: string
  /** ms to the first answer of a new isolate (and, for shards, new objects). */
  first: number
  /** The same with the objects loading their snapshots (shards only). */
  firstFromSnapshots?: number
  p50: number
  p99: number
  rps: number
}

export async function searchTierBench(): Promise<TierRow[]> {
  const sizes = (process.env.BENCH_TIER_SIZES ?? '10000').split(',').map((s) => Number(s.trim()))
  const shardCounts = (process.env.BENCH_TIER_SHARDS ?? '2,4').split(',').map((s) => Number(s.trim()))
  const rows: TierRow[] = []
  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-tier-'))
    const sqld = (await startSqld({ dbPath: join(dir, 'catalogue.sqld') })) as { url: string; stop(): Promise<void> }
    try {
      const opened = await openCatalogDb(sqld.url)
      const config = loadConfig(TEST_PROFILE)
      const admin = await addSysadmin(buildDeps(config, opened.db), 'admin')
      const fill = await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), n, { adminId: admin.id, seed: 7, orgCount: ORGS })
      // the isolate-local index's snapshot, as a Node server leaves it in the database
      const deps = buildDeps(config, opened.db)
      await warmUp(deps)
      await deps.search.writeSnapshot()
      deps.search.stop()
      opened.close()
      console.log(`  ${n} datasets filled into sqld in ${fill.seconds.toFixed(1)} s`)
      const script = bundleWorker(dir)
      const bodies = queryMix(40, { seed: 1, corpusSeed: 7, orgCount: ORGS }).map((q) => JSON.stringify(q.body))
      const bindings = { ...TEST_PROFILE, DATABASE_URL: sqld.url }
      for (const shards of [0, ...shardCounts]) {
        const label = shards ? `${shards} Durable Objects` : 'index in the isolate'
        const persist = join(dir, `objects-${shards}`)
        const mf = await workerIsolate(script, { ...bindings, SERVICE__SEARCH__SHARDS: String(shards) }, { durableObjectsPersist: persist })
        const ask = viaWorker(mf)
        let t = performance.now()
        await ask(bodies[0]!)
        const first = performance.now() - t
        const m = await measure(ask, bodies)
        await mf.dispose()
        let firstFromSnapshots: number | undefined
        if (shards) {
          // new objects of the same storage: they load the snapshots the first ones wrote
          const again = await workerIsolate(script, { ...bindings, SERVICE__SEARCH__SHARDS: String(shards) }, { durableObjectsPersist: persist })
          t = performance.now()
          await viaWorker(again)(bodies[1]!)
          firstFromSnapshots = performance.now() - t
          await again.dispose()
        }
        rows.push({ datasets: n, label, first, ...(firstFromSnapshots !== undefined ? { firstFromSnapshots } : {}), ...m })
        console.log(`  ${label}: first ${first.toFixed(0)} ms${firstFromSnapshots !== undefined ? ` (${firstFromSnapshots.toFixed(0)} ms from snapshots)` : ''}, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, 4 clients ${m.rps.toFixed(0)} req/s`)
      }
      const node = await startServer({ DATABASE_URL: sqld.url, DATASTORE_URL: `file:${join(dir, 'datastore.db')}` })
      try {
        const ask = viaHttp(node.url)
        const t = performance.now()
        await ask(bodies[0]!)
        const first = performance.now() - t
        const m = await measure(ask, bodies)
        rows.push({ datasets: n, label: 'Node server on the same sqld', first, ...m })
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
