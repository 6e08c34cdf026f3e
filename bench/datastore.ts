// Benchmark 3: the DataStore over HTTP against the real Node server, side by side with raw libSQL on
// the same machine in the same run: bulk load through datastore_upsert, datastore_search latency,
// and the CSV dump's rate and the server's memory while it streams; then the Parquet and JSON
// Lines dumps' rates, the server's memory during the Parquet dump, and the whole Parquet file read
// back with hyparquet and compared, value by value, with the table read by SQL. The two sides alternate
// (batch by batch, request by request, dump by dump) so that load from other processes on the
// machine falls on both alike.
import { closeSync, mkdirSync, mkdtempSync, openSync as openFile, rmSync, writeFileSync, writeSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'libsql'
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'
import { datastoreUrl } from '../src/runtime/node-datastore'
import type { SearchSpec } from '../src/datastore/query'
import type { DsTable } from '../src/datastore/registry'
import { action, createTable, httpDump, httpInsert, httpSearch, result } from './lib/ds-http'
import { benchTable, fastestDump, openSync, rawDump, rawSearcher, rawTable } from './lib/ds-raw'
import { CATEGORIES, DS_FIELDS, dsBatch, wordsNear } from './lib/ds-rows'
import { procMemory, watchPeak } from './lib/rss'
import { startServer, type RunningServer } from './lib/server'

const ROWS = Number(process.env.BENCH_DS_ROWS ?? 1_000_000)
const BATCH = 10_000
const REQUESTS = Number(process.env.BENCH_DS_REQUESTS ?? 50)
const WARMUP = 5
/** The q terms' share of rows: words of moderate frequency. */
const Q_SHARE = 0.01
const RAW_TABLE = '0b5e7a3c-0000-4000-8000-00000000bench'
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'datastore-latest.json')

const TARGETS = { loadRatio: 0.85, dumpRatio: 0.7, dumpMB: 200 }
/** Rounds of the Parquet and the JSON Lines dump (alternating; the first of each watched). */
const FORMAT_ROUNDS = 3

const MB = 1e6
const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'
const pct = (r: number) => (Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : 'n/a')
const rssMB = (pid: number) => (procMemory(pid)?.rss ?? NaN) / MB
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50)

function percentile(sorted: number[], p: number) {
  if (!sorted.length) return NaN
  if (p === 50) {
    const m = sorted.length >> 1
    return sorted.length % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

interface Latency {
  n: number
  p50: number
  p95: number
  meanTotal: number
}

function latency(samples: { ms: number; total: number }[]): Latency {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b)
  return {
    n: samples.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    meanTotal: samples.reduce((s, x) => s + x.total, 0) / (samples.length || 1),
  }
}

/** BENCH_DS_CPU_PROF=<dir>: each server process writes a V8 CPU profile there when it stops. */
function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = process.env.BENCH_DS_CPU_PROF
  if (!dir) return extra
  const preload = fileURLToPath(new URL('./lib/cpu-prof.mjs', import.meta.url))
  return { ...extra, NODE_OPTIONS: `--import ${preload}`, BENCH_CPU_PROF_DIR: dir }
}

type RawTable = Awaited<ReturnType<typeof rawTable>>

/** Both sides write the same batches in turn; each side's rate counts only its own calls. */
async function load(n: number, raw: RawTable, server: RunningServer, key: string, id: string) {
  let rawMs = 0
  let httpMs = 0
  for (let from = 0; from < n; from += BATCH) {
    const records = dsBatch(from, Math.min(BATCH, n - from))
    rawMs += await raw.insert(records)
    httpMs += await httpInsert(server.url, key, id, records)
  }
  const rate = (ms: number) => ({ seconds: ms / 1000, rate: n / (ms / 1000) })
  return { ours: rate(httpMs), raw: rate(rawMs) }
}

type Kind = 'page' | 'filter' | 'q'
const KINDS: Kind[] = ['page', 'filter', 'q']

