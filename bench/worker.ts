// Benchmark 4: per-action latency of the Worker under `wrangler dev` against loopback sqld, and the
// database round trips each action costs (counted by a proxy in front of each sqld), beside the Node
// server on a file and on the same sqld. BENCH_WORKER_DIR runs another checkout's Worker (before/after).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
// @ts-expect-error: plain ESM script without types
import { freePort, startSqld } from '../scripts/sqld.mjs'
import { countingProxy } from '../test/helpers/counting-proxy'
import { corpus, dataset } from './lib/generate'
import { startServer } from './lib/server'

const CALLS = Number(process.env.BENCH_WORKER_CALLS ?? 200)
const DATASETS = Math.max(Number(process.env.BENCH_WORKER_DATASETS ?? 300), CALLS + 40)
const ROWS = 2000

interface Sqld {
  url: string
  stop(): Promise<void>
}

async function call(base: string, action: string, body: unknown, apikey?: string) {
  const res = await fetch(`${base}/api/3/action/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as { success: boolean; result: any }
  if (!json.success) throw new Error(`${action}: ${JSON.stringify(json).slice(0, 300)}`)
  return json.result
}

async function startWranglerDev(dir: string, vars: Record<string, string>) {
  const port = (await freePort()) as number
  const args = ['wrangler', 'dev', '--port', String(port), '--ip', '127.0.0.1', '--log-level', 'warn']
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}:${v}`)
  const child: ChildProcess = spawn('npx', args, {
    cwd: dir,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let log = ''
  child.stdout!.on('data', (b) => (log = (log + b).slice(-4000)))
  child.stderr!.on('data', (b) => (log = (log + b).slice(-4000)))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/api/3`)).ok) break
    } catch {
      // not yet
    }
    if (i > 600 || child.exitCode !== null) throw new Error(`wrangler dev did not start:\n${log}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    stop: async () => {
      try {
        process.kill(-child.pid!, 'SIGTERM')
      } catch {
        // gone
      }
      await new Promise((r) => setTimeout(r, 300))
    },
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

interface Timed {
  median: number
  p90: number
  catalogueTrips: number
  datastoreTrips: number
}

type Counters = { cat: { requests: number }; ds: { requests: number } } | undefined

async function time(base: string, action: string, body: (i: number) => unknown, counters: Counters, warm = 20): Promise<Timed> {
  for (let i = 0; i < warm; i++) await call(base, action, body(i))
  const c0 = counters ? counters.cat.requests : 0
  const d0 = counters ? counters.ds.requests : 0
  const ms: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now()
    await call(base, action, body(i))
    ms.push(performance.now() - t)
  }
  const sorted = [...ms].sort((a, b) => a - b)
  return {
    median: median(ms),
    p90: sorted[Math.floor(sorted.length * 0.9)]!,
    catalogueTrips: counters ? (counters.cat.requests - c0) / CALLS : NaN,
    datastoreTrips: counters ? (counters.ds.requests - d0) / CALLS : NaN,
  }
}

/** Seeds DATASETS datasets and a ROWS-row DataStore table through `base`; returns what the calls need. */
async function seed(base: string, key: string) {
  const c = corpus(11)
  const org = (await call(base, 'organization_create', { name: 'bench-org' }, key)).id as string
  const names: string[] = []
  for (let i = 0; i < DATASETS; i++) {
    const d = dataset(c, i, [org])
    names.push((await call(base, 'package_create', d, key)).name)
  }
  const pkg = await call(base, 'package_create', { name: 'ds-bench', owner_org: org }, key)
  const records = Array.from({ length: ROWS }, (_, i) => ({ id: i, city: `city ${i % 97}`, value: i * 1.5 }))
  const created = await call(
    base,
    'datastore_create',
    {
      resource: { package_id: pkg.id, name: 'table' },
      fields: [{ id: 'id', type: 'int' }, { id: 'city', type: 'text' }, { id: 'value', type: 'float' }],
      primary_key: ['id'],
      records,
    },
    key,
  )
  return { names, resourceId: created.resource_id as string, words: c.words }
}

type Row = { label: string; trivial: number; show: Timed; firstShow: Timed; search: Timed; dsSearch: Timed }

async function measure(label: string, base: string, key: string, counters: Counters): Promise<Row> {
  const { names, resourceId, words } = await seed(base, key)
  // the runtime's own cost: a route that touches no database
  const trivialMs: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now()
    await (await fetch(`${base}/api/3`)).text()
    trivialMs.push(performance.now() - t)
  }
  const trivial = median(trivialMs)
  // the same 20 datasets again and again (cached), then each of the others once (built from the database)
  const show = await time(base, 'package_show', (i) => ({ id: names[i % 20] }), counters)
  const firstShow = await time(base, 'package_show', (i) => ({ id: names[20 + i] }), counters, 0)
  const search = await time(
    base,
    'package_search',
    (i) => ({ q: words[(i * 7) % 200], fq: 'organization:bench-org', rows: 10, 'facet.field': ['tags'] }),
    counters,
  )
  const dsSearch = await time(
    base,
    'datastore_search',
    (i) => ({ resource_id: resourceId, filters: { city: `city ${i % 97}` }, limit: 10 }),
    counters,
  )
  return { label, trivial, show, firstShow, search, dsSearch }
}

export async function workerBench() {
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-worker-'))
  const rows: Row[] = []
  const sqlds: Sqld[] = []
  const closers: (() => Promise<void>)[] = []
  try {
    // 1. The Worker under wrangler dev, each sqld behind a counting proxy.
    const [cat, ds] = (await Promise.all([
      startSqld({ dbPath: join(dir, 'w-catalogue.sqld') }),
      startSqld({ dbPath: join(dir, 'w-datastore.sqld') }),
    ])) as [Sqld, Sqld]
    sqlds.push(cat, ds)
    const opened = await openCatalogDb(cat.url)
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    opened.close()
    const catProxy = await countingProxy(cat.url)
    const dsProxy = await countingProxy(ds.url)
    closers.push(catProxy.close, dsProxy.close)
    const workerDir = resolve(process.env.BENCH_WORKER_DIR ?? '.')
    const worker = await startWranglerDev(workerDir, {
      DATABASE_URL: catProxy.url,
      DATASTORE_URL: dsProxy.url,
    })
    closers.push(worker.stop)
    rows.push(await measure(`Worker (wrangler dev) → sqld`, worker.url, admin.apikey!, { cat: catProxy.counter, ds: dsProxy.counter }))
    await worker.stop()
    closers.pop()

    // 2. The Node server on the same kind of sqld (same network path, Node's runtime).
    const [cat2, ds2] = (await Promise.all([
      startSqld({ dbPath: join(dir, 'n-catalogue.sqld') }),
      startSqld({ dbPath: join(dir, 'n-datastore.sqld') }),
    ])) as [Sqld, Sqld]
    sqlds.push(cat2, ds2)
    const cat2Proxy = await countingProxy(cat2.url)
    const ds2Proxy = await countingProxy(ds2.url)
    closers.push(cat2Proxy.close, ds2Proxy.close)
    const nodeRemote = await startServer({ DATABASE_URL: cat2Proxy.url, DATASTORE_URL: ds2Proxy.url })
    closers.push(nodeRemote.stop)
    {
      const o = await openCatalogDb(cat2.url)
      const a = await addSysadmin(buildDeps(loadConfig({}), o.db), 'bench-admin')
      o.close()
      rows.push(await measure('Node server → sqld', nodeRemote.url, a.apikey!, { cat: cat2Proxy.counter, ds: ds2Proxy.counter }))
    }
    await nodeRemote.stop()
    closers.pop()

    // 3. The Node server on embedded files (the default).
    const nodeFile = await startServer()
    closers.push(nodeFile.stop)
    {
      const o = await openCatalogDb(nodeFile.dbUrl)
      const a = await addSysadmin(buildDeps(loadConfig({}), o.db), 'bench-admin')
      o.close()
      rows.push(await measure('Node server, files', nodeFile.url, a.apikey!, undefined))
    }
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined)
    await Promise.all(sqlds.map((s) => s.stop()))
  }
  return rows
}

export function printWorkerRows(rows: Row[]) {
  const f = (t: Timed) =>
    `${t.median.toFixed(2)} ms (p90 ${t.p90.toFixed(2)})` +
    (Number.isNaN(t.catalogueTrips) ? '' : ` · ${t.catalogueTrips.toFixed(2)}+${t.datastoreTrips.toFixed(2)} trips`)
  console.log(`median of ${CALLS} sequential calls, anonymous; trips = requests to the catalogue + DataStore sqld per call`)
  for (const r of rows) {
    console.log(`${r.label}`)
    console.log(`  GET /api/3        ${r.trivial.toFixed(2)} ms (no database)`)
    console.log(`  package_show      ${f(r.show)}`)
    console.log(`  … first view      ${f(r.firstShow)}`)
    console.log(`  package_search    ${f(r.search)}`)
    console.log(`  datastore_search  ${f(r.dsSearch)}`)
  }
}
