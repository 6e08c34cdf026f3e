// Issue 32, acceptance 2: the search tier at 100,000 datasets in workerd itself. The catalogue is
// bulk-filled into sqld's file (the benchmarks' fill, bench/lib/sqld-fill.ts); the shard count is what automatic sizing chooses
// for it. (1) Each object, alone in an isolate held to 64 MB of V8 heap (workerd aborts past it),
// builds its shard from the datasets, stores its snapshot, and later loads it again: the heap after
// every full GC is the object's. (2) A new workerd process (cold isolates) over the stored objects:
// the Worker answers the scale bench's answer checks exactly as the Node app over the same database
// does, and no Worker isolate holds an index (one isolate, the objects', holds it all).
// SEARCH_SCALE_DATASETS changes the size (e.g. 20000 for a quick run); for measurements,
// SEARCH_SCALE_SHARDS and SEARCH_SCALE_HEAP_MB change the shard count and the heap limit.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerChecks, type Answerer, type SearchAnswer } from '../../bench/lib/answer-checks'
import { filledSqld } from '../../bench/lib/sqld-fill'
import { queryMix } from '../../bench/lib/search-queries'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import type { ShardStatus } from '../../src/runtime/worker-search'
import { autoShardCount, OBJECT_BASE_MB } from '../../src/search/shard-plan'
import { TEST_PROFILE } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'
import { bundleWorker } from './harness'
import { startWorkerd, type Workerd } from './workerd'

const DATASETS = Number(process.env.SEARCH_SCALE_DATASETS ?? 100_000)
const ORGS = 500
/** The default budget of an object (service.search.shard_heap_mb). */
const OBJECT_HEAP_MB = 64
/** Cloudflare's limit per isolate: an object past it is stopped. */
const ISOLATE_HEAP_MB = Number(process.env.SEARCH_SCALE_HEAP_MB ?? 128)
const config = loadConfig({ ...TEST_PROFILE, SERVICE__SEARCH__LOCAL_MAX_DATASETS: String(Math.min(10_000, DATASETS - 1)) })
const SHARDS = Number(process.env.SEARCH_SCALE_SHARDS ?? autoShardCount(DATASETS, config))

let dir = ''
let sqld: { url: string; stop(): Promise<void> }
let opened: Awaited<ReturnType<typeof openCatalogDb>>
let node: ReturnType<typeof createApp>
let script = ''
let workerd: Workerd | undefined
let bindings: Record<string, string> = {}

beforeAll(async () => {
  dir = tempDir('ckan-edge-search-scale-')
  // with the index's snapshot, as a Node server leaves it: Node's answers come from it
  sqld = await filledSqld(join(dir, 'catalogue.sqld'), DATASETS, { seed: 7, orgCount: ORGS, searchSnapshot: true })
  opened = await openCatalogDb(sqld.url)
  // Node's answers: the app in this process over the same database, its index loaded
  const deps = buildDeps(config, opened.db, { writeExecutor: opened.writeExecutor })
  await warmUp(deps)
  await deps.search.ready()
  node = createApp(deps)
  script = bundleWorker(dir)
  bindings = {
    ...TEST_PROFILE,
    DATABASE_URL: sqld.url,
    SERVICE__SEARCH__SHARDS: String(SHARDS),
    SERVICE__SEARCH__LOCAL_MAX_DATASETS: config.str('service.search.local_max_datasets'),
  }
}, 900_000)

afterAll(async () => {
  await workerd?.stop()
  opened?.close()
  await sqld?.stop()
})

/**
 * The object's live heap (MB) while it printed the GC lines after `from` characters: the largest
 * heap after a full GC; without one, the largest after a young-generation GC (an upper bound: it
 * counts the old generation's garbage too).
 */
function liveHeapSince(w: Workerd, from: number): { mb: number; full: boolean } | null {
  const lines = w.log().slice(from)
  const after = (kind: string) => [...lines.matchAll(new RegExp(`${kind}[^\\n]*?-> ([\\d.]+) \\(`, 'g'))].map((m) => Number(m[1]))
  const full = after('Mark-Compact')
  if (full.length) return { mb: Math.max(...full), full: true }
  const young = after('Scavenge')
  return young.length ? { mb: Math.max(...young), full: false } : null
}