/** The i-th request of a kind, as a datastore_search body and as the planner's spec. */
function searchRequest(kind: Kind, i: number, words: string[]) {
  const filters = kind === 'filter' ? { category: (i * 37) % CATEGORIES } : undefined
  const q = kind === 'q' ? words[i % words.length]! : undefined
  const spec: SearchSpec = { filters, q, plain: true, language: 'english', distinct: false, limit: 100, offset: 0 }
  return { body: { filters, q, limit: 100, include_total: true }, spec }
}

/** WARMUP then REQUESTS requests of one kind, each over HTTP then as SQL on the raw file. */
async function searches(kind: Kind, words: string[], url: string, id: string, raw: ReturnType<typeof rawSearcher>) {
  const ours: { ms: number; total: number }[] = []
  const ref: { ms: number; total: number }[] = []
  for (let i = -WARMUP; i < REQUESTS; i++) {
    const r = searchRequest(kind, i + WARMUP, words)
    const a = await httpSearch(url, id, r.body)
    const b = raw(r.spec)
    if (a.total !== b.total) throw new Error(`${kind} ${JSON.stringify(r.body)}: total ${a.total}, raw ${b.total}`)
    if (i >= 0) {
      ours.push(a)
      ref.push(b)
    }
  }
  return { ours: latency(ours), raw: latency(ref) }
}

/** The server process of the moment (the dump phase replaces it). */
interface Live {
  server?: RunningServer
}

