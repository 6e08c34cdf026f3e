// Two server processes on embedded replicas of one sqld primary (`npm run replicas`): read-your-writes, bounded staleness, privacy.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReplicaCluster, type Cluster } from '../../scripts/replicas'
import { tempDir } from '../helpers/temp-dirs'

const dir = tempDir('ckan-edge-replicas-')
const out = join(process.cwd(), 'dist', `replicas-test-${process.pid}`, 'node.mjs')
// Above the ports fetch refuses as unsafe, below the ephemeral range.
const basePort = 20000 + Math.floor(Math.random() * 10000)
/** The sync interval of the replicas, and how long a write may take to reach the other one. */
const SYNC_INTERVAL_S = 0.25
const DEADLINE_MS = 5000
let cluster: Cluster
let a = ''
let b = ''
let key = ''

async function call(base: string, name: string, body: object, apikey: string | null = key) {
  const res = await fetch(`${base}/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apikey ? { authorization: apikey } : {}) },
    body: JSON.stringify(body),
    // a process that stopped answering fails the test rather than hanging it
    signal: AbortSignal.timeout(10_000),
  })
  return { status: res.status, body: await res.json(), servedBy: res.headers.get('x-served-by') }
}

async function action(base: string, name: string, body: object, apikey: string | null = key) {
  const { body: json } = await call(base, name, body, apikey)
  expect(json.success, JSON.stringify(json)).toBe(true)
  return json.result
}

const names = async (base: string, params: object, apikey: string | null = key) =>
  (await action(base, 'package_search', params, apikey)).results.map((d: { name: string }) => d.name)

/** Polls `check` until it holds; returns the milliseconds it took, or fails at the deadline. */
async function within(check: () => Promise<boolean>, deadline = DEADLINE_MS) {
  const t0 = performance.now()
  while (!(await check())) {
    if (performance.now() - t0 > deadline) throw new Error(`not within ${deadline} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return performance.now() - t0
}

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', out], { encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`)
  cluster = await startReplicaCluster({
    replicas: 2,
    dir,
    port: basePort,
    proxyPort: basePort + 2,
    entry: out,
    syncInterval: SYNC_INTERVAL_S,
    sysadmin: 'boss',
  })
  ;[a, b] = cluster.urls as [string, string]
  key = cluster.apikey!
}, 90000)

