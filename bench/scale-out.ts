// Benchmark 4: package_show and package_search throughput on 1–3 embedded-replica processes behind a round-robin proxy, beside one process on a file; cross-process search consistency.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { loadConfig } from '../src/config/load'
import { clientExecutor } from '../src/db/executor'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { startProxyProcess, startReplicaCluster } from '../scripts/replicas'
import { bulkFill } from './lib/bulk-fill'
import { corpus, dataset } from './lib/generate'
import { queryMix } from './lib/search-queries'
import { startServer } from './lib/server'

const DATASETS = Number(process.env.BENCH_SCALE_DATASETS ?? 2000)
/** Each measurement: a slice of this many seconds per setup and mix, in ROUNDS rounds, setups taking turns. */
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 3)
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3)
const WARMUP_SECONDS = 2
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const REPLICAS = (process.env.BENCH_SCALE_REPLICAS ?? '1,2,3').split(',').map(Number)
const TRIALS = Number(process.env.BENCH_SCALE_TRIALS ?? 20)
/** The replicas' DATABASE_SYNC_INTERVAL (seconds): the server's default. */
const SYNC_INTERVAL = Number(process.env.BENCH_SCALE_SYNC_INTERVAL ?? 0.25)
const SEED = 7
const ORGS = 200
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'scale-out-latest.json')

const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'
const pct = (r: number) => (Number.isFinite(r) ? `${(r * 100).toFixed(0)}%` : 'n/a')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function percentile(sorted: number[], p: number) {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** CPU seconds (user + system) a process has used so far, from /proc; NaN if gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN
  }
}

/** Processes whose command line contains `needle` (the sqld servers of a data directory). */
function pidsWith(needle: string): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle)) out.push(Number(d))
    } catch {
      /* gone */
    }
  }
  return out
}

type Groups = Record<string, number[]>

/** How many cores each group of processes kept busy over a window (the bench itself: 'load'). */
function cpuWatch(groups: Groups) {
  const wall0 = performance.now()
  const self0 = process.cpuUsage()
  const before = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, pids.map(cpuSeconds)]))
  return () => {
    const wall = (performance.now() - wall0) / 1000
    const self = process.cpuUsage(self0)
    const cores: Record<string, number> = { load: (self.user + self.system) / 1e6 / wall }
    for (const [k, pids] of Object.entries(groups))
      cores[k] = pids.reduce((s, pid, i) => s + (cpuSeconds(pid) - before[k]![i]!), 0) / wall
    return cores
  }
}

/** One slice: requests per second, latency, errors, and the cores each process group kept busy. */
interface Slice {
  rps: number
  requests: number
  seconds: number
  p50: number
  p99: number
  errors: number
  cores: Record<string, number>
}

/** A setup's figures for one mix over the rounds. */
interface Throughput {
  /** Median over the rounds, and the range. */
  rps: number
  min: number
  max: number
  /** Median of the slices' p99 latency, ms. */
  p99: number
  errors: number
  /** CPU time of the serving side (servers, proxy, sqld) per request, µs: steadier than req/s on a shared machine. */
  cpuUsPerRequest: number
  /** Cores busy per process group, averaged over the slices. */
  cores: Record<string, number>
}

interface Setup {
  name: string
  processes: number
  /** One URL, or several that the load generator's connections are spread over. */
  urls: string[]
  groups: Groups
}

function cannon(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => autocannon(opts, (err, r) => (err ? reject(err) : resolve(r))))
}

/** The two request mixes: package_show over every dataset name, package_search over the search bench's query mix. */
function requestMixes(names: string[]) {
  let k = 0
  const show: autocannon.Request = {
    setupRequest: (req) => ({ ...req, path: `/api/3/action/package_show?id=${names[k++ % names.length]}` }),
  }
  const bodies = queryMix(50, { seed: 3, corpusSeed: SEED, orgCount: ORGS }).map((q) => JSON.stringify(q.body))
  let j = 0
  const search: autocannon.Request = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => ({ ...req, body: bodies[j++ % bodies.length] }),
  }
  return {
    package_show: { path: '/api/3/action/package_show', request: show },
    package_search: { path: '/api/3/action/package_search', request: search },
  }
}

type Mixes = ReturnType<typeof requestMixes>

