// Benchmark: scale (issue 17, "measure first"). One server grows a catalogue through the API
// (package_create, concurrent clients, realistic metadata) to each size in BENCH_SCALE_SIZES and
// is never restarted; at each size: load rate, server RSS and V8 heap (SIGUSR2 line), database
// bytes by table (dbstat), the search mix at 1 and 4 clients, a second process started on the same
// file (cold start from the snapshot, RSS after it and after a search mix), the index's bytes by
// structure (restored from the snapshot in this process) and the dataset-dict cache's bytes.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import Database from 'libsql'
import { loadConfig } from '../src/config/load'
import { systemContext } from '../src/context'
import { packageDicts } from '../src/model/package'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { MemoryIndex } from '../src/search/minisearch'
import { decodeSnapshot } from '../src/search/snapshot'
import { corpus, scaleDataset } from './lib/generate'
import { unpackText } from '../src/lib/packed-text'
import { procMemory, watchPeak } from './lib/rss'
import { QUERY_CLASSES, queryMix, type BenchQuery } from './lib/search-queries'
import { startServer, type RunningServer } from './lib/server'
import { answerChecks, type Answerer } from './lib/answer-checks'

const CLIENTS = Number(process.env.BENCH_SCALE_CLIENTS ?? 16)
const QUERIES = Number(process.env.BENCH_SCALE_QUERIES ?? 600)
const WARMUP = Number(process.env.BENCH_SCALE_WARMUP ?? 60)
/** One package_search after every this many creates keeps the growing server's index in step. */
const SEARCH_EVERY = Number(process.env.BENCH_SCALE_SEARCH_EVERY ?? 1000)
const HEAP_SNAPSHOT_MAX = Number(process.env.BENCH_SCALE_HEAPSNAPSHOT_MAX ?? 0)
/** quiet (default): the second process starts once the grown one snapshotted its index; crash: at once. */
const RESTART = process.env.BENCH_SCALE_RESTART ?? 'quiet'
const SEED = 7
const ORGS = 500
const GROUPS = 50
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'scale-latest.json')

const gc = (globalThis as { gc?: () => void }).gc
const MB = 1e6

// ---------- HTTP helpers ----------

const postInit = (body: string, apikey?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
  body,
})

async function call(url: string, action: string, body: object, apikey?: string) {
  const res = await fetch(`${url}/api/3/action/${action}`, postInit(JSON.stringify(body), apikey))
  const json = (await res.json()) as { success: boolean; result: any }
  if (!json.success) throw new Error(`${action}: ${JSON.stringify(json).slice(0, 500)}`)
  return json.result
}

/** Runs `fn(i)` for i in [from, to) on `clients` concurrent loops. */
async function concurrently(from: number, to: number, clients: number, fn: (i: number) => Promise<void>) {
  let next = from
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < to; i = next++) await fn(i)
    }),
  )
}

function percentile(sorted: number[], p: number) {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}
const lat = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b)
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99) }
}

// ---------- server figures ----------

/** VmRSS/VmHWM from /proc and the server's own SIGUSR2 line (process.memoryUsage, heap spaces). */
async function serverMemory(server: RunningServer) {
  const line = server.nextStderrLine(/^memory \{/)
  server.child.kill('SIGUSR2')
  const m = JSON.parse((await line).slice('memory '.length)) as NodeJS.MemoryUsage & {
    heapSpaces: Record<string, number>
    searchLoaded: boolean
  }
  const proc = procMemory(server.child.pid!)
  return {
    rss: proc?.rss ?? m.rss,
    hwm: proc?.hwm ?? NaN,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    heapSpaces: m.heapSpaces,
  }
}

/** User + system CPU seconds of a process (Linux /proc/<pid>/stat; NaN elsewhere). */
function cpuSeconds(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN
  }
}

/** Polls until the server answers a package_search; ms since `t0`. */
async function firstAnswer(url: string, t0: number) {
  for (;;) {
    try {
      await call(url, 'package_search', { q: '', rows: 1 })
      return performance.now() - t0
    } catch (e) {
      if (performance.now() - t0 > 600_000) throw e
      await new Promise((r) => setTimeout(r, 10))
    }
  }
}

/** The query mix on `clients` concurrent loops: req/s, overall and per-class latency. */
async function searchMix(url: string, queries: BenchQuery[], clients: number) {
  const byClass = new Map<string, number[]>()
  const all: number[] = []
  let errors = 0
  const t0 = performance.now()
  await concurrently(0, queries.length, clients, async (i) => {
    const q = queries[i]!
    const t = performance.now()
    try {
      await call(url, 'package_search', q.body)
    } catch {
      errors++
    }
    const ms = performance.now() - t
    all.push(ms)
    const list = byClass.get(q.cls)
    if (list) list.push(ms)
    else byClass.set(q.cls, [ms])
  })
  const seconds = (performance.now() - t0) / 1000
  const classes: Record<string, { n: number; p50: number; p99: number }> = {}
  for (const cls of QUERY_CLASSES) if (byClass.has(cls)) classes[cls] = lat(byClass.get(cls)!)
  return { clients, rps: queries.length / seconds, ...lat(all), classes, errors }
}