/** A server on an existing catalogue, answering (it may log "Listening" a moment before). */
async function startAnswering(dbUrl: string): Promise<RunningServer> {
  const next = await startServer(serverEnv({ DATABASE_URL: dbUrl }))
  for (const t0 = performance.now(); ; ) {
    try {
      await action(next.url, 'status_show', {})
      return next
    } catch (e) {
      if (performance.now() - t0 > 30_000) throw e
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

type HttpDump = Awaited<ReturnType<typeof httpDump>>
type RawDump = ReturnType<typeof fastestDump>

/**
 * Dumps the table once from the server that did the load (as it is, garbage and caches included),
 * then four times from a restarted one, with the raw loop after each; the server's RSS is watched
 * during the first two.
 */
async function dumpPhase(live: Live, id: string, n: number, conn: Database.Database, t: DsTable, log: Log) {
  const dumps = { ours: [] as HttpDump[], raw: [] as RawDump[], formatter: [] as number[] }
  const once = async () => {
    const d = await httpDump(live.server!.url, id)
    // the reference: the fastest one-thread read + CSV loop, checked to make the same bytes
    const r = fastestDump(conn, t)
    // and the loop of earlier runs (the dump's own per-cell formatter, no UTF-8): a slower reference
    const f = rawDump(conn, t)
    if (d.rows !== n || r.rows !== n) throw new Error(`dump: ${d.rows} rows over HTTP, ${r.rows} raw, expected ${n}`)
    if (d.sha256 !== r.sha256) throw new Error(`dump: the HTTP dump (${d.bytes} bytes) and the reference (${r.bytes} bytes) differ`)
    dumps.ours.push(d)
    dumps.raw.push(r)
    dumps.formatter.push(f.rate)
    log(
      `dump csv: ${fmt(d.rate)} rows/s (${fmt(d.bytes / MB, 1)} MB in ${fmt(d.seconds, 1)} s); ` +
        `fastest read + CSV loop (same bytes) ${fmt(r.rate)} rows/s; the dump's own formatter in a loop ${fmt(f.rate)} rows/s`,
    )
  }
  const watched = async () => {
    const watch = watchPeak(live.server!.child.pid!)
    await once()
    const peak = watch.stop()
    return { beforeMB: watch.before / MB, peakMB: peak.peak / MB, kernelPeak: peak.kernelPeak }
  }
  const afterLoad = await watched()
  await live.server!.stop()
  live.server = await startAnswering(live.server!.dbUrl)
  const restarted = await watched()
  // more unwatched rounds: the median of five is steadier against load from other processes
  for (let i = 0; i < 3; i++) await once()
  // the tsv and json dumps beside the same loop writing their bytes (checked alike), three rounds each
  const other = { tsv: { rate: NaN, rawRate: NaN }, json: { rate: NaN, rawRate: NaN } }
  for (const format of ['tsv', 'json'] as const) {
    const ours: number[] = []
    const raw: number[] = []
    for (let i = 0; i < 3; i++) {
      const d = await httpDump(live.server!.url, id, format)
      const r = fastestDump(conn, t, format)
      if (d.rows !== n || r.rows !== n) throw new Error(`dump ${format}: ${d.rows} rows over HTTP, ${r.rows} raw, expected ${n}`)
      if (d.sha256 !== r.sha256) throw new Error(`dump ${format}: the HTTP dump (${d.bytes} bytes) and the reference (${r.bytes} bytes) differ`)
      ours.push(d.rate)
      raw.push(r.rate)
      log(`dump ${format}: ${fmt(d.rate)} rows/s (${fmt(d.bytes / MB, 1)} MB in ${fmt(d.seconds, 1)} s); fastest read + ${format} loop (same bytes) ${fmt(r.rate)} rows/s`)
    }
    other[format] = { rate: median(ours), rawRate: median(raw) }
  }
  const rate = median(dumps.ours.map((d) => d.rate))
  const rawRate = median(dumps.raw.map((d) => d.rate))
  const formatterRate = median(dumps.formatter)
  log(
    `dump median ${fmt(rate)} rows/s, fastest loop ${fmt(rawRate)} rows/s, ratio ${pct(rate / rawRate)} ` +
      `(the formatter loop ${fmt(formatterRate)} rows/s, ratio ${pct(rate / formatterRate)}); server RSS ` +
      `after the load ${fmt(afterLoad.beforeMB)} MB before, peak ${fmt(afterLoad.peakMB)} MB; ` +
      `restarted ${fmt(restarted.beforeMB)} MB before, peak ${fmt(restarted.peakMB)} MB` +
      (restarted.kernelPeak ? '' : ' (sampled only)'),
  )
  return { ...dumps, rate, rawRate, formatterRate, ratio: rate / rawRate, afterLoad, restarted, other }
}

type Log = (s: string) => void

/** GET /datastore/dump/<id>?format=… written to `file`: bytes, newlines, seconds. */
async function httpDumpToFile(url: string, id: string, format: 'parquet' | 'jsonl', file: string) {
  const started = performance.now()
  const res = await fetch(`${url}/datastore/dump/${id}?format=${format}`)
  if (res.status !== 200 || !res.body) throw new Error(`dump ${format}: ${res.status} ${await res.text()}`)
  const fd = openFile(file, 'w')
  let bytes = 0
  let lines = 0
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      writeSync(fd, chunk)
      bytes += chunk.length
      if (format === 'jsonl') for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++
    }
  } finally {
    closeSync(fd)
  }
  return { bytes, lines, seconds: (performance.now() - started) / 1000 }
}

/** The Parquet type each bench column type is written as (src/datastore/dump-parquet.ts). */
const PARQUET_TYPES: Record<string, object> = {
  _id: { type: 'INT64' },
  int: { type: 'INT32' },
  float: { type: 'DOUBLE' },
  numeric: { type: 'DOUBLE' },
  text: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  bool: { type: 'BOOLEAN' },
  date: { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
  timestamp: { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } },
}

/** Days since 1970-01-01 of a stored `YYYY-MM-DD`, by Date. */
function dateDays(s: string): number {
  const [y, m, d] = s.split('-').map(Number) as [number, number, number]
  const dt = new Date(0)
  dt.setUTCFullYear(y, m - 1, d)
  return dt.getTime() / 86_400_000
}

/** Microseconds since the epoch of a stored `YYYY-MM-DDTHH:MM:SS[.ffffff]`, by Date. */
function timestampMicros(s: string): bigint {
  const frac = s.length > 20 ? BigInt(s.slice(20).padEnd(6, '0')) : 0n
  return BigInt(Date.parse(s.slice(0, 19) + 'Z')) * 1000n + frac
}

/** Whether a value read back from Parquet is the stored SQLite value `s` of a column of `type`. */
function sameValue(type: string, s: unknown, p: unknown): boolean {
  if (s === null) return p === null
  switch (type) {
    case '_id':
      return typeof p === 'bigint' && p === BigInt(s as number)
    case 'int':
      return typeof p === 'number' && p === s
    case 'float':
    case 'numeric':
      return typeof p === 'number' && (p === Number(s) || (Number.isNaN(p) && Number.isNaN(Number(s))))
    case 'bool':
      return p === (s !== 0)
    case 'date':
      return p === dateDays(s as string)
    case 'timestamp':
      return p === timestampMicros(s as string)
    default:
      return p === s
  }
}

/**
 * The acceptance check of issue 34: the whole Parquet file read back by hyparquet (a row group at
 * a time) against the table read by SQL from the server's DataStore file, every value and its type,
 * and every column's Parquet type. Throws on the first few differences.
 */
async function parquetReadBack(file: string, dsPath: string, id: string, n: number) {
  const started = performance.now()
  const buffer = await asyncBufferFromFile(file)
  const metadata = await parquetMetadataAsync(buffer)
  const types = ['_id', ...DS_FIELDS.map((f) => f.type)]
  const names = ['_id', ...DS_FIELDS.map((f) => f.id)]
  const problems: string[] = []
  // JSON with keys in order and without undefined ones, for comparing schema elements
  const canon = (v: unknown): string => {
    if (!v || typeof v !== 'object') return JSON.stringify(v)
    const o = v as Record<string, unknown>
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canon(o[k])}`).join(',')}}`
  }
  const schema = metadata.schema.slice(1)
  if (JSON.stringify(schema.map((e) => e.name)) !== JSON.stringify(names)) problems.push(`columns ${schema.map((e) => e.name)}`)
  schema.forEach((e, i) => {
    const want = { name: names[i], repetition_type: 'OPTIONAL', ...PARQUET_TYPES[types[i]!] }
    if (canon({ ...e }) !== canon(want)) problems.push(`type of ${e.name}: ${JSON.stringify(e)}, expected ${JSON.stringify(want)}`)
  })
  if (Number(metadata.num_rows) !== n) problems.push(`num_rows ${metadata.num_rows}, expected ${n}`)
  const db = new Database(dsPath, { readonly: true })
  let rows = 0
  try {
    const sql = `SELECT ${names.map((c) => `"${c}"`).join(', ')} FROM "${id}" ORDER BY _id`
    const stored = db.prepare(sql).raw(true).iterate() as IterableIterator<unknown[]>
    const parsers = { dateFromDays: (d: number) => d, timestampFromMicroseconds: (us: bigint) => us }
    let start = 0
    for (const g of metadata.row_groups) {
      const end = start + Number(g.num_rows)
      const got = await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: end, parsers })
      if (got.length !== end - start) problems.push(`row group at ${start}: ${got.length} rows, expected ${end - start}`)
      for (const p of got) {
        const s = stored.next()
        if (s.done) {
          problems.push(`row ${rows}: more rows than the table`)
          break
        }
        for (let c = 0; c < names.length; c++) {
          if (!sameValue(types[c]!, s.value[c], p[names[c]!]) && problems.length < 20)
            problems.push(`row ${rows} (_id ${String(s.value[0])}) ${names[c]}: stored ${JSON.stringify(s.value[c])}, parquet ${String(p[names[c]!])}`)
        }
        rows++
      }
      start = end
    }
    if (!stored.next().done) problems.push(`the table has more rows than the ${rows} of the file`)
  } finally {
    db.close()
  }
  if (problems.length) throw new Error(`parquet read-back differs:\n${problems.join('\n')}`)
  return { rows, groups: metadata.row_groups.length, seconds: (performance.now() - started) / 1000 }
}

