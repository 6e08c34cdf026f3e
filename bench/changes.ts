// Benchmark 11: changes_list at 100,000 datasets, in-process: a page of 1,000 changes read from the
// start, the middle and the end of the change log (as a harvester following the feed would).
// BENCH_CHANGES_DATASETS (100000), BENCH_CHANGES_REQUESTS (50 per position).
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { clientExecutor } from '../src/db/executor'
import { cursorOf } from '../src/actions/changes/changes_list'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { bulkFill } from './lib/bulk-fill'
import { saveResults } from './lib/results'

const DATASETS = Number(process.env.BENCH_CHANGES_DATASETS ?? 100_000)
const REQUESTS = Number(process.env.BENCH_CHANGES_REQUESTS ?? 50)
const TARGET_P50_MS = 20
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
    // package_search cursors over the whole catalogue, 1,000 a page by name, while datasets are
    // created (ahead of the reader and behind it) and deleted (ahead) between pages
    const post = async (name: string, body: object) => {
      const res = await app.request(`/api/3/action/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: admin.apikey! }, body: JSON.stringify(body) })
      const j = (await res.json()) as { success: boolean; result: any; error?: unknown }
      if (!j.success) throw new Error(`${name}: ${JSON.stringify(j.error)}`)
      return j.result
    }
    // the index is built (or loaded) first, as the server does at start: the pages' figures are the pages'
    const built = performance.now()
    await deps.search.ready()
    console.log(`search index of ${DATASETS.toLocaleString('en-US')} datasets ready in ${((performance.now() - built) / 1000).toFixed(1)} s`)
    const all = (await opened.client.execute("SELECT name FROM package WHERE state = 'active' AND private = 0")).rows.map((r) => String(r.name))
    const seen = new Map<string, number>()
    const pageMs: number[] = []
    let cursor = '*'
    const created: string[] = []
    const deleted: string[] = []
    const sortedNames = [...all].sort()
    for (let pageNo = 0; pageNo < 1000; pageNo++) {
      const t = performance.now()
      const r = await post('package_search', { q: '', rows: 1000, sort: 'name asc', cursor, fl: 'name' })
      pageMs.push(performance.now() - t)
      for (const d of r.results as { name: string }[]) seen.set(d.name, (seen.get(d.name) ?? 0) + 1)
      if (!r.next_cursor) break
      cursor = r.next_cursor
      if (pageNo % 10 === 5) {
        const last = (r.results as { name: string }[]).at(-1)!.name
        await post('package_create', { name: `zzzz-late-${pageNo}` }) // sorts after everything: must be read
        created.push(`zzzz-late-${pageNo}`)
        await post('package_create', { name: `0000-early-${pageNo}` }) // sorts before the reader: not read
        const ahead = sortedNames.find((x) => x > last && !deleted.includes(x))!
        await post('package_delete', { id: ahead }) // ahead of the reader: must not be read
        deleted.push(ahead)
      }
    }
    const twice = [...seen.values()].filter((c) => c > 1).length
    const missed = all.filter((x) => !deleted.includes(x) && !seen.has(x)).length + created.filter((x) => !seen.has(x)).length
    const wrong = deleted.filter((x) => seen.has(x)).length + [...seen.keys()].filter((x) => x.startsWith('0000-early-')).length
    const cursorWalk = { pages: pageMs.length, read: [...seen.values()].reduce((a, b) => a + b, 0), twice, missed, wrong, firstPageMs: pageMs[0], lastPageMs: pageMs.at(-1), medianPageMs: [...pageMs].sort((a, b) => a - b)[pageMs.length >> 1] }
    console.log(
      `package_search cursor walk by name, 1,000 a page: ${cursorWalk.read.toLocaleString('en-US')} datasets in ${cursorWalk.pages} pages with writes between them; ` +
        `${twice} read twice, ${missed} missed, ${wrong} that should not be read (expected 0, 0, 0); page p50 ${cursorWalk.medianPageMs!.toFixed(1)} ms, first ${cursorWalk.firstPageMs!.toFixed(1)}, last ${cursorWalk.lastPageMs!.toFixed(1)}`,
    )
    if (twice || missed || wrong) throw new Error(`cursor walk: ${JSON.stringify(cursorWalk)}`)
    const out = saveResults('changes', { datasets: DATASETS, logRows: head, cursorWalk, rows })
    opened.close()
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