// ---------- database bytes ----------

function fileSize(path: string) {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

/** Bytes by table (its indexes listed under it) from the dbstat virtual table. */
function databaseBytes(dbFile: string) {
  const conn = new Database(dbFile, { readonly: true })
  try {
    const rows = conn
      .prepare(
        `SELECT s.name AS name, m.type AS type, COALESCE(m.tbl_name, s.name) AS tbl, s.pgsize AS bytes,
                s.payload AS payload, s.pageno AS pages
         FROM dbstat AS s LEFT JOIN sqlite_schema AS m ON m.name = s.name WHERE s.aggregate = TRUE`,
      )
      .all() as { name: string; type: string | null; tbl: string; bytes: number; payload: number; pages: number }[]
    const pageSize = Number((conn.prepare('PRAGMA page_size').get() as { page_size: number }).page_size)
    const freePages = Number((conn.prepare('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count)
    const tables = new Map<string, { table: string; bytes: number; tableBytes: number; payload: number; indexes: Record<string, number> }>()
    for (const r of rows) {
      let t = tables.get(r.tbl)
      if (!t) tables.set(r.tbl, (t = { table: r.tbl, bytes: 0, tableBytes: 0, payload: 0, indexes: {} }))
      t.bytes += r.bytes
      t.payload += r.payload
      if (r.type === 'index' || (r.name !== r.tbl && r.name.startsWith('sqlite_autoindex'))) t.indexes[r.name] = r.bytes
      else t.tableBytes += r.bytes
    }
    // the datasets' own size: their package_show JSON (a sample of the stored dicts), and how many are stored
    const stored = Number((conn.prepare('SELECT count(*) AS n FROM package_json').get() as { n: number }).n)
    const sample = conn.prepare('SELECT dict FROM package_json ORDER BY random() LIMIT 2000').all() as { dict: unknown }[]
    const dictJsonMean = sample.length ? sample.reduce((a, r) => a + Buffer.byteLength(unpackText(r.dict) ?? ''), 0) / sample.length : NaN
    return {
      storedDicts: stored,
      dictJsonMean,
      file: fileSize(dbFile),
      wal: fileSize(`${dbFile}-wal`),
      pageSize,
      freeBytes: freePages * pageSize,
      tables: [...tables.values()].sort((a, b) => b.bytes - a.bytes),
    }
  } finally {
    conn.close()
  }
}

/** Waits until the search snapshot covers the change log's head (at most `ms`). */
async function waitForSnapshot(dbFile: string, ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {
    const s = snapshotInfo(dbFile)
    if (s.tailDatasets === 0 && s.bytes > 0) return
    await new Promise((r) => setTimeout(r, 250))
  }
}

function snapshotInfo(dbFile: string) {
  const conn = new Database(dbFile, { readonly: true })
  try {
    const s = conn.prepare('SELECT MAX(seq) AS seq, COUNT(*) AS chunks, SUM(length(data)) AS bytes FROM search_snapshot').get() as {
      seq: number | null
      chunks: number
      bytes: number | null
    }
    const head = conn.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log').get() as { seq: number }
    const tail = conn
      .prepare(`SELECT COUNT(DISTINCT entity_id) AS n FROM change_log WHERE seq > ? AND entity_type = 'package'`)
      .get(s.seq ?? 0) as { n: number }
    return { seq: Number(s.seq ?? 0), head: Number(head.seq), chunks: Number(s.chunks), bytes: Number(s.bytes ?? 0), tailDatasets: Number(tail.n) }
  } finally {
    conn.close()
  }
}

// ---------- in-process index bytes by structure ----------

/** The snapshot's chunks in order (libsql gives BLOBs as ArrayBuffers or Uint8Arrays). */
function readSnapshotChunks(conn: Database.Database): { data: Uint8Array }[] {
  const rows = conn.prepare('SELECT data FROM search_snapshot ORDER BY chunk').all() as { data: ArrayBuffer | Uint8Array }[]
  return rows.map((r) => ({ data: r.data instanceof ArrayBuffer ? new Uint8Array(r.data) : r.data }))
}

function heapNow() {
  gc?.()
  gc?.()
  const m = process.memoryUsage()
  return m.heapUsed + m.external
}

/**
 * Loads the index from the snapshot as the server does and attributes heap + external bytes to its
 * parts: everything is measured by dropping one part at a time from the restored index (gc between).
 */
function indexBreakdown(dbFile: string) {
  const base = heapNow()
  const conn = new Database(dbFile, { readonly: true })
  const rows = readSnapshotChunks(conn)
  conn.close()
  let bytes: Uint8Array | null = new Uint8Array(rows.reduce((n, r) => n + r.data.length, 0))
  let at = 0
  for (const r of rows) {
    bytes.set(r.data, at)
    at += r.data.length
  }
  rows.length = 0
  const serialized = bytes.length
  const tLoad = performance.now()
  let decoded: ReturnType<typeof decodeSnapshot> | null = decodeSnapshot(bytes)
  bytes = null
  const decodedBytes = heapNow() - base
  const postingsBytes = decoded.text.bytes.byteLength
  const docs = decoded.ids.filter((x) => x !== null).length
  const terms = decoded.text.terms.length
  const idx = MemoryIndex.restore(decoded)
  const loadMs = performance.now() - tLoad
  decoded = null
  const total = heapNow() - base
  const parts: { part: string; bytes: number; note?: string; sets?: number }[] = []
  const drop = (part: string, fn: () => void, note?: string) => {
    const before = heapNow()
    fn()
    parts.push({ part, bytes: before - heapNow(), note })
  }
  const t = idx.text as unknown as {
    frozen: { terms: string[]; at: Uint32Array; bytes: Uint8Array }
    live: unknown
    shortToDoc: Int32Array
    docToShort: Int32Array
    lengths: Uint32Array[]
  }
  // a field's postings (value → documents) are built on its first filter: each field's are built,
  // measured, then the field is dropped (its drop minus its sets: values and per-document ids)
  let setsTotal = 0
  const buildSets = (k: string) => {
    const f = idx.exact.get(k)!
    const before = heapNow()
    f.docs(f.size ? f.value(0) : '')
    return { values: f.size, sets: heapNow() - before }
  }
  for (const k of [...idx.exact.keys()]) {
    const { values, sets } = buildSets(k)
    setsTotal += sets
    const before = heapNow()
    idx.exact.delete(k)
    parts.push({
      part: `exact ${k}: values, value ids per document`,
      bytes: before - heapNow() - sets,
      note: `${values} values; + ${fmtMB(sets)} MB of value → documents arrays once filtered`,
      sets,
    })
  }
  drop('number arrays (Float64Array per field)', () => idx.numbers.clear(), [...idx.numbers.keys()].join(', '))
  drop('document number ↔ dataset id (array + Map)', () => {
    idx.ids.length = 0
    ;(idx as unknown as { docOf: Map<string, number> }).docOf.clear()
  })
  drop('text: short id ↔ doc and field-length typed arrays', () => {
    t.shortToDoc = new Int32Array(0)
    t.docToShort = new Int32Array(0)
    t.lengths = []
  })
  drop(
    'text: frozen postings (varint bytes) and term offsets',
    () => {
      t.frozen = { terms: t.frozen.terms, at: new Uint32Array(0), bytes: new Uint8Array(0) }
    },
    `${fmtMB(postingsBytes)} MB of postings`,
  )
  drop('text: sorted term strings', () => {
    t.frozen = { terms: [], at: new Uint32Array(0), bytes: new Uint8Array(0) }
  }, `${terms} terms`)
  drop('text: the live MiniSearch (empty after a load)', () => {
    t.live = null
  })
  const residual = heapNow() - base
  parts.push({ part: 'residual (object shells, rounding)', bytes: residual })
  // bitsets cached per (field, value) by MemoryIndex.cached: up to 5,001 of capacity / 8 bytes each
  const bitsetBytes = Math.ceil(docs / 32) * 4
  return {
    docs,
    terms,
    serializedBytes: serialized,
    decodedBytes,
    restoredBytes: total,
    valueSetBytes: setsTotal,
    loadMs,
    parts: parts.sort((a, b) => b.bytes - a.bytes),
    // as MemoryIndex bounds it: at most 5,000 sets and about 16 MiB together
    bitsCacheBound: { perBitset: bitsetBytes, max: Math.min(5000, Math.max(16, Math.floor((16 * 2 ** 20) / bitsetBytes))) * bitsetBytes },
  }
}

/** Builds the index from the database in this process and stores its snapshot (for tiny sizes). */
async function writeSnapshotInProcess(dbUrl: string) {
  const opened = await openCatalogDb(dbUrl)
  try {
    const deps = buildDeps(loadConfig({}), opened.db, {
      headProbe: opened.headProbe,
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
    })
    await warmUp(deps)
    await deps.search.writeSnapshot()
    return true
  } finally {
    opened.close()
  }
}

/** Bytes of cached package_show dicts (the server's LRU holds up to 20,000 of them). */
async function dictCacheBytes(dbUrl: string) {
  const opened = await openCatalogDb(dbUrl)
  try {
    const deps = buildDeps(loadConfig({}), opened.db, {
      headProbe: opened.headProbe,
      writeExecutor: opened.writeExecutor,
      readExecutor: opened.readExecutor,
      search: { snapshots: false },
    })
    await warmUp(deps)
    const rows = await deps.read(`SELECT id FROM package WHERE state = 'active' LIMIT 20000`)
    const ids = rows.map((r) => String(r.id))
    const ctx = systemContext(deps)
    const before = heapNow()
    for (let i = 0; i < ids.length; i += 500) await packageDicts(ctx, ids.slice(i, i + 500))
    const bytes = heapNow() - before
    let jsonChars = 0
    for (const p of deps.caches.packages.values()) jsonChars += JSON.stringify(p.dict).length
    return { dicts: ids.length, bytes, perDict: bytes / (ids.length || 1), jsonBytesPerDict: jsonChars / (ids.length || 1), bound: 20000 }
  } finally {
    opened.close()
  }
}

/** Top self sizes by constructor of a heap snapshot of this process with the index restored. */
function heapSnapshotTop(dbFile: string, top = 12) {
  const conn = new Database(dbFile, { readonly: true })
  const rows = readSnapshotChunks(conn)
  conn.close()
  const bytes = new Uint8Array(Buffer.concat(rows.map((r) => r.data)))
  const idx = MemoryIndex.restore(decodeSnapshot(bytes))
  const file = join(os.tmpdir(), `scale-${process.pid}.heapsnapshot`)
  v8.writeHeapSnapshot(file)
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }
    nodes: number[]
    strings: string[]
  }
  unlinkSync(file)
  const f = snap.snapshot.meta.node_fields
  const [types] = snap.snapshot.meta.node_types
  const width = f.length
  const iType = f.indexOf('type')
  const iName = f.indexOf('name')
  const iSize = f.indexOf('self_size')
  const sums = new Map<string, { bytes: number; count: number }>()
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]!]!
    const name = type === 'object' || type === 'native' ? snap.strings[snap.nodes[i + iName]!]! : `(${type})`
    const s = sums.get(name) ?? { bytes: 0, count: 0 }
    s.bytes += snap.nodes[i + iSize]!
    s.count++
    sums.set(name, s)
  }
  void idx.size
  return [...sums.entries()]
    .map(([name, s]) => ({ name, ...s }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
}

// ---------- goals (issue 17) ----------

interface Goal {
  figure: string
  value: number
  unit: string
  goal: string
  met: boolean
}

function goalsFor(r: Checkpoint, earlier: Checkpoint[]): Goal[] {
  const prev = earlier.at(-1)
  const first = earlier[0]
  const g: Goal[] = []
  const add = (figure: string, value: number, unit: string, goal: string, met: boolean) =>
    g.push({ figure, value, unit, goal, met })
  const m4 = r.search.grown[1]!
  const m1 = r.search.grown[0]!
  add('answer checks failed', r.checks.failures.length, `of ${r.checks.checked}`, '0 (every size)', r.checks.failures.length === 0)
  if (r.n <= 10000) {
    add('RSS after restart (after first answer)', r.restart.rss / MB, 'MB', '< 120 MB (10k)', r.restart.rss < 120 * MB)
    add('search, 4 clients', m4.rps, 'req/s', '≥ 2,000 req/s (10k)', m4.rps >= 2000)
    add('search p99, 4 clients', m4.p99, 'ms', '< 5 ms (10k)', m4.p99 < 5)
  } else if (r.n <= 100000) {
    add('RSS grown, never restarted', r.memory.rss / MB, 'MB', '< 500 MB (100k)', r.memory.rss < 500 * MB)
    add('RSS after restart (after first answer)', r.restart.rss / MB, 'MB', '< 400 MB (100k)', r.restart.rss < 400 * MB)
    add('database file + WAL', (r.db.file + r.db.wal) / MB, 'MB', '< 500 MB (100k)', r.db.file + r.db.wal < 500 * MB)
    add('search, 4 clients, mixed', m4.rps, 'req/s', '≥ 500 req/s (100k)', m4.rps >= 500)
    const cw = m4.classes['one-word common']?.p99 ?? NaN
    const fc = m4.classes['faceted']?.p99 ?? NaN
    add('p99 common word, 4 clients', cw, 'ms', '< 50 ms (100k)', cw < 50)
    add('p99 faceted, 4 clients', fc, 'ms', '< 50 ms (100k)', fc < 50)
    if (prev) add(`package_create rate ${fmt(prev.n)}→${fmt(r.n)}`, r.load.rate, '/s', '≥ 1,000/s (10k→100k)', r.load.rate >= 1000)
    // issue 36: as fast as at the first size, as small as the datasets' JSON allows
    if (first) {
      const f4 = first.search.grown[1]!
      add(`4-client req/s / at ${fmt(first.n)}`, m4.rps / f4.rps, '×', '≥ 0.7× (issue 36)', m4.rps / f4.rps >= 0.7)
      add(`4-client p99 / at ${fmt(first.n)}`, m4.p99 / f4.p99, '×', '< 2× (issue 36)', m4.p99 / f4.p99 < 2)
    }
    const perDataset = (r.db.file + r.db.wal) / r.n
    add('database bytes / dataset JSON', perDataset / r.db.dictJsonMean, '×', '≤ 1.5× (issue 36)', perDataset / r.db.dictJsonMean <= 1.5)
    add('RSS grown (issue 36)', r.memory.rss / MB, 'MB', '< 450 MB (100k)', r.memory.rss < 450 * MB)
  } else {
    const rss = Math.max(r.memory.rss, r.restart.rssAfterMix)
    add('loads', r.load.errors, 'errors', 'no errors (300k)', r.load.errors === 0)
    add('RSS (max of grown, restarted after mix)', rss / MB, 'MB', '< 1,200 MB (300k)', rss < 1200 * MB)
    add('search p50, 1 client', m1.p50, 'ms', '< 10 ms (300k)', m1.p50 < 10)
    add('search p99, 1 client', m1.p99, 'ms', '< 100 ms (300k)', m1.p99 < 100)
    add('cold start to first answer', r.restart.firstAnswerMs / 1000, 's', '< 5 s (300k)', r.restart.firstAnswerMs < 5000)
  }
  return g
}

// ---------- the run ----------

type Checkpoint = Awaited<ReturnType<typeof checkpoint>>

async function checkpoint(
  n: number,
  load: { from: number; seconds: number; rate: number; errors: number; peakRss: number; createP50: number; createP99: number; serverCpu: number; benchCpu: number; retries: number; indexing: { searches: number; seconds: number; maxMs: number } },
  grower: RunningServer,
  dbFile: string,
  port: number,
  log: (s: string) => void,
) {
  const mix = queryMix(Math.ceil(QUERIES / QUERY_CLASSES.length), { seed: 1, corpusSeed: SEED, orgCount: ORGS })
  const warm = queryMix(Math.ceil(WARMUP / QUERY_CLASSES.length), { seed: 2, corpusSeed: SEED, orgCount: ORGS })
  // the index catches up with the last creates on this search
  const tc = performance.now()
  await call(grower.url, 'package_search', { q: '', rows: 1 })
  const catchUpMs = performance.now() - tc
  const memory = await serverMemory(grower)
  log(`server (grown): RSS ${fmtMB(memory.rss)} MB (peak while loading ${fmtMB(load.peakRss)} MB), V8 heap used ${fmtMB(memory.heapUsed)} of ${fmtMB(memory.heapTotal)} MB, external ${fmtMB(memory.external)} MB (array buffers ${fmtMB(memory.arrayBuffers)} MB)`)
  const db = databaseBytes(dbFile)
  log(`database: file ${fmtMB(db.file)} MB, WAL ${fmtMB(db.wal)} MB, free pages ${fmtMB(db.freeBytes)} MB; largest: ${db.tables.slice(0, 6).map((t) => `${t.table} ${fmtMB(t.bytes)}`).join(', ')} MB`)
  log(`datasets' package_show JSON: ${fmt(db.dictJsonMean)} bytes each (mean of a sample), ${fmt((db.file + db.wal) / n)} database bytes per dataset (${fmt((db.file + db.wal) / n / db.dictJsonMean, 2)}×); stored dicts ${fmt(db.storedDicts)} of ${fmt(n)}`)
  // the searches measure a settled server: its idle snapshot (written 10 s after the last write,
  // a second or more of work at 100,000 datasets) is not left to land in the middle of a mix
  if (RESTART !== 'crash') await waitForSnapshot(dbFile, 60_000)
  const grown = []
  for (const q of warm) await call(grower.url, 'package_search', q.body)
  for (const clients of [1, 4]) {
    const r = await searchMix(grower.url, mix, clients)
    grown.push(r)
    log(`search mix, ${clients} client(s): ${fmt(r.rps)} req/s, p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 1)} ms${r.errors ? `, ${r.errors} ERRORS` : ''}`)
  }
  const afterMix = procMemory(grower.child.pid!)
  // restart: a second process on the same file while the grown one idles (so that one is never
  // restarted). By default after a quiet moment (see above), as a planned restart is (a server
  // stopped with SIGTERM saves its index first; a running one once no change has come for 10 s);
  // with BENCH_SCALE_RESTART=crash at once, with the log tail since the last snapshot to re-index.
  const snapshot = snapshotInfo(dbFile)
  const t0 = performance.now()
  const b = await startServer({ DATABASE_URL: `file:${dbFile}` }, port)
  let restart
  let checks: { checked: number; failures: string[] } = { checked: 0, failures: ['not run'] }
  try {
    const firstAnswerMs = await firstAnswer(b.url, t0)
    const atFirst = await serverMemory(b)
    for (const q of warm) await call(b.url, 'package_search', q.body)
    const mix4 = await searchMix(b.url, mix, 4)
    const after = procMemory(b.child.pid!)!
    const via = (label: string, url: string): Answerer => ({ label, search: (body) => call(url, 'package_search', body) })
    const conn = new Database(dbFile, { readonly: true })
    try {
      checks = await answerChecks(via('grown', grower.url), via('restarted', b.url), async (sql, args) => conn.prepare(sql).all(...args) as Record<string, unknown>[], mix)
    } finally {
      conn.close()
    }
    log(
      `answer checks: ${checks.checked} (grown vs restarted: count, page, facets; exact filters vs SQL): ` +
        (checks.failures.length ? `${checks.failures.length} FAILED\n  ${checks.failures.slice(0, 10).join('\n  ')}` : 'all agree'),
    )
    restart = {
      listenedMs: b.listenedMs,
      firstAnswerMs,
      rss: atFirst.rss,
      heapUsed: atFirst.heapUsed,
      external: atFirst.external,
      rssAfterMix: after.rss,
      search4: mix4,
      snapshot,
    }
  } finally {
    if (b.child.exitCode === null) await b.stop()
  }
  log(
    `restart (${RESTART === 'crash' ? 'at once' : 'after a quiet moment'}; 2nd process, ${snapshot.bytes ? `snapshot ${fmtMB(snapshot.bytes)} MB + ${snapshot.tailDatasets} datasets of log tail` : `NO snapshot yet: full build of ${snapshot.tailDatasets} datasets`}): listening ${fmt(restart.listenedMs)} ms, ` +
      `first answer ${fmt(restart.firstAnswerMs)} ms; RSS ${fmtMB(restart.rss)} MB (heap ${fmtMB(restart.heapUsed)}), after a 4-client mix ${fmtMB(restart.rssAfterMix)} MB ` +
      `(${fmt(restart.search4.rps)} req/s, p99 ${fmt(restart.search4.p99, 1)} ms)`,
  )
  // below 1,000 datasets the server has written no snapshot yet, and at small sizes its last one
  // may leave out a good share: then this process writes a fresh one for the breakdown
  const lagging = snapshot.bytes === 0 || snapshot.tailDatasets > 0.02 * n
  const wroteSnapshot = lagging ? await writeSnapshotInProcess(`file:${dbFile}`) : false
  const index = indexBreakdown(dbFile)
  log(`index restored in this process: ${fmtMB(index.restoredBytes)} MB heap+external for ${fmt(index.docs)} docs, ${fmt(index.terms)} terms (snapshot ${fmtMB(index.serializedBytes)} MB, load ${fmt(index.loadMs)} ms)`)
  const dictCache = await dictCacheBytes(`file:${dbFile}`)
  log(`package dict cache: ${fmt(dictCache.perDict / 1000, 1)} kB per cached dict (${fmt(dictCache.dicts)} measured; JSON ${fmt(dictCache.jsonBytesPerDict / 1000, 1)} kB) → ${fmtMB(dictCache.perDict * Math.min(n, dictCache.bound))} MB at the LRU bound`)
  const heapTop = n <= HEAP_SNAPSHOT_MAX ? heapSnapshotTop(dbFile) : null
  return {
    n,
    load: { ...load, catchUpMs },
    memory: { ...memory, rssAfterMix: afterMix?.rss ?? NaN },
    db,
    search: { grown },
    restart,
    index: { ...index, snapshotWrittenByBench: wroteSnapshot },
    dictCache,
    heapTop,
    checks,
  }
}

export async function scaleBench(sizes: number[], log: (s: string) => void = console.log) {
  if (!gc) log('(no --expose-gc: index bytes by structure are not exact)')
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-scale-'))
  const dbFile = join(dir, 'catalogue.db')
  const dbUrl = `file:${dbFile}`
  const port = 5600 + Math.floor(Math.random() * 250)
  const results: (Checkpoint & { goals: Goal[] })[] = []
  let server: RunningServer | undefined
  let failure: string | undefined
  try {
    const opened = await openCatalogDb(dbUrl)
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    opened.close()
    const key = admin.apikey!
    server = await startServer({ DATABASE_URL: dbUrl }, port)
    const s = server
    const errTail: string[] = []
    s.child.stderr!.on('data', (b: Buffer) => errTail.push(b.toString()) > 20 && errTail.shift())
    s.child.on('exit', (code, signal) => {
      if (server) log(`grown server exited unexpectedly (${code ?? signal}); last stderr:\n${errTail.join('')}`)
    })
    const orgs: string[] = []
    await concurrently(0, ORGS, 8, async (i) => {
      orgs[i] = (await call(s.url, 'organization_create', { name: `org-${i}`, title: `Organization ${i}` }, key)).name
    })
    const groups: string[] = []
    await concurrently(0, GROUPS, 8, async (i) => {
      groups[i] = (await call(s.url, 'group_create', { name: `group-${i}`, title: `Group ${i}` }, key)).name
    })
    log(`${ORGS} organizations and ${GROUPS} groups created; growing through package_create with ${CLIENTS} clients`)
    const c = corpus(SEED)
    let have = 0
    for (const n of sizes) {
      log(`\n## ${fmt(n)} datasets`)
      const peak = watchPeak(s.child.pid!, 200)
      const cpu0 = cpuSeconds(s.child.pid!)
      const times: number[] = []
      let errors = 0
      let retries = 0
      const catchUps: number[] = []
      const benchCpu0 = process.cpuUsage()
      const t0 = performance.now()
      await concurrently(have, n, CLIENTS, async (i) => {
        const body = JSON.stringify(scaleDataset(c, i, orgs, groups))
        const t = performance.now()
        let json: { success: boolean; error?: { name?: string[] } }
        for (let attempt = 1; ; attempt++) {
          try {
            const res = await fetch(`${s.url}/api/3/action/package_create`, postInit(body, key))
            json = (await res.json()) as typeof json
            break
          } catch (e) {
            // a reset connection (seen once on a loaded machine): try again, counted
            if (attempt >= 3 || !s.child.pid || s.child.exitCode !== null) throw e
            retries++
          }
        }
        // a retried create that had gone through the first time
        if (!json.success && retries && json.error?.name?.some((m) => m.includes('already in use'))) json.success = true
        times.push(performance.now() - t)
        if (!json.success && ++errors > 20) throw new Error(`package_create keeps failing: ${JSON.stringify(json).slice(0, 500)}`)
        if (SEARCH_EVERY > 0 && (i + 1) % SEARCH_EVERY === 0) {
          const ts = performance.now()
          await call(s.url, 'package_search', { q: '', rows: 1 })
          catchUps.push(performance.now() - ts)
        }
      })
      const seconds = (performance.now() - t0) / 1000
      const serverCpu = (cpuSeconds(s.child.pid!) - cpu0) / seconds
      const benchCpuUse = process.cpuUsage(benchCpu0)
      const benchCpu = (benchCpuUse.user + benchCpuUse.system) / 1e6 / seconds
      // the searches that made the index catch up with the last SEARCH_EVERY creates
      const indexing = { searches: catchUps.length, seconds: catchUps.reduce((a, b) => a + b, 0) / 1000, maxMs: Math.max(0, ...catchUps) }
      const l = lat(times)
      const load = { from: have, seconds, rate: (n - have) / seconds, errors, peakRss: peak.stop().peak, createP50: l.p50, createP99: l.p99, serverCpu, benchCpu, retries, indexing }
      log(`load ${fmt(have)} → ${fmt(n)}: ${fmt(load.rate)} datasets/s (${fmt(seconds, 1)} s, p50 ${fmt(l.p50, 1)} ms, p99 ${fmt(l.p99, 1)} ms, CPU: server ${fmt(serverCpu * 100)} %, bench ${fmt(benchCpu * 100)} % of a core; ${indexing.searches} catch-up searches took ${fmt(indexing.seconds, 1)} s, the longest ${fmt(indexing.maxMs)} ms${errors ? `, ${errors} ERRORS` : ''}${retries ? `, ${retries} retried after a connection error` : ''})`)
      have = n
      const r = await checkpoint(n, load, s, dbFile, port + 1, log)
      const goals = goalsFor(r, results)
      results.push({ ...r, goals })
      printSize(results.at(-1)!, log)
    }
  } catch (e) {
    // e.g. the server ran out of memory: the sizes measured so far are still printed and written
    failure = String((e as Error)?.stack ?? e)
    log(`\nscale run stopped: ${failure}`)
  } finally {
    const running = server
    server = undefined
    if (running && running.child.exitCode === null) await running.stop()
    if (!process.env.BENCH_KEEP_DB) rmSync(dir, { recursive: true, force: true })
    else log(`database kept: ${dbFile}`)
  }
  printSummary(results, log)
  mkdirSync(dirname(RESULTS_FILE), { recursive: true })
  const cpus = os.cpus()
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version },
    settings: { sizes, restart: RESTART, clients: CLIENTS, queries: QUERIES, warmup: WARMUP, searchEvery: SEARCH_EVERY, orgs: ORGS, groups: GROUPS },
    units: 'bytes, ms, MB = 1e6 bytes in the goals',
    failure,
    results,
  }
  writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
  log(`figures written to ${RESULTS_FILE}`)
  return results
}