/**
 * The Parquet and JSON Lines dumps on a restarted server (as the CSV dump's "restart" figure),
 * alternating; the server's RSS watched during the first of each; then the Parquet read-back.
 */
async function formatDumps(live: Live, id: string, n: number, csvRate: number, log: Log) {
  await live.server!.stop()
  live.server = await startAnswering(live.server!.dbUrl)
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-ds-dumps-'))
  const file = { parquet: join(dir, 'dump.parquet'), jsonl: join(dir, 'dump.jsonl') }
  const runs = { parquet: [] as { rate: number; bytes: number; seconds: number }[], jsonl: [] as { rate: number; bytes: number; seconds: number }[] }
  const peaks: Record<'parquet' | 'jsonl', number> = { parquet: NaN, jsonl: NaN }
  try {
    for (let round = 0; round < FORMAT_ROUNDS; round++) {
      for (const format of ['parquet', 'jsonl'] as const) {
        const watch = round === 0 ? watchPeak(live.server!.child.pid!) : undefined
        const d = await httpDumpToFile(live.server!.url, id, format, file[format])
        if (watch) peaks[format] = watch.stop().peak / MB
        const rows = format === 'jsonl' ? d.lines : Number((await parquetMetadataAsync(await asyncBufferFromFile(file.parquet))).num_rows)
        if (rows !== n) throw new Error(`dump ${format}: ${rows} rows, expected ${n}`)
        runs[format].push({ rate: n / d.seconds, bytes: d.bytes, seconds: d.seconds })
        log(`dump ${format}: ${fmt(n / d.seconds)} rows/s (${fmt(d.bytes / MB, 1)} MB in ${fmt(d.seconds, 1)} s)` + (watch ? `; server RSS peak ${fmt(peaks[format])} MB` : ''))
      }
    }
    const parquetRate = median(runs.parquet.map((r) => r.rate))
    const jsonlRate = median(runs.jsonl.map((r) => r.rate))
    log(
      `dump median parquet ${fmt(parquetRate)} rows/s (${pct(parquetRate / csvRate)} of csv), jsonl ${fmt(jsonlRate)} rows/s ` +
        `(${pct(jsonlRate / csvRate)} of csv); server RSS peak (restarted) parquet ${fmt(peaks.parquet)} MB, jsonl ${fmt(peaks.jsonl)} MB`,
    )
    const dsPath = datastoreUrl(undefined, live.server!.dbUrl).slice('file:'.length)
    const readBack = await parquetReadBack(file.parquet, dsPath, id, n)
    log(`parquet read-back: identical (${fmt(readBack.rows)} rows, ${readBack.groups} row groups, read and compared in ${fmt(readBack.seconds, 1)} s)`)
    return { parquet: { runs: runs.parquet, rate: parquetRate, peakMB: peaks.parquet }, jsonl: { runs: runs.jsonl, rate: jsonlRate, peakMB: peaks.jsonl }, readBack }
  } finally {
    if (process.env.BENCH_KEEP_DB) log(`dumps kept: ${dir}`)
    else rmSync(dir, { recursive: true, force: true })
  }
}

