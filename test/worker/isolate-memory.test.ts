// Issue 17: the Worker answers package_search over a 10,000-dataset catalogue loaded from its
// snapshot inside an isolate held to Cloudflare's 128 MB. Miniflare cannot limit an isolate's
// memory, so this runs workerd itself with V8's --max-heap-size (workerd aborts the process
// with "Reached heap limit" past it) and reads the heap after each full GC from --trace-gc.
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filledSqld } from '../../bench/lib/sqld-fill'
import { openCatalogDb } from '../../src/runtime/node-db'
// @ts-expect-error: plain ESM script without types
import { freePort } from '../../scripts/sqld.mjs'
import { TEST_PROFILE } from '../helpers/setup'
import { bundleWorker } from './harness'
import { tempDir } from '../helpers/temp-dirs'

const DATASETS = 10_000
/** Cloudflare's limit per isolate. */
const HEAP_MB = 128

let sqld: { url: string; stop(): Promise<void> }
let workerd: ChildProcess | undefined
let base = ''
let gcLog = ''
let exited: string | null = null
let snapshotBytes = 0

/** A text binding's value as a Cap'n Proto string literal. */
const capnpString = (s: string) => JSON.stringify(s)

beforeAll(async () => {
  const dir = tempDir('ckan-edge-isolate-')
  // the index's snapshot, as a Node server (or `npm run admin`) leaves it in the database
  sqld = await filledSqld(join(dir, 'catalogue.sqld'), DATASETS, { seed: 7, searchSnapshot: true })
  const opened = await openCatalogDb(sqld.url)
  try {
    const [row] = (await opened.client.execute('SELECT SUM(LENGTH(data)) AS n FROM search_snapshot')).rows
    snapshotBytes = Number(row?.n ?? 0)
  } finally {
    opened.close()
  }
  writeFileSync(join(dir, 'worker.js'), bundleWorker(dir))
  const port = (await freePort()) as number
  const bindings = { ...TEST_PROFILE, DATABASE_URL: sqld.url }
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
  v8Flags = ["--max-heap-size=${HEAP_MB}", "--trace-gc"],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-04-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [${Object.entries(bindings)
    .map(([k, v]) => `(name = ${capnpString(k)}, text = ${capnpString(v)})`)
    .join(', ')}],
  globalOutbound = "internet",
);
`,
  )
  const bin = createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/bin/workerd')
  workerd = spawn(bin, ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'pipe', 'pipe'] })
  workerd.stdout!.on('data', (b: Buffer) => (gcLog += b.toString()))
  workerd.stderr!.on('data', (b: Buffer) => (gcLog += b.toString()))
  workerd.on('exit', (code, signal) => (exited = `workerd exited (${code ?? signal}): ${gcLog.slice(-2000)}`))
  base = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/3/action/status_show`)).ok) break
    } catch {
      if (exited || i > 200) throw new Error(exited ?? 'workerd did not start')
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}, 300_000)

afterAll(async () => {
  workerd?.kill()
  await sqld?.stop()
})

async function search(params: Record<string, unknown>) {
  const res = await fetch(`${base}/api/3/action/package_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
  })
  return { status: res.status, body: (await res.json()) as { success: boolean; result: { count: number; results: { name: string }[] } } }
}

/** Heap after each full GC (MB), from V8's --trace-gc lines. */
const heapAfterFullGcs = () =>
  [...gcLog.matchAll(/Mark-Compact[^\n]*?-> ([\d.]+) \(/g)].map((m) => Number(m[1]))

describe('the Worker in an isolate held to 128 MB', () => {
  it('loads the 10,000-dataset snapshot and answers package_search', async () => {
    const started = performance.now()
    const all = await search({ q: '*:*', rows: 5 })
    const firstMs = performance.now() - started
    expect(all.status, JSON.stringify(all.body) + gcLog.slice(-3000)).toBe(200)
    expect(all.body.result.count).toBe(DATASETS)
    for (const q of ['data', 'survey OR report', 'tags:*a*', 'title:annual~1', 'organization:org-1']) {
      const r = await search({ q, rows: 20, 'facet.field': ['tags', 'organization', 'res_format'] })
      expect(r.status, q).toBe(200)
      expect(r.body.success, q).toBe(true)
    }
    const some = await search({ q: 'data', rows: 1000 })
    expect(some.body.result.count).toBeGreaterThan(0)
    expect(some.body.result.count).toBeLessThan(DATASETS)
    expect(exited).toBeNull()
    // room to spare: the whole isolate (script, index, caches, a 1,000-row answer) stays under
    // half the limit after every full GC (the index alone was ~105 MiB before the frozen segment)
    const heaps = heapAfterFullGcs()
    expect(Math.max(0, ...heaps)).toBeLessThan(HEAP_MB / 2)
    console.log(
      `isolate: ${DATASETS} datasets, snapshot ${(snapshotBytes / 1e6).toFixed(1)} MB, first answer ${firstMs.toFixed(0)} ms` +
        ` (snapshot read and index loaded), V8 heap after full GCs: max ${Math.max(0, ...heaps).toFixed(1)} MB` +
        ` of --max-heap-size=${HEAP_MB}`,
    )
  }, 120_000)
})
