// Benchmark: package_search with ext_bbox (issue 30) at 100,000 datasets with generated polygons and
// points, in-process, beside the same queries without it; and the index memory the geometries add.
// BENCH_SPATIAL_DATASETS (100000), BENCH_SPATIAL_QUERIES (200 per class), BENCH_KEEP_DB.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import type { MemoryIndex } from '../src/search/minisearch'
import { bulkFill } from './lib/bulk-fill'
import { corpus, rng } from './lib/generate'

const N = Number(process.env.BENCH_SPATIAL_DATASETS ?? 100_000)
const QUERIES = Number(process.env.BENCH_SPATIAL_QUERIES ?? 200)
const WARMUP = 50
/** Share of datasets with a polygon; of the rest, half a point and half no geometry. */
const POLYGONS = 0.7
const POINTS = 0.15

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

/** Dataset i's geometry: an irregular polygon of 6–16 vertices, 0.05–4° across, or a point. */
function geometry(i: number): { key: string; value: string }[] {
  const r = rng(1000 + i)
  const u = r()
  const cx = -180 + r() * 360
  const cy = -70 + r() * 140
  if (u < POLYGONS) {
    const k = 6 + Math.floor(r() * 11)
    const radius = 0.025 + r() * 2
    const ring: number[][] = []
    for (let j = 0; j < k; j++) {
      const a = (2 * Math.PI * j) / k
      const rr = radius * (0.5 + r() * 0.5)
      ring.push([round(cx + rr * Math.cos(a)), round(Math.max(-90, Math.min(90, cy + rr * Math.sin(a))))])
    }
    ring.push(ring[0]!)
    return [{ key: 'spatial', value: JSON.stringify({ type: 'Polygon', coordinates: [ring] }) }]
  }
  if (u < POLYGONS + POINTS) return [{ key: 'spatial', value: JSON.stringify({ type: 'Point', coordinates: [round(cx), round(cy)] }) }]
  return []
}
const round = (x: number) => Math.round(x * 1e5) / 1e5

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

interface Stats {
  p50: number
  p99: number
  meanCount: number
}

export async function spatialBench() {
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-spatial-'))
  const dbUrl = `file:${join(dir, 'catalogue.db')}`
  try {
    const filling = await openCatalogDb(dbUrl)
    const admin = await addSysadmin(buildDeps(loadConfig({}), filling.db), 'bench-admin')
    const fill = await bulkFill(filling.writeExecutor!, N, { adminId: admin.id, orgCount: 200, seed: 7, extras: geometry })
    filling.close()
    console.log(`fill: ${fmt(N)} datasets (${fmt(POLYGONS * 100)} % with a polygon, ${fmt(POINTS * 100)} % with a point) in ${fmt(fill.seconds, 1)} s`)

    const opened = await openCatalogDb(dbUrl)
    const { db, headProbe, writeExecutor, readExecutor } = opened
    const deps = buildDeps(loadConfig({}), db, { headProbe, writeExecutor, readExecutor, search: { snapshots: false } })
    await warmUp(deps)
    const app = createApp(deps)
    const search = async (body: object) => {
      const t = performance.now()
      const res = await app.request('/api/3/action/package_search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const json = (await res.json()) as { success: boolean; result: { count: number } }
      if (!json.success) throw new Error(`package_search failed: ${JSON.stringify(json).slice(0, 300)}`)
      return { ms: performance.now() - t, count: json.result.count }
    }
    const t0 = performance.now()
    await search({ rows: 1 })
    console.log(`index built from the database in ${fmt((performance.now() - t0) / 1000, 1)} s`)

    const idx = (await deps.search.ready()) as unknown as MemoryIndex
    const geo = idx.geo
    const withPolygon = Math.round(N * POLYGONS)
    // the pool holds exactly the live geometries once dumped (a restored index has no slack)
    const dump = geo.dump(idx.capacity)
    const poolPerPolygon = (dump.pool.byteLength - Math.round(N * POINTS) * 5 * 8) / withPolygon
    const perDoc = (dump.bounds.byteLength + dump.start.byteLength + dump.length.byteLength) / idx.capacity
    console.log(
      `index memory for geometries: ${fmt(geo.size)} datasets with one; typed arrays ${fmt((dump.bounds.byteLength + dump.start.byteLength + dump.length.byteLength + dump.pool.byteLength) / 2 ** 20, 1)} MiB ` +
        `= ${fmt(perDoc)} B per document slot (box, offset, length) + ${fmt(poolPerPolygon)} B of coordinates per polygon (avg 11 vertices); ` +
        `added per dataset with a polygon ≈ ${fmt(perDoc + poolPerPolygon)} B`,
    )

    const words = corpus(7).words.slice(0, 20)
    const r = rng(99)
    const box = () => {
      const w = 2 + r() * 18
      const h = 2 + r() * 13
      const x = -180 + r() * 360
      const y = -75 + r() * (150 - h)
      return [x, y, x + w > 180 ? x + w - 360 : x + w, y + h].map((v) => v.toFixed(3)).join(',')
    }
    const classes: { name: string; params: () => object }[] = [
      { name: 'all datasets (q empty, default sort)', params: () => ({}) },
      { name: 'a word (q), facets on tags and organization', params: () => ({ q: words[Math.floor(r() * words.length)] ?? 'data', 'facet.field': ['tags', 'organization'] }) },
      { name: 'all datasets sorted by name', params: () => ({ sort: 'name asc' }) },
    ]
    const rows: { name: string; plain: Stats; spatial: Stats }[] = []
    for (const c of classes) {
      const pairs = Array.from({ length: QUERIES + WARMUP }, () => ({ p: c.params(), box: box() }))
      const plainMs: number[] = []
      const spatialMs: number[] = []
      let plainCount = 0
      let spatialCount = 0
      for (const [i, { p, box: b }] of pairs.entries()) {
        // alternate, so that both see the same state of the heap
        const a = await search(p)
        const s = await search({ ...p, ext_bbox: b })
        if (i < WARMUP) continue
        plainMs.push(a.ms)
        spatialMs.push(s.ms)
        plainCount += a.count
        spatialCount += s.count
      }
      const stats = (ms: number[], count: number): Stats => {
        const sorted = ms.sort((x, y) => x - y)
        return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), meanCount: count / ms.length }
      }
      rows.push({ name: c.name, plain: stats(plainMs, plainCount), spatial: stats(spatialMs, spatialCount) })
    }
    for (const row of rows) {
      const ratio = row.spatial.p50 / row.plain.p50
      console.log(
        `${row.name}: without ext_bbox p50 ${fmt(row.plain.p50, 2)} ms p99 ${fmt(row.plain.p99, 2)} ms (mean count ${fmt(row.plain.meanCount)}); ` +
          `with ext_bbox p50 ${fmt(row.spatial.p50, 2)} ms p99 ${fmt(row.spatial.p99, 2)} ms (mean count ${fmt(row.spatial.meanCount)}); ` +
          `ratio ${fmt(ratio, 2)}× (goal ≤ 1.5×: ${ratio <= 1.5 ? 'met' : 'NOT met'})`,
      )
    }
    deps.search.stop()
    opened.close()
    return rows
  } finally {
    if (!process.env.BENCH_KEEP_DB) rmSync(dir, { recursive: true, force: true })
    else console.log(`kept ${dir}`)
  }
}
