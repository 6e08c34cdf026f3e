// Benchmark 2: package_search over generated catalogues: fill, index build and memory, latency, snapshot cold start, two processes.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createApp } from '../src/app'
import { systemContext } from '../src/context'
import { loadConfig } from '../src/config/load'
import { packageDicts } from '../src/model/package'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { bulkFill } from './lib/bulk-fill'
import { corpus, dataset } from './lib/generate'
import { QUERY_CLASSES, queryMix, type BenchQuery } from './lib/search-queries'
import { startServer, type RunningServer } from './lib/server'

const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 300)
const WARMUP_QUERIES = Number(process.env.BENCH_SEARCH_WARMUP ?? 120)
/** Catalogues up to this size also time a cold start without a snapshot (a full build). */
const NO_SNAPSHOT_MAX = Number(process.env.BENCH_SEARCH_NO_SNAPSHOT_MAX ?? 10000)
const NEW_AFTER_SNAPSHOT = 50
const CROSS_TRIALS = 10
const SEED = 7
const ORGS = 200
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'search-latest.json')

const gc = (globalThis as { gc?: () => void }).gc
const MiB = 2 ** 20

interface Stats {
  n: number
  p50: number
  p99: number
  /** Mean of the answers' `count`: how many datasets matched. */
  meanCount: number
}

interface MixResult {
  classes: Record<string, Stats>
  overall: Stats
  met: boolean
}

interface Answer {
  ms: number
  count: number
}

const targetsFor = (n: number) => (n <= 10000 ? { p50: 5, p99: 25 } : { p50: 25, p99: 100 })