describe(`the search tier at ${DATASETS.toLocaleString('en')} datasets in workerd`, () => {
  it('sizes the shards from the catalogue so that each object stays under its heap budget', async () => {
    expect(SHARDS).toBeGreaterThanOrEqual(2)
    workerd = await startWorkerd({ dir, script, bindings, heapMb: ISOLATE_HEAP_MB })
    const w = workerd
    const figures: string[] = []
    const heaps: number[] = []
    for (const phase of ['datasets', 'snapshot'] as const) {
      for (let index = 0; index < SHARDS; index++) {
        const shard = { index, of: SHARDS }
        const from = w.log().length
        const t = performance.now()
        let status = await w.shard<ShardStatus>(shard, 'status')
        const ms = performance.now() - t
        expect(status.loadedFrom, w.exited() ?? '').toBe(phase)
        // the snapshot is written once the answer has gone: wait for it before the next object
        for (let i = 0; status.snapshot?.seq !== status.seq; i++) {
          expect(i, 'snapshot stored').toBeLessThan(600)
          await new Promise((r) => setTimeout(r, 100))
          status = await w.shard<ShardStatus>(shard, 'status')
        }
        const heap = liveHeapSince(w, from)
        figures.push(
          `shard ${index} of ${SHARDS} from ${phase}: ${status.datasets} datasets in ${ms.toFixed(0)} ms, ` +
            `snapshot ${(status.snapshot!.bytes / 1e6).toFixed(1)} MB, live heap ${heap ? `${heap.mb} MB (${heap.full ? 'after full GCs' : 'after young GCs, an upper bound'})` : 'not seen (no GC)'}`,
        )
        expect(status.datasets).toBeGreaterThan(DATASETS / SHARDS / 2)
        heaps.push(heap?.mb ?? 0)
        // the object forgets its index, as an evicted one does: the next one is alone in the isolate
        await w.shard(shard, 'reset')
      }
    }
    console.log(`search tier, ${DATASETS} datasets in ${SHARDS} objects, each alone in --max-heap-size=${ISOLATE_HEAP_MB}:\n  ${figures.join('\n  ')}`)
    expect(w.exited()).toBeNull()
    expect(Math.max(...heaps)).toBeLessThanOrEqual(OBJECT_HEAP_MB)
    await w.stop()
    workerd = undefined
  }, 900_000)

  it('answers as Node does from cold Worker isolates over warm objects, and no Worker isolate holds an index', async () => {
    workerd = await startWorkerd({ dir, script, bindings })
    const w = workerd
    const warm = await Promise.all(Array.from({ length: SHARDS }, (_, index) => w.shard<ShardStatus>({ index, of: SHARDS }, 'status')))
    expect(warm.map((s) => s.loadedFrom)).toEqual(warm.map(() => 'snapshot'))
    expect(warm.reduce((n, s) => n + s.datasets, 0)).toBe(DATASETS)
    const post = (body: object) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const t = performance.now()
    const first = (await (await fetch(`${w.base}/api/3/action/package_search`, post({ q: 'data', rows: 10 }))).json()) as { result: SearchAnswer }
    const firstMs = performance.now() - t
    expect(first.result.count).toBeGreaterThan(0)
    const spent: Record<string, number> = {}
    const via = (label: string, fetcher: (body: object) => Promise<Response>): Answerer => ({
      label,
      async search(body) {
        const t = performance.now()
        const json = (await (await fetcher(body)).json()) as { success: boolean; result: SearchAnswer }
        spent[label] = (spent[label] ?? 0) + performance.now() - t
        if (!json.success) throw new Error(`${label}: ${JSON.stringify(json).slice(0, 300)}`)
        return json.result
      },
    })
    const mix = queryMix(20, { seed: 1, corpusSeed: 7, orgCount: ORGS })
    const checking = performance.now()
    const checks = await answerChecks(
      via('Node', (body) => Promise.resolve(node.request('/api/3/action/package_search', post(body)))),
      via('Worker', (body) => fetch(`${w.base}/api/3/action/package_search`, post(body))),
      async (sql, args) => (await opened.client.execute({ sql, args: args as never })).rows as unknown as Record<string, unknown>[],
      mix,
    )
    expect(checks.failures).toEqual([])
    expect(checks.checked).toBeGreaterThan(100)
    // one isolate holds the index (the objects'); the Worker's (and the probe's) hold a fraction
    const peaks = [...w.heaps().values()].map((hs) => Math.max(...hs)).sort((a, b) => b - a)
    console.log(
      `search tier, ${DATASETS} datasets in ${SHARDS} objects: cold isolate's first package_search over warm objects ${firstMs.toFixed(0)} ms; ` +
        `${checks.checked} answer checks in ${((performance.now() - checking) / 1000).toFixed(1)} s (${Object.entries(spent).map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(', ')}); heap after full GCs by isolate (max, MB): ${peaks.join(', ')}`,
    )
    expect(peaks.length).toBeGreaterThan(0)
    // an isolate holding the index would need its base and the whole index (1.15 kB a dataset
    // loaded, measured above); a Worker isolate holds its base, its 16 MB dataset cache and the
    // fan-out's buffers: every isolate but one stays under the base, the cache and half the index
    const index = (DATASETS * 1150) / 2 ** 20
    expect(peaks.slice(1).every((mb) => mb < OBJECT_BASE_MB + 16 + index / 2), JSON.stringify(peaks)).toBe(true)
  }, 900_000)
})