afterAll(async () => {
  await cluster?.stop()
  rmSync(join(process.cwd(), 'dist', `replicas-test-${process.pid}`), { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
})

describe('embedded replicas of one primary', () => {
  it('reads its own write at once, and the other process finds it within the deadline', async () => {
    await action(a, 'package_create', { name: 'estuary-salinity', title: 'Estuary salinity' })
    // read-your-writes on A: the next request, no waiting
    expect((await action(a, 'package_show', { id: 'estuary-salinity' })).title).toBe('Estuary salinity')
    expect(await names(a, { q: 'estuary' })).toEqual(['estuary-salinity'])
    // B: within a sync interval or so
    const ms = await within(async () => (await names(b, { q: 'estuary' })).includes('estuary-salinity'))
    expect(ms).toBeLessThan(DEADLINE_MS)
    expect((await action(b, 'package_show', { id: 'estuary-salinity' })).title).toBe('Estuary salinity')
  })

  it('shows on A an update made through B, and on B at once', async () => {
    await action(b, 'package_patch', { id: 'estuary-salinity', title: 'Tidal salinity' })
    expect(await names(b, { q: 'tidal' })).toEqual(['estuary-salinity'])
    await within(async () => (await names(a, { q: 'tidal' })).includes('estuary-salinity'))
    expect(await names(a, { q: 'title:estuary' })).toEqual([])
    expect((await action(a, 'package_show', { id: 'estuary-salinity' })).title).toBe('Tidal salinity')
  })

  it('keeps a private dataset from anonymous callers on both processes', async () => {
    const org = await action(a, 'organization_create', { name: 'harbour-board' })
    await action(a, 'package_create', { name: 'harbour-secrets', title: 'Harbour secrets', owner_org: org.id, private: true })
    // once B has it (its sysadmin finds it), anonymous callers still do not
    await within(async () => (await names(b, { q: 'harbour', include_private: true })).includes('harbour-secrets'))
    for (const base of [a, b]) {
      expect(await names(base, { q: 'harbour' }, null)).toEqual([])
      expect(await names(base, { q: 'harbour', include_private: true }, null)).toEqual([])
      const shown = await call(base, 'package_show', { id: 'harbour-secrets' }, null)
      expect(shown.status).toBe(403)
      expect(shown.body.error.__type).toBe('Authorization Error')
      expect(await action(base, 'package_list', {}, null)).not.toContain('harbour-secrets')
    }
  })

  it('reaches one DataStore from both processes', async () => {
    const created = await action(a, 'datastore_create', {
      resource: { package_id: 'estuary-salinity', name: 'readings' },
      fields: [{ id: 'site', type: 'text' }, { id: 'psu', type: 'float' }],
      records: [{ site: 'mouth', psu: 31.5 }],
    })
    const rid = created.resource_id
    // the DataStore is the primary's own server (not replicated): B sees the rows at once
    await action(b, 'datastore_upsert', { resource_id: rid, method: 'insert', records: [{ site: 'weir', psu: 2.1 }] })
    const found = await action(a, 'datastore_search', { resource_id: rid, sort: 'psu' })
    expect(found.records.map((r: { site: string }) => r.site)).toEqual(['weir', 'mouth'])
  })

  it('spreads anonymous requests over the processes and keeps a key on one', async () => {
    const proxy = cluster.proxyUrl!
    const anon = new Set<string | null>()
    for (let i = 0; i < 4; i++) anon.add((await call(proxy, 'site_read', {}, null)).servedBy)
    expect(anon.size).toBe(2)
    const keyed = new Set<string | null>()
    for (let i = 0; i < 4; i++) keyed.add((await call(proxy, 'site_read', {})).servedBy)
    expect(keyed.size).toBe(1)
    // a writer behind the proxy reads its own write on the next request
    await action(proxy, 'package_create', { name: 'proxy-made', title: 'Made through the proxy' })
    expect((await action(proxy, 'package_show', { id: 'proxy-made' })).name).toBe('proxy-made')
  })

  it('keeps answering reads while the primary does not answer', async () => {
    // the catalogue's sqld, found by its data directory, is frozen (not gone: a sync would wait for ever)
    const primaryPid = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .find((d) => {
        try {
          return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(join(dir, 'primary.sqld'))
        } catch {
          return false
        }
      })
    expect(primaryPid).toBeTruthy()
    // no background job in flight: a job's claim is a write, and a write waits for the primary
    // (the DataStore rows above queue a column profile job in each process that wrote them)
    for (const base of [a, b])
      await within(async () => {
        const { jobs } = await action(base, 'status_show', {})
        return jobs.queued === 0 && jobs.running.length === 0
      }, 30_000)
    process.kill(Number(primaryPid), 'SIGSTOP')
    try {
      await new Promise((r) => setTimeout(r, 2 * SYNC_INTERVAL_S * 1000)) // syncs are due meanwhile
      for (const base of [a, b]) {
        const t0 = performance.now()
        expect((await action(base, 'package_show', { id: 'estuary-salinity' }, null)).title).toBe('Tidal salinity')
        expect(await names(base, { q: 'tidal' }, null)).toEqual(['estuary-salinity'])
        expect(performance.now() - t0).toBeLessThan(1000)
      }
    } finally {
      process.kill(Number(primaryPid), 'SIGCONT')
    }
    // and writes work again once it answers
    await action(b, 'package_patch', { id: 'estuary-salinity', notes: 'after the pause' })
    expect((await action(b, 'package_show', { id: 'estuary-salinity' })).notes).toBe('after the pause')
  })
})