function percentile(sorted: number[], p: number) {
  if (!sorted.length) return NaN
  if (p === 50) {
    const m = sorted.length >> 1
    return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function stats(answers: Answer[]): Stats {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
  return {
    n: answers.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    meanCount: answers.reduce((s, a) => s + a.count, 0) / (answers.length || 1),
  }
}

/** Runs the queries one after another and summarises them per class. */
async function runMix(queries: BenchQuery[], send: (body: object) => Promise<Answer>, n: number): Promise<MixResult> {
  const byClass = new Map<string, Answer[]>()
  const all: Answer[] = []
  for (const q of queries) {
    const a = await send(q.body)
    all.push(a)
    const list = byClass.get(q.cls)
    if (list) list.push(a)
    else byClass.set(q.cls, [a])
  }
  const classes: Record<string, Stats> = {}
  for (const cls of QUERY_CLASSES) if (byClass.has(cls)) classes[cls] = stats(byClass.get(cls)!)
  const overall = stats(all)
  const t = targetsFor(n)
  return { classes, overall, met: overall.p50 < t.p50 && overall.p99 < t.p99 }
}

function parseAnswer(text: string, body: object): number {
  const json = JSON.parse(text) as { success: boolean; result?: { count: number } }
  if (!json.success) throw new Error(`package_search ${JSON.stringify(body)}: ${text.slice(0, 500)}`)
  return json.result!.count
}

const postInit = (body: object, apikey?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
  body: JSON.stringify(body),
})

function httpSearch(url: string) {
  return async (body: object): Promise<Answer> => {
    const t = performance.now()
    const res = await fetch(`${url}/api/3/action/package_search`, postInit(body))
    const text = await res.text()
    const ms = performance.now() - t
    return { ms, count: parseAnswer(text, body) }
  }
}

async function post(url: string, action: string, body: object, apikey: string) {
  const res = await fetch(`${url}/api/3/action/${action}`, postInit(body, apikey))
  const json = (await res.json()) as { success: boolean; result: any }
  if (!json.success) throw new Error(`${action}: ${JSON.stringify(json)}`)
  return json.result
}

/** Whether `url`'s package_search finds the dataset named `name` (false while not listening). */
async function finds(url: string, name: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/3/action/package_search`, postInit({ q: `name:"${name}"` }))
    const json = (await res.json()) as { success: boolean; result?: { results: { name: string }[] } }
    return !!json.success && json.result!.results.some((r) => r.name === name)
  } catch {
    return false
  }
}

/** Polls until the server answers a package_search (it may log "Listening" a moment before it listens). */
async function firstAnswer(url: string) {
  for (const t0 = performance.now(); ; ) {
    try {
      return await httpSearch(url)({ q: '' })
    } catch (e) {
      if (performance.now() - t0 > 300_000) throw e
      await new Promise((r) => setTimeout(r, 10))
    }
  }
}

/** Spawns a server on `dbUrl` and polls until its package_search finds `name`: ms from spawn. */
async function coldStart(dbUrl: string, port: number, name: string) {
  const t0 = performance.now()
  const server = await startServer({ DATABASE_URL: dbUrl }, port)
  while (!(await finds(server.url, name))) {
    if (performance.now() - t0 > 300_000) throw new Error('cold server never found the new dataset')
    await new Promise((r) => setTimeout(r, 10))
  }
  return { server, ms: performance.now() - t0, listenedMs: server.listenedMs }
}

function memory() {
  gc?.()
  gc?.()
  const m = process.memoryUsage()
  return { heap: m.heapUsed, external: m.external, rss: m.rss }
}
const mib = (a: ReturnType<typeof memory>, b: ReturnType<typeof memory>) =>
  (b.heap + b.external - a.heap - a.external) / MiB

function fileBytes(path: string) {
  let total = 0
  for (const p of [path, `${path}-wal`])
    try {
      total += statSync(p).size
    } catch {
      /* no WAL */
    }
  return total
}

export type SizeResult = Awaited<ReturnType<typeof benchSize>>

async function benchSize(n: number, log: (s: string) => void) {
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-search-'))
  const dbFile = join(dir, 'catalogue.db')
  const dbUrl = `file:${dbFile}`
  const servers: RunningServer[] = []
  const port = 5600 + Math.floor(Math.random() * 250)
  try {
    // 1. Fill: a sysadmin (as `npm run admin -- sysadmin add`), then organizations and datasets as rows.
    const filling = await openCatalogDb(dbUrl)
    const admin = await addSysadmin(buildDeps(loadConfig({}), filling.db), 'bench-admin')
    const apikey = admin.apikey!
    const fill = await bulkFill(filling.writeExecutor!, n, { adminId: admin.id, orgCount: ORGS, seed: SEED })
    filling.close()
    const fillRate = n / fill.seconds
    const dbMiB = fileBytes(dbFile) / MiB
    log(
      `fill: ${fmt(n)} datasets (${fmt(fill.rows)} rows, ${fmt(dbMiB)} MiB) in ${fmt(fill.seconds, 1)} s = ` +
        `${fmt(fillRate)} datasets/s (${fmt(fill.rows / fill.seconds)} rows/s; generating ${fmt(fill.generateSeconds, 1)} s, SQLite ${fmt(fill.writeSeconds, 1)} s)`,
    )

    const mix = queryMix(Math.ceil(QUERIES / QUERY_CLASSES.length), { seed: 1, corpusSeed: SEED, orgCount: ORGS })
    const warm = queryMix(Math.ceil(WARMUP_QUERIES / QUERY_CLASSES.length), { seed: 2, corpusSeed: SEED, orgCount: ORGS })

    // 2. In-process: a fresh deps on the filled file; the first search builds the index from the DB.
    const inproc = await inProcess(n, dbUrl, mix, warm, log)
    const loaded = await snapshotLoad(dbUrl, log)

    // 3. HTTP: a server process (it loads the snapshot written above), the same mix over fetch.
    const t0 = performance.now()
    const a = await startServer({ DATABASE_URL: dbUrl }, port)
    servers.push(a)
    await firstAnswer(a.url)
    const serverReadyMs = performance.now() - t0
    for (const q of warm) await httpSearch(a.url)(q.body)
    const http = await runMix(mix, httpSearch(a.url), n)
    log(`HTTP server (snapshot load): first answer ${fmt(serverReadyMs)} ms after spawn`)

    // 4. Datasets created after the snapshot, then a new process must find them (snapshot + log tail).
    const c = corpus(SEED + 1)
    const orgIds = fill.orgs.map((o) => o.id)
    const newNames: string[] = []
    const tc = performance.now()
    for (let i = 0; i < NEW_AFTER_SNAPSHOT; i++) {
      const d = dataset(c, n + i, orgIds)
      await post(a.url, 'package_create', d, apikey)
      newNames.push(d.name)
    }
    const createMs = performance.now() - tc
    await a.stop()
    servers.splice(servers.indexOf(a), 1)
    const cold = await coldStart(dbUrl, port + 1, newNames.at(-1)!)
    servers.push(cold.server)
    const coldTarget = 5000
    log(
      `cold start with snapshot + ${NEW_AFTER_SNAPSHOT}-dataset log tail: ${fmt(cold.ms)} ms from spawn to a search finding a new dataset ` +
        `(listening at ${fmt(cold.listenedMs)} ms; target < 5 s: ${cold.ms < coldTarget ? 'met' : 'NOT met'})`,
    )

    // 5. Two processes: create through A, search through B on the next request.
    const a2 = await startServer({ DATABASE_URL: dbUrl }, port + 2)
    servers.push(a2)
    await firstAnswer(a2.url)
    let found = 0
    const crossMs: number[] = []
    for (let i = 0; i < CROSS_TRIALS; i++) {
      const d = dataset(c, n + NEW_AFTER_SNAPSHOT + i, orgIds)
      await post(a2.url, 'package_create', d, apikey)
      const t = performance.now()
      if (await finds(cold.server.url, d.name)) found++
      crossMs.push(performance.now() - t)
    }
    const cross = { trials: CROSS_TRIALS, found, p50: percentile(crossMs.sort((x, y) => x - y), 50) }
    log(`cross-process (create via A, package_search via B next): found ${found === CROSS_TRIALS ? 'yes' : 'NO'} (${found}/${CROSS_TRIALS}), B answers in ${fmt(cross.p50, 1)} ms (median)`)
    for (const s of servers.splice(0)) await s.stop()

    // Without a snapshot, a cold process indexes every dataset from the database.
    let noSnapshot: { ms: number; listenedMs: number } | null = null
    if (n <= NO_SNAPSHOT_MAX) {
      const db = await openCatalogDb(dbUrl)
      await db.client.execute('DELETE FROM search_snapshot')
      db.close()
      const r = await coldStart(dbUrl, port + 3, newNames.at(-1)!)
      servers.push(r.server)
      noSnapshot = { ms: r.ms, listenedMs: r.listenedMs }
      log(`cold start without snapshot: ${fmt(r.ms)} ms (listening at ${fmt(r.listenedMs)} ms)`)
      for (const s of servers.splice(0)) await s.stop()
    }

    return {
      n,
      fill: {
        rows: fill.rows,
        seconds: fill.seconds,
        datasetsPerSecond: fillRate,
        rowsPerSecond: fill.rows / fill.seconds,
        generateSeconds: fill.generateSeconds,
        writeSeconds: fill.writeSeconds,
        dbMiB,
      },
      ...inproc,
      snapshotLoad: loaded,
      http: { ...http, serverReadyMs },
      creates: { count: NEW_AFTER_SNAPSHOT, perCreateMs: createMs / NEW_AFTER_SNAPSHOT },
      coldStart: { ms: cold.ms, listenedMs: cold.listenedMs, targetMs: coldTarget, met: cold.ms < coldTarget },
      coldStartNoSnapshot: noSnapshot,
      crossProcess: cross,
      targets: targetsFor(n),
    }
  } finally {
    for (const s of servers) await s.stop()
    if (!process.env.BENCH_KEEP_DB) rmSync(dir, { recursive: true, force: true })
    else log(`database kept: ${dbFile}`)
  }
}

async function inProcess(n: number, dbUrl: string, mix: BenchQuery[], warm: BenchQuery[], log: (s: string) => void) {
  const opened = await openCatalogDb(dbUrl)
  try {
    // Snapshots off: the first search builds from the datasets, and nothing is written behind our back.
    const deps = buildDeps(loadConfig({}), opened.db, {
      headProbe: opened.headProbe,
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
      search: { snapshots: false },
    })
    await warmUp(deps)
    const app = createApp(deps)
    const search = async (body: object): Promise<Answer> => {
      const t = performance.now()
      const res = await app.request('/api/3/action/package_search', postInit(body))
      const text = await res.text()
      const ms = performance.now() - t
      return { ms, count: parseAnswer(text, body) }
    }

    const before = memory()
    const first = await search({ q: '' })
    const withCache = memory()
    log(`first package_search (index built from the database): ${fmt(first.ms)} ms, count ${fmt(first.count)}`)
    // The index alone: without the dataset dicts the build left in the cache, which are then put back.
    const cachedIds = [...deps.caches.packages.values()].map((p) => p.id)
    deps.caches.packages.clear()
    deps.caches.packageNames.clear()
    const indexOnly = memory()
    const ctx = systemContext(deps)
    for (let i = 0; i < cachedIds.length; i += 500) await packageDicts(ctx, cachedIds.slice(i, i + 500))
    const mem = gc
      ? {
          indexMiB: mib(before, indexOnly),
          withDictCacheMiB: mib(before, withCache),
          cachedDicts: cachedIds.length,
        }
      : null
    log(
      mem
        ? `index memory: ${fmt(mem.indexMiB)} MiB heap+external (${fmt(mem.withDictCacheMiB)} MiB with the ${fmt(mem.cachedDicts)} dataset dicts cached while building)`
        : 'index memory: not measured (run with node --expose-gc)',
    )

    for (const q of warm) await search(q.body)
    const result = await runMix(mix, search, n)

    const ts = performance.now()
    await deps.search.writeSnapshot()
    const snapshotMs = performance.now() - ts
    const [row] = (await deps.read('SELECT COUNT(*) AS chunks, SUM(length(data)) AS bytes FROM search_snapshot')) as {
      chunks: number
      bytes: number
    }[]
    log(`snapshot: ${fmt(Number(row!.bytes) / MiB, 1)} MiB in ${row!.chunks} chunks, written in ${fmt(snapshotMs)} ms`)
    return {
      firstSearchMs: first.ms,
      memory: mem,
      inProcess: result,
      snapshot: { bytes: Number(row!.bytes), chunks: Number(row!.chunks), ms: snapshotMs },
    }
  } finally {
    opened.close()
  }
}

/** A fresh in-process index loaded from the snapshot: load time and memory. */
async function snapshotLoad(dbUrl: string, log: (s: string) => void) {
  const opened = await openCatalogDb(dbUrl)
  try {
    const deps = buildDeps(loadConfig({}), opened.db, {
      headProbe: opened.headProbe,
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
    })
    await warmUp(deps)
    const before = memory()
    const t = performance.now()
    await deps.search.ready()
    const ms = performance.now() - t
    deps.caches.packages.clear()
    const indexMiB = gc ? mib(before, memory()) : null
    log(`snapshot load in-process: ${fmt(ms)} ms, index ${indexMiB === null ? 'n/a' : fmt(indexMiB)} MiB heap+external`)
    return { ms, indexMiB }
  } finally {
    opened.close()
  }
}

const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'
const pad = (s: string, w: number) => (s.length >= w ? s : s + ' '.repeat(w - s.length))
const lpad = (s: string, w: number) => (s.length >= w ? s : ' '.repeat(w - s.length) + s)

function latencyTable(r: SizeResult, log: (s: string) => void) {
  log(`${pad('query class', 18)}${lpad('n', 5)}${lpad('in-proc p50', 13)}${lpad('p99', 8)}${lpad('HTTP p50', 10)}${lpad('p99', 8)}${lpad('mean count', 12)}`)
  const row = (name: string, a: Stats, b: Stats | undefined) =>
    log(
      `${pad(name, 18)}${lpad(String(a.n), 5)}${lpad(fmt(a.p50, 2), 13)}${lpad(fmt(a.p99, 2), 8)}` +
        `${lpad(b ? fmt(b.p50, 2) : '', 10)}${lpad(b ? fmt(b.p99, 2) : '', 8)}${lpad(fmt(a.meanCount), 12)}`,
    )
  for (const [cls, s] of Object.entries(r.inProcess.classes)) row(cls, s, r.http.classes[cls])
  row('overall', r.inProcess.overall, r.http.overall)
  const t = r.targets
  log(
    `targets (median < ${t.p50} ms, p99 < ${t.p99} ms), in-process: ${r.inProcess.met ? 'met' : 'NOT met'}; ` +
      `HTTP (reported only): ${r.http.met ? 'within them too' : 'above them'}`,
  )
}

/** Runs every size, prints figures as they come and a summary, and writes bench/results/search-latest.json. */
export async function searchBench(sizes: number[], log: (s: string) => void = console.log) {
  if (!gc) log('(no --expose-gc: index memory is not measured)')
  const results: SizeResult[] = []
  for (const n of sizes) {
    log(`\n## ${fmt(n)} datasets`)
    const r = await benchSize(n, log)
    latencyTable(r, log)
    results.push(r)
  }
  log('\nsummary (times in ms; index MiB: built from the DB / loaded from the snapshot)')
  const cols: [string, number, (r: SizeResult) => string][] = [
    ['datasets', 9, (r) => fmt(r.n)],
    ['fill/s', 8, (r) => fmt(r.fill.datasetsPerSecond)],
    ['build', 8, (r) => fmt(r.firstSearchMs)],
    ['index MiB', 12, (r) => `${r.memory ? fmt(r.memory.indexMiB) : 'n/a'}/${r.snapshotLoad.indexMiB === null ? 'n/a' : fmt(r.snapshotLoad.indexMiB)}`],
    ['p50', 7, (r) => fmt(r.inProcess.overall.p50, 2)],
    ['p99', 7, (r) => fmt(r.inProcess.overall.p99, 1)],
    ['HTTP p50', 9, (r) => fmt(r.http.overall.p50, 2)],
    ['p99', 7, (r) => fmt(r.http.overall.p99, 1)],
    ['snap MiB', 9, (r) => fmt(r.snapshot.bytes / MiB, 1)],
    ['write', 7, (r) => fmt(r.snapshot.ms)],
    ['load', 7, (r) => fmt(r.snapshotLoad.ms)],
    ['cold', 7, (r) => fmt(r.coldStart.ms)],
    ['no snap', 8, (r) => (r.coldStartNoSnapshot ? fmt(r.coldStartNoSnapshot.ms) : '-')],
    ['cross', 6, (r) => (r.crossProcess.found === r.crossProcess.trials ? 'yes' : 'NO')],
    ['targets', 9, (r) => (r.inProcess.met && r.coldStart.met ? 'met' : 'NOT met')],
  ]
  log(cols.map(([h, w]) => lpad(h, w)).join(''))
  for (const r of results) log(cols.map(([, w, f]) => lpad(f(r), w)).join(''))
  mkdirSync(dirname(RESULTS_FILE), { recursive: true })
  const cpus = os.cpus()
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version },
    queries: { perRun: QUERIES, warmup: WARMUP_QUERIES, classes: QUERY_CLASSES },
    results,
  }
  writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
  log(`figures written to ${RESULTS_FILE}`)
  return results
}
