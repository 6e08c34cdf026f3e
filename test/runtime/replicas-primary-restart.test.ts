// Issue 33, faults: the replica set's primary (the catalogue's sqld) is killed (SIGKILL) while
// clients write through both replica processes, and started again on the same port and data
// directory: once after a short outage (1.5 s, within libSQL's own retries of a sync) and once
// after a longer one (4 s). Every write a process acknowledged is there afterwards on both
// processes, the writes refused meanwhile got a 503 envelope (no 500, no hang), and both processes
// write again by themselves once the primary is back.
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReplicaCluster, type Cluster } from '../../scripts/replicas'
import { tempDir } from '../helpers/temp-dirs'

const dir = tempDir('ckan-edge-primary-restart-')
const out = join(process.cwd(), 'dist', `replicas-restart-test-${process.pid}`, 'node.mjs')
// Above the ports fetch refuses as unsafe, below the ephemeral range.
const basePort = 20000 + Math.floor(Math.random() * 10000)
const SYNC_INTERVAL_S = 0.25
/** Writers per replica process; the first of each also appends DataStore rows (every other write). */
const WRITERS = 4
/** How long the primary stays down each time, and how long writing goes on around the outages. */
const OUTAGES_MS = [1500, 4000]
const WRITE_BETWEEN_MS = 2500
/** How soon after the primary answers again each process must write, and the other one read it. */
const RECOVERY_MS = 5000
/** A request that takes longer counts as a hang. */
const HANG_MS = 10_000

let cluster: Cluster
let urls: string[] = []
let key = ''
const logs: string[] = []

interface Outcome {
  kind: 'package' | 'row'
  id: string
  via: number
  sent: number
  done: number
  status: number // 0: no answer (timed out, connection failed)
  success: boolean
  type?: string
  detail?: string
}

async function call(base: string, name: string, body: object) {
  const res = await fetch(`${base}/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(HANG_MS),
  })
  const text = await res.text()
  let json: { success?: boolean; result?: unknown; error?: { __type?: string } } = {}
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON: the text is kept as the detail
  }
  return { status: res.status, body: json, text }
}

async function action<T = Record<string, unknown>>(base: string, name: string, body: object): Promise<T> {
  const r = await call(base, name, body)
  expect(r.body.success, r.text).toBe(true)
  return r.body.result as T
}

/** Polls `check` until it holds; returns the milliseconds it took, or fails at the deadline. */
async function within(what: string, check: () => Promise<boolean>, deadline: number) {
  const t0 = performance.now()
  while (!(await check())) {
    if (performance.now() - t0 > deadline) throw new Error(`${what}: not within ${deadline} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return performance.now() - t0
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', out], { encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`)
  cluster = await startReplicaCluster({
    replicas: 2,
    dir,
    port: basePort,
    proxyPort: null,
    entry: out,
    syncInterval: SYNC_INTERVAL_S,
    sysadmin: 'boss',
    log: (line) => logs.push(line),
  })
  urls = cluster.urls
  key = cluster.apikey!
}, 90_000)