// ---------- printing ----------

const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'
const fmtMB = (b: number) => fmt(b / MB, 1)
const pad = (s: string, w: number) => (s.length >= w ? s : s + ' '.repeat(w - s.length))
const lpad = (s: string, w: number) => (s.length >= w ? s : ' '.repeat(w - s.length) + s)

function printSize(r: Checkpoint & { goals: Goal[] }, log: (s: string) => void) {
  log(`\nindex bytes by structure (${fmt(r.n)} datasets, restored from the snapshot, heap + external):`)
  // parts under 0.5 % of the total (and under 0.1 MB of sets) are summed on one line
  const small = (p: { bytes: number; sets?: number }) => p.bytes + (p.sets ?? 0) < Math.max(0.005 * r.index.restoredBytes, 0.1 * MB)
  for (const p of r.index.parts.filter((p) => !small(p))) log(`  ${lpad(fmtMB(p.bytes), 8)} MB  ${p.part}${p.note ? `  (${p.note})` : ''}`)
  const rest = r.index.parts.filter(small)
  if (rest.length) log(`  ${lpad(fmtMB(rest.reduce((n, p) => n + p.bytes, 0)), 8)} MB  ${rest.length} smaller parts (${rest.map((p) => p.part.split(':')[0]).join(', ')})`)
  log(`  ${lpad(fmtMB(r.index.restoredBytes), 8)} MB  total as loaded (+ ${fmtMB(r.index.valueSetBytes)} MB once every field's postings are built); bitset cache bound: ${fmt(r.index.bitsCacheBound.max / r.index.bitsCacheBound.perBitset)} × ${fmt(r.index.bitsCacheBound.perBitset / 1000, 1)} kB = ${fmtMB(r.index.bitsCacheBound.max)} MB`)
  log(`database bytes by table (indexes included; file ${fmtMB(r.db.file)} MB):`)
  for (const t of r.db.tables.slice(0, 12)) {
    const idx = Object.entries(t.indexes).sort((a, b) => b[1] - a[1])
    log(`  ${lpad(fmtMB(t.bytes), 8)} MB  ${pad(t.table, 22)} table ${fmtMB(t.tableBytes)}${idx.length ? `; ${idx.map(([k, v]) => `${k} ${fmtMB(v)}`).join(', ')}` : ''}`)
  }
  log(`search mix per class (p99 ms): ${pad('class', 16)} ${lpad('1 client', 9)} ${lpad('4 clients', 10)} ${lpad('restarted 4', 12)}`)
  for (const cls of QUERY_CLASSES)
    log(
      `  ${pad(cls, 46)}${lpad(fmt(r.search.grown[0]!.classes[cls]?.p99 ?? NaN, 1), 9)} ${lpad(fmt(r.search.grown[1]!.classes[cls]?.p99 ?? NaN, 1), 10)} ${lpad(fmt(r.restart.search4.classes[cls]?.p99 ?? NaN, 1), 12)}`,
    )
  if (r.heapTop) {
    log('heap snapshot of this bench process holding the restored index, top self sizes:')
    for (const h of r.heapTop) log(`  ${lpad(fmtMB(h.bytes), 8)} MB  ${h.name} × ${fmt(h.count)}`)
  }
  log(`goals (issue 17; the tier is the goal size at or above ${fmt(r.n)}):`)
  for (const g of r.goals) log(`  ${pad(g.figure, 44)} ${lpad(fmt(g.value, g.unit === 'req/s' || g.unit === '/s' ? 0 : g.unit === '×' ? 2 : 1), 9)} ${pad(g.unit, 7)} goal ${pad(g.goal, 22)} ${g.met ? 'met' : 'NOT met'}`)
}

