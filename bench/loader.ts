// Benchmark 7: the loader end to end on the real Node server. A CSV of the DataStore benchmark's
// rows (bench/lib/ds-rows.ts, 10 mixed columns) is uploaded with a streamed multipart
// resource_create; the in-process job runner loads it. Timed from the start of the upload to
// `datastore_active`, and the load alone from the job's own timestamps; the server's RSS is
// sampled throughout. Baseline in the same run: the same file parsed with csv-parse and written
// through @libsql/client in multi-row INSERT batches into a table of the same shape (the types the
// loader guesses, its FTS5 table and triggers), once before and once after the server's load, so
// that load from other processes on the machine falls on both sides alike.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkHeaders, guessTypes, SAMPLE_ROWS } from '../src/jobs/loader/columns'
import { BATCH_ROWS } from '../src/jobs/loader/load'
import { action, adminAndDataset, result } from './lib/ds-http'
import { csvRecordBatches, writeDsCsv } from './lib/ds-csv'
import { DS_FIELDS } from './lib/ds-rows'
import { benchTable, rawTable } from './lib/ds-raw'
import { procMemory, watchPeak } from './lib/rss'
import { startServer, type RunningServer } from './lib/server'
import { fileChunks, multipartAction } from './lib/upload'

const ROWS = Number(process.env.BENCH_LOADER_ROWS ?? 1_000_000)
const POLL_MS = 200
const RSS_EVERY_MS = 100
const TIMEOUT_MS = Number(process.env.BENCH_LOADER_TIMEOUT_S ?? 3600) * 1000
const RAW_TABLE = '0b5e7a3c-0000-4000-8000-0000000loader'
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'loader-latest.json')
const TARGETS = { ratio: 0.5, rssMB: 250 }

const MB = 1e6
const MiB = 1024 * 1024
const fmt = (x: number, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a'
const pct = (r: number) => (Number.isFinite(r) ? `${(r * 100).toFixed(1)}%` : 'n/a')
/** CKAN's naive UTC timestamps (microseconds) as epoch milliseconds. */
const utcMs = (s: string | null | undefined) => (s ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : s + 'Z') : NaN)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Log = (s: string) => void

/** The loader's guess for the file (its own function, on the same first rows). */
async function guessedFields(path: string) {
  for await (const batch of csvRecordBatches(path, SAMPLE_ROWS)) {
    const ids = checkHeaders(DS_FIELDS.map((f) => f.id))
    const types = guessTypes(ids, batch.map((r) => ids.map((id) => r[id] ?? null)), new Map())
    return ids.map((id, i) => ({ id, type: types[i]! }))
  }
  throw new Error('empty CSV')
}

/**
 * Raw libSQL: parse the file with csv-parse, coerce, multi-row INSERTs in the loader's batches
 * (BATCH_ROWS rows per transaction, 600 rows per statement). Wall time covers all of it.
 */
async function rawLoad(dbPath: string, csvPath: string, fields: { id: string; type: string }[]) {
  const raw = await rawTable(dbPath, benchTable(RAW_TABLE, fields, []))
  try {
    let rows = 0
    let dbMs = 0
    const started = performance.now()
    for await (const batch of csvRecordBatches(csvPath, BATCH_ROWS)) {
      dbMs += await raw.insert(batch)
      rows += batch.length
    }
    const seconds = (performance.now() - started) / 1000
    return { rows, seconds, rate: rows / seconds, dbSeconds: dbMs / 1000 }
  } finally {
    raw.close()
  }
}

/** Polls resource_show every POLL_MS until `datastore_active`; a failed load throws. */
async function waitActive(server: RunningServer, key: string, id: string) {
  for (const t0 = performance.now(); ; await sleep(POLL_MS)) {
    const res = result(await action(server.url, 'resource_show', { id }, key))
    if (res.datastore_active === true) return performance.now()
    const st = await action(server.url, 'xloader_status', { resource_id: id }, key).then(result, () => null)
    if (st?.status === 'error') throw new Error(`load failed: ${JSON.stringify(st.error)}`)
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`not loaded after ${TIMEOUT_MS / 1000} s`)
  }
}