afterAll(async () => {
  await cluster?.stop()
  rmSync(join(process.cwd(), 'dist', `replicas-restart-test-${process.pid}`), { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
})

describe('the primary of the replica set killed and restarted under writes', () => {
  it('loses no acknowledged write, refuses with 503 meanwhile, and both processes recover by themselves', async () => {
    // a DataStore table to append rows to (the DataStore is a server of its own, not the primary,
    // but a DataStore write is a write action: its process asks the primary first)
    await action(urls[0]!, 'package_create', { name: 'restart-table' })
    const table = await action(urls[0]!, 'datastore_create', {
      resource: { package_id: 'restart-table', name: 'rows' },
      fields: [{ id: 'k', type: 'text' }, { id: 'via', type: 'int' }],
      primary_key: ['k'],
    })
    const resourceId = table.resource_id as string

    const outcomes: Outcome[] = []
    const t0 = performance.now()
    const now = () => Math.round(performance.now() - t0)
    let stop = false
    let n = 0
    const writer = (via: number, rows: boolean) => async () => {
      while (!stop) {
        const i = n++
        const kind = rows && i % 2 ? 'row' : 'package'
        const id = `${kind === 'row' ? 'r' : 'pr'}-${via}-${i}`
        const sent = now()
        let o: Outcome
        try {
          const r =
            kind === 'package'
              ? await call(urls[via]!, 'package_create', { name: id, notes: 'written under a primary restart' })
              : await call(urls[via]!, 'datastore_upsert', {
                  resource_id: resourceId,
                  method: 'insert',
                  records: [{ k: id, via }],
                })
          const success = r.status === 200 && r.body.success === true
          const detail = success ? undefined : r.text.slice(0, 300)
          o = { kind, id, via, sent, done: now(), status: r.status, success, type: r.body.error?.__type, detail }
        } catch (e) {
          const detail = String((e as Error)?.message ?? e) // no answer: a hang (timeout) or a dropped connection
          o = { kind, id, via, sent, done: now(), status: 0, success: false, detail }
        }
        outcomes.push(o)
        if (!o.success) await sleep(50) // a client backs off a little
      }
    }
    const writers = urls.flatMap((_, via) => Array.from({ length: WRITERS }, (_, w) => writer(via, w === 0)()))

    const outages: { killedAt: number; backAt: number }[] = []
    await sleep(WRITE_BETWEEN_MS)
    for (const down of OUTAGES_MS) {
      const killedAt = now()
      await cluster.restartPrimary(down) // resolves once the new sqld answers /health
      outages.push({ killedAt, backAt: now() })
      await sleep(WRITE_BETWEEN_MS)
    }
    stop = true
    await Promise.all(writers)

    const acked = outcomes.filter((o) => o.success)
    const refused = outcomes.filter((o) => !o.success)
    const windows = outages.map(({ killedAt, backAt }) => {
      const firstOk = urls.map((_, via) => Math.min(...acked.filter((o) => o.via === via && o.sent >= backAt).map((o) => o.done)))
      const failed = refused.filter((o) => o.done >= killedAt && o.done <= Math.max(...firstOk))
      return {
        down: backAt - killedAt,
        refused: failed.length,
        // per process: from the kill to its first acknowledged write sent after the primary was back
        writesFailFor: firstOk.map((t) => t - killedAt),
        recoveredAfterBack: firstOk.map((t) => t - backAt),
        slowestAnswer: Math.max(...outcomes.filter((o) => o.done >= killedAt && o.sent <= backAt).map((o) => o.done - o.sent)),
      }
    })
    console.log(
      `primary killed twice under ${2 * WRITERS} writers: ${acked.length} writes acknowledged, ${refused.length} refused`,
      JSON.stringify(windows),
    )

    // writes went through before the first kill and after each restart, on both processes
    for (const via of urls.keys()) expect(acked.some((o) => o.via === via && o.done < outages[0]!.killedAt)).toBe(true)
    for (const w of windows) for (const t of w.recoveredAfterBack) expect(t).toBeLessThan(RECOVERY_MS)
    // and some were refused: the outages were seen
    expect(refused.length).toBeGreaterThan(0)
    // no process logged an unexpected exception (a 500) meanwhile
    const errorLines = logs.flatMap((l, i) => (/internal error \(request/.test(l) ? logs.slice(i, i + 4) : []))
    expect(errorLines).toEqual([])
    // every refusal is CKAN's envelope saying the database is out of reach: a 503, not a 500 or a hang
    expect(refused.filter((o) => o.status !== 503 || o.type !== 'Service Unavailable').map((o) => o.detail)).toEqual([])
    // and only while a primary was down or coming back
    const inAnOutage = (o: Outcome) => outages.some(({ killedAt, backAt }) => o.done >= killedAt && o.done <= backAt + RECOVERY_MS)
    expect(refused.filter((o) => !inAnOutage(o))).toEqual([])

    // every acknowledged dataset is on both processes (the other one within the sync deadline)
    const packages = acked.filter((o) => o.kind === 'package').map((o) => o.id)
    const sent = new Set(outcomes.map((o) => o.id))
    for (const base of urls) {
      let listed: string[] = []
      await within(
        `acknowledged datasets on ${base}`,
        async () => {
          listed = await action<string[]>(base, 'package_list', {})
          const have = new Set(listed)
          return packages.every((p) => have.has(p))
        },
        RECOVERY_MS,
      ).catch((e) => {
        const have = new Set(listed)
        throw new Error(`${(e as Error).message}; missing: ${packages.filter((p) => !have.has(p)).join(', ')}`)
      })
      // nothing there that no client sent (a refused write may have committed before the primary died)
      expect(listed.filter((p) => p.startsWith('pr-') && !sent.has(p))).toEqual([])
      const have = new Set(listed)
      const inDoubt = refused.filter((o) => o.kind === 'package' && have.has(o.id)).length
      if (base === urls[0]) console.log(`refused creates that committed all the same: ${inDoubt}`)
      for (let i = 0; i < packages.length; i += 16) {
        await Promise.all(
          packages.slice(i, i + 16).map(async (id) => expect((await action(base, 'package_show', { id })).name).toBe(id)),
        )
      }
    }
    // and every acknowledged DataStore row, read through both processes
    const rows = acked.filter((o) => o.kind === 'row').map((o) => o.id)
    expect(rows.length).toBeGreaterThan(0)
    for (const base of urls) {
      const found = await action<{ records: { k: string }[] }>(base, 'datastore_search', { resource_id: resourceId, limit: 32000 })
      const keys = new Set(found.records.map((r) => r.k))
      expect(rows.filter((k) => !keys.has(k))).toEqual([])
    }
  }, 60_000)
})
