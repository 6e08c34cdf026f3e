// BENCH_ONLY=usage (part of the default run): what counting usage figures costs (issue 35).
// package_show and package_search throughput over HTTP, the same server build on the same catalogue
// with service.tracking_enabled off and on, in rounds of alternating order (off then on, on then
// off, ...: drift and order are shared); every request a new visitor (its own user agent), so each is counted (the costliest
// case). Then the flush: the batched upserts of BENCH_USAGE_FLUSH objects' counts, timed in process
// beside one multi-row INSERT of the same number of rows into a table of the same shape (the
// fastest honest way to write those rows), and the views_recent sort beside metadata_modified.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { loadConfig } from '../src/config/load'
import { clientExecutor } from '../src/db/executor'
import { addSysadmin } from '../src/model/sysadmin'
import { UsageCounter, usageStatements } from '../src/model/usage'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { bulkFill } from './lib/bulk-fill'
import { queryMix } from './lib/search-queries'
import { startServer } from './lib/server'

const DATASETS = Number(process.env.BENCH_USAGE_DATASETS ?? 10_000)
const SECONDS = Number(process.env.BENCH_USAGE_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const FLUSH = Number(process.env.BENCH_USAGE_FLUSH ?? 10_000)
const ROUNDS = Number(process.env.BENCH_USAGE_ROUNDS ?? 3)
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

function rps(url: string, paths: string[], seconds: number): Promise<number> {
  let i = 0
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            setupRequest: (req) => {
              const n = i++
              return { ...req, path: paths[n % paths.length]!, headers: { ...req.headers, 'user-agent': `Mozilla/5.0 (bench visitor ${n})` } }
            },
          },
        ],
      },
      (err, r) => (err ? reject(err) : r.non2xx || r.errors ? reject(new Error(`${r.non2xx} non-2xx, ${r.errors} errors`)) : resolve(r.requests.average)),
    ),
  )
}

export async function usageBench(log: (line: string) => void = console.log) {
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-usage-'))
  try {
    const url = `file:${join(dir, 'catalogue.db')}`
    const opened = await openCatalogDb(url)
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), DATASETS, { adminId: admin.id, orgCount: 100, seed: 7 })
    const names = (await opened.client.execute("SELECT name FROM package WHERE state = 'active' AND private = 0 ORDER BY random() LIMIT 1000")).rows.map((r) => String(r.name))
    opened.client.close()
    const shows = names.map((n) => `/api/3/action/package_show?id=${n}`)
    const searches = queryMix(50, { seed: 3, corpusSeed: 7, orgCount: 100 }).map((q) => `/api/3/action/package_search?${new URLSearchParams(Object.entries(q.body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`)
    log(`${fmt(DATASETS)} datasets; ${CONNECTIONS} connections, ${SECONDS} s a round, every request a new visitor`)

    // a discarded round first: the first server of a run meets cold caches (file pages, the JIT)
    {
      const server = await startServer({ DATABASE_URL: url, SERVICE__JOBS__CONCURRENCY: '0' })
      try {
        await rps(server.url, searches, 3)
        await rps(server.url, shows, 3)
      } finally {
        await server.stop()
      }
    }
    const figures: Record<'off' | 'on', { show: number[]; search: number[] }> = { off: { show: [], search: [] }, on: { show: [], search: [] } }
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const server = await startServer({ DATABASE_URL: url, SERVICE__TRACKING_ENABLED: mode === 'on' ? 'true' : 'false', SERVICE__JOBS__CONCURRENCY: '0' })
        try {
          await rps(server.url, searches, 2) // warm: the index loaded, dicts cached
          await rps(server.url, shows, 2)
          figures[mode].show.push(await rps(server.url, shows, SECONDS))
          figures[mode].search.push(await rps(server.url, searches, SECONDS))
        } finally {
          await server.stop()
        }
      }
      log(`round ${round + 1}: package_show off ${fmt(figures.off.show[round]!)} / on ${fmt(figures.on.show[round]!)} req/s; package_search off ${fmt(figures.off.search[round]!)} / on ${fmt(figures.on.search[round]!)} req/s`)
    }
    // medians of the rounds: one disturbed round moves a mean by a third of its disturbance
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const showRatio = median(figures.on.show) / median(figures.off.show)
    const searchRatio = median(figures.on.search) / median(figures.off.search)
    log(`package_show with tracking on / off (medians):   ${(showRatio * 100).toFixed(1)}%   (target ≥ 95%: ${showRatio >= 0.95 ? 'met' : 'NOT met'})`)
    log(`package_search with tracking on / off (medians): ${(searchRatio * 100).toFixed(1)}%   (target ≥ 95%: ${searchRatio >= 0.95 ? 'met' : 'NOT met'})`)

    // the flush: FLUSH objects' counts (a day row and a total row each) in one batch
    const flushDb = await openCatalogDb(`file:${join(dir, 'flush.db')}`)
    const counter = new UsageCounter()
    const fill = () => {
      for (let i = 0; i < FLUSH; i++) counter.count('api', { id: `d${i}`, packageId: `d${i}`, resource: false })
    }
    // each transaction timed: the longest is how long a flush holds the event loop on Node
    let longest = 0
    let busy = 0
    const timed = async (stmts: Parameters<typeof flushDb.client.batch>[0]) => {
      const t0 = performance.now()
      await flushDb.client.batch(stmts, 'write')
      const ms = performance.now() - t0
      busy += ms
      longest = Math.max(longest, ms)
    }
    fill()
    let t = performance.now()
    await counter.flush(timed)
    const first = performance.now() - t
    fill()
    busy = 0
    longest = 0
    t = performance.now()
    await counter.flush(timed)
    const again = performance.now() - t
    await flushDb.client.execute('CREATE TABLE ref_daily (object_id TEXT NOT NULL, kind TEXT NOT NULL, day TEXT NOT NULL, package_id TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (object_id, kind, day))')
    await flushDb.client.execute('CREATE TABLE ref_total (object_id TEXT PRIMARY KEY, package_id TEXT NOT NULL, is_resource INTEGER NOT NULL, page INTEGER, api INTEGER, download INTEGER, total INTEGER)')
    const ref = usageStatements(Array.from({ length: FLUSH }, (_, i) => ({ id: `d${i}`, packageId: `d${i}`, resource: false, kind: 'api' as const, day: '2026-01-01', n: 1 }))).map((s) => ({
      sql: s.sql.replace('usage_daily', 'ref_daily').replace('usage_total', 'ref_total').replace(/ON CONFLICT[\s\S]*$/, ''),
      args: s.args,
    }))
    t = performance.now()
    await flushDb.client.batch(ref, 'write')
    const raw = performance.now() - t
    flushDb.client.close()
    log(`flush of ${fmt(FLUSH)} objects' counts: ${first.toFixed(0)} ms new rows, ${again.toFixed(0)} ms adding to them (${busy.toFixed(0)} ms writing, ${((busy * 1000) / FLUSH).toFixed(1)} µs an object, longest transaction ${longest.toFixed(1)} ms); plain INSERT of the same rows in one transaction: ${raw.toFixed(0)} ms (flush ${(busy / raw).toFixed(2)}×)`)
    return { showRatio, searchRatio, flushMs: busy, longestMs: longest, rawMs: raw }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await usageBench()