function printSummary(results: (Checkpoint & { goals: Goal[] })[], log: (s: string) => void) {
  log('\nsummary (MB = 1e6 bytes; times in ms)')
  const cols: [string, number, (r: Checkpoint) => string][] = [
    ['datasets', 9, (r) => fmt(r.n)],
    ['create/s', 9, (r) => fmt(r.load.rate)],
    ['RSS', 7, (r) => fmtMB(r.memory.rss)],
    ['peak', 7, (r) => fmtMB(r.load.peakRss)],
    ['heap', 7, (r) => fmtMB(r.memory.heapUsed)],
    ['index', 7, (r) => fmtMB(r.index.restoredBytes)],
    ['db file', 8, (r) => fmtMB(r.db.file + r.db.wal)],
    ['1c req/s', 9, (r) => fmt(r.search.grown[0]!.rps)],
    ['p50', 6, (r) => fmt(r.search.grown[0]!.p50, 1)],
    ['p99', 6, (r) => fmt(r.search.grown[0]!.p99, 1)],
    ['4c req/s', 9, (r) => fmt(r.search.grown[1]!.rps)],
    ['p99', 6, (r) => fmt(r.search.grown[1]!.p99, 1)],
    ['cold', 7, (r) => fmt(r.restart.firstAnswerMs)],
    ['RSS rst', 8, (r) => fmtMB(r.restart.rss)],
    ['+mix', 7, (r) => fmtMB(r.restart.rssAfterMix)],
  ]
  log(cols.map(([h, w]) => lpad(h, w)).join(''))
  for (const r of results) log(cols.map(([, w, f]) => lpad(f(r), w)).join('') + `   goals ${r.goals.filter((g) => g.met).length}/${r.goals.length} met`)
}
