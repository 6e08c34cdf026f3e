// Benchmark 11: changes_list at 100,000 datasets, in-process: a page of 1,000 changes read from the
// start, the middle and the end of the change log (as a harvester following the feed would).
// BENCH_CHANGES_DATASETS (100000), BENCH_CHANGES_REQUESTS (50 per position).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { clientExecutor } from '../src/db/executor'
import { cursorOf } from '../src/actions/changes/changes_list'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { bulkFill } from './lib/bulk-fill'

const DATASETS = Number(process.env.BENCH_CHANGES_DATASETS ?? 100_000)
const REQUESTS = Number(process.env.BENCH_CHANGES_REQUESTS ?? 50)
const TARGET_P50_MS = 20
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'changes-latest.json')
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!

export async function changesBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-changes-'))
  try {
    const opened = await openCatalogDb(`file:${join(dir, 'catalogue.db')}`)
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    const fill = await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), DATASETS, { adminId: admin.id, orgCount: 200, seed: 7 })
    // every dataset changed once more, as a day of edits would leave the log
    await opened.client.execute("INSERT INTO change_log (entity_type, entity_id, op) SELECT 'package', id, 'upsert' FROM package")
    const head = Number((await opened.client.execute('SELECT max(seq) AS s FROM change_log')).rows[0]!.s)
    console.log(`fill: ${DATASETS.toLocaleString('en-US')} datasets in ${fill.seconds.toFixed(1)} s; change log ${head.toLocaleString('en-US')} rows`)
    const deps = buildDeps(loadConfig({}), opened.db, { ...opened, search: { snapshots: false } })
    await warmUp(deps)
    const app = createApp(deps)
    const rows = []
    for (const [label, at] of [['from the start', 0], ['from the middle', Math.floor(head / 2)], ['near the end', head - 1000]] as const) {
      const path = `/api/3/action/changes_list?limit=1000&since=${cursorOf(at)}`
      for (let i = 0; i < 5; i++) await (await app.request(path)).text()
      const ms: number[] = []
      let count = 0
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now()
        const res = await app.request(path)
        const body = (await res.json()) as { result: { changes: unknown[] } }
        ms.push(performance.now() - t)
        count = body.result.changes.length
      }
      ms.sort((a, b) => a - b)
      const row = { position: label, p50: pct(ms, 50), p99: pct(ms, 99), changes: count, ok: pct(ms, 50) < TARGET_P50_MS }
      rows.push(row)
      console.log(`changes_list, 1,000 changes ${label.padEnd(16)} p50 ${row.p50.toFixed(2).padStart(6)} ms  p99 ${row.p99.toFixed(2).padStart(6)} ms  (${count} returned; target p50 < ${TARGET_P50_MS} ms: ${row.ok ? 'met' : 'NOT met'})`)
    }
    const out = { date: new Date().toISOString(), datasets: DATASETS, logRows: head, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, rows }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    console.log(`figures written to ${RESULTS_FILE}`)
    opened.close()
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