/**
 * Runs one mix against a setup for `seconds`: one URL gets every connection; several split them
 * evenly, one autocannon each at once (the load generator as the balancer).
 */
async function slice(setup: Setup, mix: Mixes[keyof Mixes], seconds: number): Promise<Slice> {
  const share = (i: number) => Math.floor(CONNECTIONS / setup.urls.length) + (i < CONNECTIONS % setup.urls.length ? 1 : 0)
  const done = cpuWatch(setup.groups)
  const rs = await Promise.all(
    setup.urls.map((u, i) => cannon({ url: u + mix.path, connections: share(i), requests: [mix.request], duration: seconds })),
  )
  const requests = rs.reduce((s, r) => s + r.requests.total, 0)
  return {
    rps: rs.reduce((s, r) => s + r.requests.average, 0),
    requests,
    seconds,
    p50: rs.map((r) => r.latency.p50).sort((a, b) => a - b)[rs.length >> 1]!,
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    errors: rs.reduce((s, r) => s + r.errors + r.non2xx, 0),
    cores: done(),
  }
}

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50)

function summarise(slices: Slice[]): Throughput {
  const rps = slices.map((s) => s.rps)
  const keys = Object.keys(slices[0]!.cores)
  const cores = Object.fromEntries(keys.map((k) => [k, slices.reduce((t, s) => t + s.cores[k]!, 0) / slices.length]))
  const serving = slices.reduce(
    (t, s) => t + Object.entries(s.cores).reduce((c, [k, v]) => c + (k === 'load' ? 0 : v * s.seconds), 0),
    0,
  )
  return {
    rps: median(rps),
    min: Math.min(...rps),
    max: Math.max(...rps),
    p99: median(slices.map((s) => s.p99)),
    errors: slices.reduce((t, s) => t + s.errors, 0),
    cpuUsPerRequest: (serving / slices.reduce((t, s) => t + s.requests, 0)) * 1e6,
    cores,
  }
}

/**
 * Warms every setup up, then measures them in ROUNDS rounds, each round giving every setup one
 * slice per mix, the order turning each round: load from other processes on the machine falls
 * on all setups alike rather than on whichever ran when it came.
 */
async function measureAll(setups: Setup[], mixes: Mixes, log: (s: string) => void) {
  const mixNames = Object.keys(mixes) as (keyof Mixes)[]
  const slices = new Map(setups.map((s) => [s, Object.fromEntries(mixNames.map((m) => [m, [] as Slice[]])) as Record<keyof Mixes, Slice[]>]))
  for (const setup of setups) for (const m of mixNames) await slice(setup, mixes[m], WARMUP_SECONDS)
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length]!
      for (const m of mixNames) slices.get(setup)![m].push(await slice(setup, mixes[m], SECONDS))
    }
    log(`round ${round + 1}/${ROUNDS} done`)
  }
  return setups.map((setup) => {
    const s = slices.get(setup)!
    return { setup: setup.name, processes: setup.processes, show: summarise(s.package_show), search: summarise(s.package_search) }
  })
}

const postInit = (body: object, apikey?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
  body: JSON.stringify(body),
})

async function post(url: string, action: string, body: object, apikey?: string) {
  const res = await fetch(`${url}/api/3/action/${action}`, postInit(body, apikey))
  const json = (await res.json()) as { success: boolean; result: any }
  if (!json.success) throw new Error(`${action}: ${JSON.stringify(json).slice(0, 500)}`)
  return json.result
}

/** Whether `url`'s package_search finds the dataset named `name`. */
async function finds(url: string, name: string) {
  const r = await post(url, 'package_search', { q: `name:"${name}"` })
  return (r.results as { name: string }[]).some((d) => d.name === name)
}

/** Waits until `url` answers a package_search over the whole catalogue (its index is built). */
async function searchReady(url: string) {
  for (const t0 = performance.now(); ; await sleep(50)) {
    try {
      if ((await post(url, 'package_search', { q: '', rows: 0 })).count >= DATASETS) return
    } catch (e) {
      if (performance.now() - t0 > 120_000) throw e
    }
  }
}

/** A sysadmin and the generated catalogue, written straight into a migrated database. */
async function seed(dbUrl: string) {
  const opened = await openCatalogDb(dbUrl)
  try {
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    const write = opened.writeExecutor ?? clientExecutor(opened.client)
    const fill = await bulkFill(write, DATASETS, { adminId: admin.id, orgCount: ORGS, seed: SEED })
    return { apikey: admin.apikey!, orgIds: fill.orgs.map((o) => o.id), seconds: fill.seconds }
  } finally {
    opened.close()
  }
}

