// Benchmark 10: the web pages' server render time at 10,000 datasets, in-process (`app.request`,
// no socket: the render, the actions it calls and the HTML), and each page's HTML size.
// BENCH_PAGES_DATASETS (10000), BENCH_PAGES_REQUESTS (300 per page).
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { clientExecutor } from '../src/db/executor'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { bulkFill } from './lib/bulk-fill'
import { corpus } from './lib/generate'
import { saveResults } from './lib/results'

const DATASETS = Number(process.env.BENCH_PAGES_DATASETS ?? 10_000)
const REQUESTS = Number(process.env.BENCH_PAGES_REQUESTS ?? 300)
const SEED = 7
const ORGS = 100
const TARGET_P50_MS = 5
const TARGET_KB = 60

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!

export async function pagesBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'ckan-edge-pages-'))
  try {
    const url = `file:${join(dir, 'catalogue.db')}`
    const opened = await openCatalogDb(url)
    const admin = await addSysadmin(buildDeps(loadConfig({}), opened.db), 'bench-admin')
    const fill = await bulkFill(opened.writeExecutor ?? clientExecutor(opened.client), DATASETS, { adminId: admin.id, orgCount: ORGS, seed: SEED })
    console.log(`fill: ${DATASETS.toLocaleString('en-US')} datasets in ${fill.seconds.toFixed(1)} s`)
    const deps = buildDeps(loadConfig({}), opened.db, { ...opened, search: { snapshots: false } })
    await warmUp(deps)
    const app = createApp(deps)
    await deps.search.ready()
    const c = corpus(SEED)
    const names = (await opened.client.execute("SELECT name FROM package WHERE state = 'active' AND private = 0 ORDER BY random() LIMIT 200")).rows.map((r) => String(r.name))
    const orgNames = (await opened.client.execute("SELECT name FROM \"group\" WHERE is_organization = 1 LIMIT 200")).rows.map((r) => String(r.name))
    const words = c.words.slice(0, 40).concat(c.words.slice(40, 2000).filter((_, i) => i % 50 === 0))
    const pages: { page: string; path: (i: number) => string; target?: number; sizeTarget?: number }[] = [
      { page: 'home /', path: () => '/', sizeTarget: TARGET_KB },
      { page: 'search /dataset?q=<word>', path: (i) => `/dataset?q=${encodeURIComponent(words[i % words.length]!)}`, target: TARGET_P50_MS, sizeTarget: TARGET_KB },
      { page: 'search with a facet filter', path: (i) => `/dataset?q=${encodeURIComponent(words[i % words.length]!)}&organization=${orgNames[i % orgNames.length]}` },
      { page: 'dataset /dataset/<name>', path: (i) => `/dataset/${names[i % names.length]}`, target: TARGET_P50_MS },
      { page: 'organization /organization/<name>', path: (i) => `/organization/${orgNames[i % orgNames.length]}` },
      { page: 'organization list', path: () => '/organization' },
    ]
    const rows = []
    for (const p of pages) {
      const first = await app.request(p.path(0))
      const html = await first.text()
      if (first.status !== 200) throw new Error(`${p.page}: ${first.status}`)
      for (let i = 0; i < 20; i++) await (await app.request(p.path(i))).text()
      const ms: number[] = []
      let bytes = 0
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now()
        const res = await app.request(p.path(i))
        const text = await res.text()
        ms.push(performance.now() - t)
        if (res.status !== 200) throw new Error(`${p.page} ${p.path(i)}: ${res.status}`)
        bytes += Buffer.byteLength(text)
      }
      ms.sort((a, b) => a - b)
      const row = {
        page: p.page,
        p50: pct(ms, 50),
        p99: pct(ms, 99),
        firstKB: Buffer.byteLength(html) / 1024,
        meanKB: bytes / REQUESTS / 1024,
        target: p.target,
        sizeTarget: p.sizeTarget,
        ok: (p.target === undefined || pct(ms, 50) < p.target) && (p.sizeTarget === undefined || bytes / REQUESTS / 1024 < p.sizeTarget),
      }
      rows.push(row)
      console.log(
        `${p.page.padEnd(36)} p50 ${row.p50.toFixed(2).padStart(6)} ms  p99 ${row.p99.toFixed(2).padStart(6)} ms  HTML ${row.meanKB.toFixed(1).padStart(5)} KB` +
          (p.target || p.sizeTarget ? `   (target${p.target ? ` p50 < ${p.target} ms` : ''}${p.sizeTarget ? ` HTML < ${p.sizeTarget} KB` : ''}: ${row.ok ? 'met' : 'NOT met'})` : ''),
      )
    }
    const out = saveResults('pages', { datasets: DATASETS, requests: REQUESTS, rows })
    opened.close()
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
