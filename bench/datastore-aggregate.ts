// Benchmark: datastore_search with group_by and aggregates over HTTP against the real Node server,
// beside the same grouping as plain SQL on raw libSQL (the synchronous driver in this thread, on the
// server's own DataStore file): the fastest honest reference. The two sides alternate request by
// request, so load from other processes falls on both alike.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'libsql'
import { readOnlyUri } from '../src/runtime/node-sql-runner'
import { createTable, httpInsert, action, result } from './lib/ds-http'
import { dsBatch } from './lib/ds-rows'
import { startServer } from './lib/server'

const ROWS = Number(process.env.BENCH_DS_ROWS ?? 1_000_000)
const REQUESTS = Number(process.env.BENCH_AGG_REQUESTS ?? 20)
const WARMUP = 3
const BATCH = 10_000
/** The server's runner connections keep a 16 MiB page cache (src/runtime/node-sql-runner.ts). */
const PAGE_CACHE_KIB = 16384
const TARGET_RATIO = 1.5

const fmt = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

function percentile(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b)
  if (p === 50) {
    const m = s.length >> 1
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
  }
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

interface Case {
  name: string
  body: Record<string, unknown>
  /** The same grouping as one would write it by hand. */
  sql: string
}

function cases(table: string): Case[] {
  const t = `"${table}"`
  return [
    {
      name: 'group_by category (indexed): count + avg',
      body: { group_by: ['category'], aggregates: [{ function: 'count' }, { function: 'avg', column: 'amount' }] },
      sql: `SELECT category, count(*), avg(amount) FROM ${t} GROUP BY category ORDER BY category`,
    },
    {
      name: 'group_by month of a date (unindexed): count + avg',
      body: { group_by: [{ column: 'day', bucket: 'month' }], aggregates: [{ function: 'count' }, { function: 'avg', column: 'amount' }], limit: 1000 },
      sql: `SELECT strftime('%Y-%m-01', day) m, count(*), avg(amount) FROM ${t} GROUP BY m ORDER BY m`,
    },
  ]
}

/** Both answers hold the same groups: keys and counts exactly, averages within rounding. */
function check(name: string, records: unknown[][], raw: unknown[][]) {
  const same =
    records.length === raw.length &&
    records.every((r, i) => {
      const w = raw[i]!
      return r[0] === w[0] && Number(r[1]) === Number(w[1]) && Math.abs(Number(r[2]) - Number(w[2])) <= 1e-9 * Math.abs(Number(w[2]))
    })
  if (!same) throw new Error(`${name}: the answers differ\n${JSON.stringify(records.slice(0, 3))}\n${JSON.stringify(raw.slice(0, 3))}`)
}

type Log = (s: string) => void

export async function aggregateBench(log: Log = console.log) {
  const n = ROWS
  log(`${fmt(n)} rows (BENCH_DS_ROWS), loaded through datastore_upsert; ${REQUESTS} requests of each kind after ${WARMUP} warm-ups`)
  const server = await startServer()
  try {
    const { key, id } = await createTable(server)
    const loadStarted = performance.now()
    for (let from = 0; from < n; from += BATCH) await httpInsert(server.url, key, id, dsBatch(from, Math.min(BATCH, n - from)))
    log(`load: ${fmt((performance.now() - loadStarted) / 1000, 1)} s`)
    const conn = new Database(readOnlyUri(join(server.dir, 'datastore.db')))
    conn.exec(`PRAGMA cache_size=-${PAGE_CACHE_KIB}`)
    const out: { name: string; ours: { p50: number; p95: number }; raw: { p50: number; p95: number }; ratio: number; groups: number }[] = []
    try {
      for (const c of cases(id)) {
        const st = conn.prepare(c.sql).raw(true)
        const ours: number[] = []
        const raw: number[] = []
        let groups = 0
        for (let i = -WARMUP; i < REQUESTS; i++) {
          let started = performance.now()
          const answer = result(await action(server.url, 'datastore_search', { resource_id: id, records_format: 'lists', ...c.body }))
          const ms = performance.now() - started
          started = performance.now()
          const rows = st.all() as unknown[][]
          const rawMs = performance.now() - started
          check(c.name, answer.records, rows)
          groups = answer.total
          if (i >= 0) {
            ours.push(ms)
            raw.push(rawMs)
          }
        }
        const row = {
          name: c.name,
          ours: { p50: percentile(ours, 50), p95: percentile(ours, 95) },
          raw: { p50: percentile(raw, 50), p95: percentile(raw, 95) },
          ratio: percentile(ours, 50) / percentile(raw, 50),
          groups,
        }
        out.push(row)
        log(
          `${c.name} (${groups} groups): datastore_search over HTTP median ${fmt(row.ours.p50, 1)} ms, p95 ${fmt(row.ours.p95, 1)} ms; ` +
            `raw libSQL ${fmt(row.raw.p50, 1)} / ${fmt(row.raw.p95, 1)} ms; ratio ${fmt(row.ratio, 2)}× ` +
            `(target ≤ ${TARGET_RATIO}×: ${row.ratio <= TARGET_RATIO ? 'met' : 'NOT met'})`,
        )
      }
    } finally {
      conn.close()
    }
    return { rows: n, requests: REQUESTS, cases: out }
  } finally {
    await server.stop()
    if (process.env.BENCH_KEEP_DB) log(`database kept: ${server.dir}`)
    else rmSync(server.dir, { recursive: true, force: true })
  }
}