function names(): string[] {
  // the same draws as bulkFill's (picking an owner takes one): only the count of organizations matters
  const c = corpus(SEED)
  const orgs = Array.from({ length: ORGS }, (_, i) => `org-${i}`)
  return Array.from({ length: DATASETS }, (_, i) => dataset(c, i, orgs).name)
}

/**
 * Creates a dataset through `writer` and times until `reader`'s package_search finds it (polled
 * every 5 ms); a random pause between trials keeps them out of step with the sync timer.
 */
async function consistency(writer: string, reader: string, apikey: string, orgIds: string[]) {
  const c = corpus(SEED + 1)
  const ms: number[] = []
  const createMs: number[] = []
  let ownAtOnce = 0
  let firstRequest = 0
  for (let i = 0; i < TRIALS; i++) {
    await sleep(Math.random() * 300)
    const d = dataset(c, DATASETS + i, orgIds)
    const t0 = performance.now()
    await post(writer, 'package_create', d, apikey)
    const t = performance.now()
    createMs.push(t - t0)
    const own = finds(writer, d.name)
    if (await finds(reader, d.name)) firstRequest++
    else
      while (!(await finds(reader, d.name))) {
        if (performance.now() - t > 10_000) throw new Error(`${reader} never found ${d.name}`)
        await sleep(5)
      }
    ms.push(performance.now() - t)
    if (await own) ownAtOnce++
  }
  ms.sort((a, b) => a - b)
  return { trials: TRIALS, ownAtOnce, firstRequest, p50: percentile(ms, 50), p90: percentile(ms, 90), max: ms.at(-1)!, createP50: median(createMs) }
}