export async function loaderBench(log: Log = console.log) {
  const n = ROWS
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-loader-'))
  const csvPath = join(dir, 'rows.csv')
  let server: RunningServer | undefined
  let serverDir = ''
  try {
    const genStarted = performance.now()
    const bytes = await writeDsCsv(csvPath, n)
    log(
      `${fmt(n)} rows × ${DS_FIELDS.length} columns: ${fmt(bytes / MB, 1)} MB of CSV written in ` +
        `${fmt((performance.now() - genStarted) / 1000, 1)} s`,
    )
    const fields = await guessedFields(csvPath)

    // 1. Raw libSQL, before.
    const rawBefore = await rawLoad(join(dir, 'raw-1.db'), csvPath, fields)
    log(`raw libSQL (csv-parse + multi-row INSERT, same table and FTS): ${fmt(rawBefore.rate)} rows/s (${fmt(rawBefore.seconds, 1)} s)`)

    // 2. The server: upload, then wait for the load.
    server = await startServer({
      SERVICE__MAX_RESOURCE_SIZE: String(Math.ceil(bytes / MiB) + 16),
      SERVICE__STORAGE_PATH: join(dir, 'uploads'),
    })
    serverDir = server.dir
    const pid = server.child.pid!
    const { key, packageId } = await adminAndDataset(server, 'loader-bench')
    const idleMB = (procMemory(pid)?.rss ?? NaN) / MB
    const watch = watchPeak(pid, RSS_EVERY_MS)
    const started = performance.now()
    const up = await multipartAction(
      server.url,
      'resource_create',
      key,
      { package_id: packageId, name: 'bench rows', format: 'CSV' },
      { name: 'rows.csv', type: 'text/csv', chunks: fileChunks(csvPath) },
    )
    const uploadedMB = (procMemory(pid)?.rss ?? NaN) / MB
    const activeAt = await waitActive(server, key, up.result.id)
    const peak = watch.stop()
    const status = result(await action(server.url, 'xloader_status', { resource_id: up.result.id }, key))
    const info = status.task_info ?? {}
    const loadSeconds = (utcMs(info.finished_timestamp) - utcMs(info.started)) / 1000
    const toActive = (activeAt - started) / 1000
    const uploadSeconds = up.ms / 1000
    const search = result(await action(server.url, 'datastore_search', { resource_id: up.result.id, limit: 0 }, key))
    if (search.total !== n) throw new Error(`datastore_search total ${search.total}, expected ${n}`)
    const loaded = (search.fields as { id: string; type: string }[]).filter((f) => f.id !== '_id')
    const same = JSON.stringify(loaded.map((f) => [f.id, f.type])) === JSON.stringify(fields.map((f) => [f.id, f.type]))
    if (!same) throw new Error(`the loader made ${JSON.stringify(loaded)}, the baseline ${JSON.stringify(fields)}`)
    await server.stop()
    server = undefined
    const ours = { rate: n / toActive, loadRate: n / loadSeconds }
    log(
      `upload → datastore_active: ${fmt(ours.rate)} rows/s (${fmt(toActive, 1)} s: upload ${fmt(uploadSeconds, 1)} s ` +
        `= ${fmt(bytes / MB / uploadSeconds, 1)} MB/s, load ${fmt(loadSeconds, 1)} s = ${fmt(ours.loadRate)} rows/s); ` +
        `server RSS ${fmt(idleMB)} MB idle, ${fmt(uploadedMB)} MB after the upload, max ${fmt(peak.peak / MB)} MB` +
        (peak.kernelPeak ? '' : ' (sampled only)'),
    )
    log(`types: ${loaded.map((f) => `${f.id} ${f.type}`).join(', ')}`)

    // 3. Raw libSQL, after.
    const rawAfter = await rawLoad(join(dir, 'raw-2.db'), csvPath, fields)
    log(`raw libSQL again: ${fmt(rawAfter.rate)} rows/s (${fmt(rawAfter.seconds, 1)} s)`)
    const rawRate = n / ((rawBefore.seconds + rawAfter.seconds) / 2)

    const figures = [
      { figure: 'upload → active rows/s', ours: ours.rate, raw: rawRate, ratio: ours.rate / rawRate, target: `≥ ${pct(TARGETS.ratio)} of raw`, ok: ours.rate / rawRate >= TARGETS.ratio },
      { figure: 'load alone rows/s', ours: ours.loadRate, raw: rawRate, ratio: ours.loadRate / rawRate, target: '', ok: null },
      { figure: 'server RSS max MB', ours: peak.peak / MB, raw: NaN, ratio: NaN, target: `< ${TARGETS.rssMB} MB`, ok: peak.peak / MB < TARGETS.rssMB },
    ]
    log(`${'figure'.padEnd(24)}${'ours'.padStart(11)}${'raw'.padStart(11)}${'ratio'.padStart(9)}  ${'target'.padEnd(16)}ok?`)
    for (const f of figures)
      log(
        `${f.figure.padEnd(24)}${fmt(f.ours).padStart(11)}${fmt(f.raw).padStart(11)}` +
          `${(Number.isFinite(f.ratio) ? pct(f.ratio) : '').padStart(9)}  ${f.target.padEnd(16)}` +
          `${f.ok === null ? '' : f.ok ? 'yes' : 'NO'}`,
      )
    const cpus = os.cpus()
    const out = {
      date: new Date().toISOString(),
      machine: { cpus: cpus.length, model: cpus[0]?.model, memGiB: os.totalmem() / 2 ** 30, node: process.version },
      rows: n,
      csvBytes: bytes,
      fields: loaded,
      ours: {
        toActiveSeconds: toActive,
        uploadSeconds,
        loadSeconds,
        rate: ours.rate,
        loadRate: ours.loadRate,
        job: { created: info.created, started: info.started, finished: info.finished_timestamp },
      },
      raw: { before: rawBefore, after: rawAfter, rate: rawRate },
      rss: { idleMB, afterUploadMB: uploadedMB, maxMB: peak.peak / MB, sampledMaxMB: peak.sampledPeak / MB, kernelPeak: peak.kernelPeak },
      targets: TARGETS,
      figures,
    }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    log(`figures written to ${RESULTS_FILE}`)
    return out
  } finally {
    // a server that already exited would never emit 'exit' again
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop()
    if (process.env.BENCH_KEEP_DB) log(`files kept: ${dir}, ${serverDir}`)
    else for (const d of [dir, serverDir]) if (d) rmSync(d, { recursive: true, force: true })
  }
}