export async function datastoreBench(log: Log = console.log) {
  const n = ROWS
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-ds-raw-'))
  const rawPath = join(dir, 'raw.db')
  const table = benchTable(RAW_TABLE)
  const live: Live = {}
  let serverDir = ''
  try {
    log(
      `${fmt(n)} rows × ${DS_FIELDS.length} columns, batches of ${fmt(BATCH)}; ` +
        `${REQUESTS} searches of each kind after ${WARMUP} warm-ups`,
    )

    // 1. Load.
    const server = (live.server = await startServer(serverEnv()))
    serverDir = server.dir
    const idleMB = rssMB(server.child.pid!)
    const { key, id } = await createTable(server)
    const raw = await rawTable(rawPath, table)
    const loaded = await load(n, raw, server, key, id).finally(() => raw.close())
    const loadedMB = rssMB(server.child.pid!)
    const loadRatio = loaded.ours.rate / loaded.raw.rate
    log(
      `load: datastore_upsert over HTTP ${fmt(loaded.ours.rate)} rows/s (${fmt(loaded.ours.seconds, 1)} s); ` +
        `raw libSQL (@libsql/client batch, same DDL, FTS and values) ${fmt(loaded.raw.rate)} rows/s ` +
        `(${fmt(loaded.raw.seconds, 1)} s); ratio ${pct(loadRatio)}; ` +
        `server RSS ${fmt(idleMB)} MB idle, ${fmt(loadedMB)} MB after the load`,
    )

    // 2. Search: the same requests over HTTP and as the planner's SQL on the raw file (sync driver).
    const words = wordsNear(Q_SHARE, 5).map((w) => w.word)
    const conn = openSync(rawPath)
    const search = {} as Record<Kind, { ours: Latency; raw: Latency }>
    for (const kind of KINDS) {
      const s = (search[kind] = await searches(kind, words, server.url, id, rawSearcher(conn, table)))
      log(
        `search ${kind}: median ${fmt(s.ours.p50, 2)} ms, p95 ${fmt(s.ours.p95, 2)} ms ` +
          `(raw SQL ${fmt(s.raw.p50, 2)} / ${fmt(s.raw.p95, 2)} ms); mean total ${fmt(s.ours.meanTotal)}`,
      )
    }

    // 2b. Keyset paging (CKAN 2.12's next_page): a page deep in the table through the _id filter
    // costs what the first page costs; through offset it walks every row before it.
    const deep = Math.floor(n * 0.9)
    const pageMs = async (body: object) => {
      const ms: number[] = []
      for (let i = 0; i < 3; i++) await httpSearch(server.url, id, body)
      for (let i = 0; i < Math.max(10, Math.floor(REQUESTS / 2)); i++) ms.push((await httpSearch(server.url, id, body)).ms)
      return median(ms)
    }
    const keyset = {
      first: await pageMs({ limit: 100, include_total: false }),
      keyset: await pageMs({ limit: 100, include_total: false, filters: { _id: { gt: deep } } }),
      offset: await pageMs({ limit: 100, include_total: false, offset: deep }),
    }
    log(
      `keyset paging: first page ${fmt(keyset.first, 2)} ms; page after _id ${fmt(deep)} by the next_page filter ` +
        `${fmt(keyset.keyset, 2)} ms (${fmt(keyset.keyset / keyset.first, 2)}× the first; target ≤ 2×); by offset ${fmt(keyset.offset, 2)} ms`,
    )

    // 3. Dump.
    const dump = await dumpPhase(live, id, n, conn, table, log).finally(() => conn.close())
    const formats = await formatDumps(live, id, n, dump.rate, log)

    // 4. The whole table by keyset pages of 1,000 while rows are written between pages: one row
    // deleted behind the reader and one added ahead every 50 pages; every row must come once.
    const walkServer = live.server! // the dump phase restarted the server
    const walkStarted = performance.now()
    const seen = new Uint8Array(n + 1000)
    let duplicates = 0
    let read = 0
    let added = 0
    let filters: object = {}
    for (let pageNo = 0; ; pageNo++) {
      const r = result(await action(walkServer.url, 'datastore_search', { resource_id: id, limit: 1000, include_total: false, include_next_page: true, fields: ['_id'], filters }, key))
      if (!r.records.length) break
      for (const rec of r.records as { _id: number }[]) {
        if (seen[rec._id]) duplicates++
        seen[rec._id] = 1
        read++
      }
      filters = r.next_page
      if (pageNo % 50 === 25) {
        await action(walkServer.url, 'datastore_delete', { resource_id: id, force: true, filters: { id: 1 + pageNo * 10 } }, key)
        await httpInsert(walkServer.url, key, id, dsBatch(n + added, 1))
        added++
      }
    }
    let missing = 0
    for (let i = 1; i <= n; i++) if (!seen[i]) missing++
    const keysetWalk = { rows: read, expected: n + added, duplicates, missing, added, seconds: (performance.now() - walkStarted) / 1000 }
    log(
      `keyset walk: ${fmt(read)} rows in ${fmt(keysetWalk.seconds, 1)} s by next_page (1,000 a page) with ${added} rows added and ` +
        `${added} deleted between pages: ${duplicates} read twice, ${missing} of the first ${fmt(n)} missed (expected 0 and 0)`,
    )
    if (duplicates || missing || read !== n + added) throw new Error(`keyset walk: ${JSON.stringify(keysetWalk)}`)

    const figures = [
      ratioRow('load rows/s', loaded.ours.rate, loaded.raw.rate, TARGETS.loadRatio),
      ...KINDS.flatMap((k) => {
        const s = search[k]
        return [
          // issue 36: within 0.5 ms of the same SQL in process, HTTP included
          row(`search ${k} median ms`, s.ours.p50, s.raw.p50, 2, `≤ raw + 0.5 ms`, s.ours.p50 <= s.raw.p50 + 0.5),
          row(`search ${k} p95 ms`, s.ours.p95, s.raw.p95, 2, '', null),
        ]
      }),
      row('keyset page at 90% ms', keyset.keyset, keyset.first, 2, '≤ 2× first page', keyset.keyset <= 2 * keyset.first),
      ratioRow('dump csv rows/s', dump.rate, dump.rawRate, TARGETS.dumpRatio),
      ratioRow('dump csv / formatter loop', dump.rate, dump.formatterRate, TARGETS.dumpRatio),
      ratioRow('dump tsv rows/s', dump.other.tsv.rate, dump.other.tsv.rawRate, TARGETS.dumpRatio),
      ratioRow('dump json rows/s', dump.other.json.rate, dump.other.json.rawRate, TARGETS.dumpRatio),
      mbRow('dump RSS MB, loaded', dump.afterLoad.peakMB),
      mbRow('dump RSS MB, restart', dump.restarted.peakMB),
      row('dump parquet rows/s', formats.parquet.rate, NaN, 0, '', null),
      row('dump jsonl rows/s', formats.jsonl.rate, NaN, 0, '', null),
      mbRow('dump RSS MB, parquet', formats.parquet.peakMB),
    ]
    printTable(figures, log)
    const out = {
      date: new Date().toISOString(),
      machine: machine(),
      rows: n,
      batch: BATCH,
      requests: REQUESTS,
      qWords: words,
      load: { ...loaded, ratio: loadRatio, serverIdleMB: idleMB, serverLoadedMB: loadedMB },
      search,
      keyset,
      keysetWalk,
      dump,
      formats,
      targets: TARGETS,
      figures,
    }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    log(`figures written to ${RESULTS_FILE}`)
    return out
  } finally {
    // a server that already exited would never emit 'exit' again
    const last = live.server?.child
    if (last && last.exitCode === null && last.signalCode === null) await live.server!.stop()
    if (process.env.BENCH_KEEP_DB) log(`databases kept: ${rawPath}, ${serverDir}`)
    else for (const d of [dir, serverDir]) if (d) rmSync(d, { recursive: true, force: true })
  }
}