export async function scaleOutBench(log: (s: string) => void = console.log) {
  const started = Date.now()
  const mixes = requestMixes(names())
  const port = 21000 + Math.floor(Math.random() * 5000)
  const fileDir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-scale-file-'))
  const clusterDir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-scale-replicas-'))
  const stops: (() => Promise<void>)[] = []
  try {
    // 1. One process on a local file, as `npm start` runs it.
    const fileUrl = `file:${join(fileDir, 'catalogue.db')}`
    const fileSeed = await seed(fileUrl)
    log(`seeded ${fmt(DATASETS)} datasets into a file in ${fmt(fileSeed.seconds, 1)} s`)
    const server = await startServer({ DATABASE_URL: fileUrl }, port)
    stops.push(() => server.stop())

    // 2. One sqld primary holding the same catalogue, and up to three replica processes of it.
    let seeded: Awaited<ReturnType<typeof seed>> | undefined
    const cluster = await startReplicaCluster({
      replicas: Math.max(...REPLICAS),
      dir: clusterDir,
      port: port + 20,
      proxyPort: null, // the bench starts its own below; the bundle is the one startServer built
      syncInterval: SYNC_INTERVAL,
      prepare: async (primaryUrl) => {
        seeded = await seed(primaryUrl)
        log(`seeded ${fmt(DATASETS)} datasets into the sqld primary in ${fmt(seeded.seconds, 1)} s`)
      },
    })
    stops.push(() => cluster.stop())
    for (const u of [server.url, ...cluster.urls]) await searchReady(u)
    const sqld = pidsWith(join(clusterDir, 'primary.sqld'))
    const pidOf = (name: string) => cluster.processes().find((p) => p.name === name)!.pid
    const servers = (k: number) => cluster.urls.slice(0, k).map((_, i) => pidOf(`replica-${i + 1}`))
    const proxy = async (offset: number, targets: string[]) => {
      const p = await startProxyProcess(port + 10 + offset, targets)
      stops.push(() => p.stop())
      return p
    }

    // Every setup runs at once (idle ones cost next to nothing), so that they can take turns.
    const fileProxy = await proxy(0, [server.url])
    const setups: Setup[] = [
      { name: 'one process on a file', processes: 1, urls: [server.url], groups: { servers: [server.child.pid!] } },
      {
        name: 'the same, behind the proxy',
        processes: 1,
        urls: [fileProxy.url],
        groups: { servers: [server.child.pid!], proxy: [fileProxy.proc.pid!] },
      },
    ]
    const plural = (k: number) => `${k} replica process${k > 1 ? 'es' : ''}`
    for (const k of REPLICAS) {
      const p = await proxy(k, cluster.urls.slice(0, k))
      setups.push({ name: `${plural(k)} behind the proxy`, processes: k, urls: [p.url], groups: { servers: servers(k), proxy: [p.proc.pid!], sqld } })
    }
    // no proxy on these two cores: the load generator spreads its connections over the processes
    for (const k of REPLICAS)
      setups.push({
        name: `${plural(k)}, ${k > 1 ? 'connections spread' : 'direct'}`,
        processes: k,
        urls: cluster.urls.slice(0, k),
        groups: { servers: servers(k), sqld },
      })
    const rows = await measureAll(setups, mixes, log)

    // 3. A write through one process, searched for on another: two processes on the file, then two replicas.
    const describe = (what: string, c: Awaited<ReturnType<typeof consistency>>) =>
      log(
        `consistency, ${what} (${c.trials} trials, the other polled every 5 ms): found on the first request ${c.firstRequest}/${c.trials}, after ${fmt(c.p50)} ms median, ` +
          `${fmt(c.p90)} ms p90, ${fmt(c.max)} ms max; the writer found its own write on the next request ` +
          `${c.ownAtOnce}/${c.trials}; package_create took ${fmt(c.createP50, 1)} ms (median)`,
      )
    const second = await startServer({ DATABASE_URL: fileUrl }, port + 1)
    stops.push(() => second.stop())
    await searchReady(second.url)
    const fileConsistency = await consistency(server.url, second.url, fileSeed.apikey, fileSeed.orgIds)
    describe('two processes on the file', fileConsistency)
    let consistent: Awaited<ReturnType<typeof consistency>> | null = null
    if (cluster.urls.length >= 2) {
      consistent = await consistency(cluster.urls[0]!, cluster.urls[1]!, seeded!.apikey, seeded!.orgIds)
      describe(`two replica processes, sync interval ${SYNC_INTERVAL * 1000} ms`, consistent)
    }

    const base = rows[0]!
    const cores = (t: Throughput) =>
      Object.entries(t.cores)
        .map(([k, v]) => `${k} ${fmt(v, 2)}`)
        .join(', ')
    log(`\nper setup (median req/s of ${ROUNDS} slices of ${SECONDS} s, range; p99 ms; serving CPU µs per request; cores busy)`)
    for (const r of rows)
      for (const [label, t] of [['package_show', r.show], ['package_search', r.search]] as const)
        log(
          `${(label === 'package_show' ? r.setup : '').padEnd(40)}${label.padEnd(15)}${fmt(t.rps).padStart(7)} (${fmt(t.min)}–${fmt(t.max)})  ` +
            `p99 ${fmt(t.p99)}  ${fmt(t.cpuUsPerRequest)} µs/req  errors ${t.errors}  [${cores(t)}]`,
        )
    log(`\nsummary (median req/s; ratio to one process on a file; ${CONNECTIONS} connections)`)
    log(`${'setup'.padEnd(40)}${'package_show'.padStart(14)}${'ratio'.padStart(7)}${'package_search'.padStart(16)}${'ratio'.padStart(7)}`)
    for (const r of rows)
      log(
        `${r.setup.padEnd(40)}${fmt(r.show.rps).padStart(14)}${pct(r.show.rps / base.show.rps).padStart(7)}` +
          `${fmt(r.search.rps).padStart(16)}${pct(r.search.rps / base.search.rps).padStart(7)}`,
      )
    const cpus = os.cpus()
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version, loadavg: os.loadavg() },
      settings: { datasets: DATASETS, seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS, syncIntervalSeconds: SYNC_INTERVAL, trials: TRIALS },
      rows: rows.map((r) => ({ ...r, showRatio: r.show.rps / base.show.rps, searchRatio: r.search.rps / base.search.rps })),
      consistency: { replicas: consistent, file: fileConsistency },
      minutes: (Date.now() - started) / 60000,
    }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    log(`figures written to ${RESULTS_FILE}`)
    return out
  } finally {
    for (const stop of stops.reverse()) await stop()
    rmSync(fileDir, { recursive: true, force: true })
    rmSync(clusterDir, { recursive: true, force: true })
  }
}