interface Figure {
  figure: string
  ours: number
  raw: number
  ratio: number
  digits: number
  target: string
  ok: boolean | null
}

function row(figure: string, ours: number, raw: number, digits: number, target: string, ok: boolean | null): Figure {
  return { figure, ours, raw, ratio: ours / raw, digits, target, ok }
}

const ratioRow = (figure: string, ours: number, raw: number, target: number) =>
  row(figure, ours, raw, 0, `≥ ${pct(target)} of raw`, ours / raw >= target)
const mbRow = (figure: string, mb: number) => row(figure, mb, NaN, 0, `< ${TARGETS.dumpMB} MB`, mb < TARGETS.dumpMB)

function printTable(figures: Figure[], log: Log) {
  const pad = (s: string, w: number) => s.padEnd(w)
  const lpad = (s: string, w: number) => s.padStart(w)
  log(`${pad('figure', 22)}${lpad('ours', 11)}${lpad('raw', 11)}${lpad('ratio', 9)}  ${pad('target', 16)}ok?`)
  for (const f of figures) {
    // latencies have a raw reference but no ratio target
    const ratio = f.figure.startsWith('search') || !Number.isFinite(f.ratio) ? '' : pct(f.ratio)
    log(
      `${pad(f.figure, 22)}${lpad(fmt(f.ours, f.digits), 11)}${lpad(fmt(f.raw, f.digits), 11)}${lpad(ratio, 9)}  ` +
        `${pad(f.target, 16)}${f.ok === null ? '' : f.ok ? 'yes' : 'NO'}`,
    )
  }
}

function machine() {
  const cpus = os.cpus()
  return { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version }
}
