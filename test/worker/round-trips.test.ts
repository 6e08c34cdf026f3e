// Round trips to the libSQL servers per action on a warm isolate, counted by proxies in front of sqld:
// the change-log catch-up costs one, and cached reads cost nothing more.
import { join } from 'node:path'
import type { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countingProxy, type CountingProxy } from '../helpers/counting-proxy'
import { callWorker, startWorker, type WorkerEnv } from './harness'
import { tempDir } from '../helpers/temp-dirs'

let w: WorkerEnv
let mf: Miniflare
let cat: CountingProxy
let ds: CountingProxy
let resourceId: string

const ok = async (name: string, params: object = {}, as?: { apikey: string }, on = mf) => {
  const r = await callWorker(on, name, params, as)
  if (r.status !== 200 || !r.body?.success) throw new Error(`${name} failed (${r.status}): ${r.text.slice(0, 300)}`)
  return r.body.result
}

/** Requests each server received during one call of `name`. */
async function trips(name: string, params: object, as?: { apikey: string }) {
  const c0 = cat.counter.requests
  const d0 = ds.counter.requests
  await ok(name, params, as)
  return { catalogue: cat.counter.requests - c0, datastore: ds.counter.requests - d0 }
}

beforeAll(async () => {
  w = await startWorker()
  cat = await countingProxy(w.catalogue.url)
  ds = await countingProxy(w.datastore.url)
  mf = await w.isolate({ DATABASE_URL: cat.url, DATASTORE_URL: ds.url })
  const admin = w.sysadmin
  await ok('organization_create', { name: 'trips-org' }, admin)
  await ok('package_create', { name: 'trips-a', owner_org: 'trips-org', notes: 'tidal gauges' }, admin)
  const table = await ok(
    'datastore_create',
    {
      resource: { package_id: 'trips-a', name: 'readings' },
      fields: [{ id: 'station', type: 'text' }, { id: 'level', type: 'float' }],
      records: [{ station: 'north', level: 1.5 }, { station: 'south', level: 2.5 }],
    },
    admin,
  )
  resourceId = table.resource_id
}, 120_000)
afterAll(async () => {
  await w?.close() // first: its isolates hold connections to the proxies
  await Promise.all([cat?.close(), ds?.close()])
})

describe('round trips per action on a warm isolate', () => {
  it('a cached read costs the catch-up alone: one request to the catalogue server', async () => {
    // first calls fill the isolate's caches and search index
    await ok('package_show', { id: 'trips-a' })
    await ok('package_search', { q: 'tidal' })
    await ok('package_show', { id: 'trips-a' }, w.sysadmin)
    expect(await trips('package_show', { id: 'trips-a' })).toEqual({ catalogue: 1, datastore: 0 })
    expect(await trips('package_search', { q: 'tidal', 'facet.field': ['tags'] })).toEqual({ catalogue: 1, datastore: 0 })
    expect(await trips('status_show', {})).toEqual({ catalogue: 1, datastore: 0 })
    // an API key's user is cached too
    expect(await trips('package_show', { id: 'trips-a' }, w.sysadmin)).toEqual({ catalogue: 1, datastore: 0 })
  })

  it('datastore_search: the catch-up, then the table entry and its page with the total', async () => {
    await ok('datastore_search', { resource_id: resourceId })
    const t = await trips('datastore_search', { resource_id: resourceId, filters: { station: 'north' } })
    expect(t).toEqual({ catalogue: 1, datastore: 2 })
    const full = await trips('datastore_search', { resource_id: resourceId, limit: 1 }) // page full: total needed
    expect(full).toEqual({ catalogue: 1, datastore: 2 })
  })

  it('a GET with the ETag answers 304 at the cost of the catch-up alone, on an isolate that never read the dataset', async () => {
    const url = 'http://localhost/api/3/action/package_show?id=trips-a'
    const first = await mf.dispatchFetch(url)
    expect(first.status).toBe(200)
    await first.text()
    const etag = first.headers.get('etag')!
    expect(first.headers.get('cache-control')).toMatch(/^public/)
    // new isolates, past their start-up (one unrelated call), with nothing about the dataset cached
    const cold = await w.isolate({ DATABASE_URL: cat.url, DATASTORE_URL: ds.url }) // disposed by w.close()
    await (await cold.dispatchFetch('http://localhost/api/3/action/status_show')).text()
    const c0 = cat.counter.requests
    const full = await cold.dispatchFetch(url)
    await full.text()
    const fullTrips = cat.counter.requests - c0
    const cold2 = await w.isolate({ DATABASE_URL: cat.url, DATASTORE_URL: ds.url })
    await (await cold2.dispatchFetch('http://localhost/api/3/action/status_show')).text()
    const c1 = cat.counter.requests
    const revalidated = await cold2.dispatchFetch(url, { headers: { 'if-none-match': etag } })
    expect(revalidated.status).toBe(304)
    expect(cat.counter.requests - c1).toBe(1)
    expect(fullTrips).toBeGreaterThan(1)
  })

  it('serves anonymous answers from the Cache API across isolates, never an authenticated one, and not after a write', async () => {
    const dir = tempDir('ckan-edge-cache-')
    const a = await w.isolate({ DATABASE_URL: cat.url, DATASTORE_URL: ds.url }, { cachePersist: dir })
    const b = await w.isolate({ DATABASE_URL: cat.url, DATASTORE_URL: ds.url }, { cachePersist: dir })
    for (const m of [a, b]) await (await m.dispatchFetch('http://localhost/api/3/action/status_show')).text()
    const url = 'http://localhost/api/3/action/package_search?q=tidal&rows=3'
    const miss = await a.dispatchFetch(url)
    expect(miss.headers.get('x-answer-cache')).toBeNull()
    const body = await miss.text()
    const c0 = cat.counter.requests
    const hit = await b.dispatchFetch(url)
    expect(hit.headers.get('x-answer-cache')).toBe('hit')
    expect(await hit.text()).toBe(body)
    expect(hit.headers.get('etag')).toBe(miss.headers.get('etag'))
    expect(hit.headers.get('cache-control')).toMatch(/^public, max-age=0/)
    expect(cat.counter.requests - c0).toBe(1) // the catch-up, not the search's loading

    // a private dataset read with a key is never put in the shared cache
    await ok('package_create', { name: 'trips-private', owner_org: 'trips-org', private: true }, w.sysadmin)
    const privUrl = 'http://localhost/api/3/action/package_show?id=trips-private'
    const mine = await a.dispatchFetch(privUrl, { headers: { authorization: w.sysadmin.apikey } })
    expect(mine.status).toBe(200)
    await mine.text()
    const anon = await b.dispatchFetch(privUrl)
    expect(anon.status).toBe(403)
    expect(anon.headers.get('x-answer-cache')).toBeNull()
    // the write above moved the log: the cached search is not served again
    const after = await b.dispatchFetch(url)
    expect(after.headers.get('x-answer-cache')).toBeNull()
    await after.text()
  })

  it('after another isolate writes, the catch-up still costs one round trip before reloading what changed', async () => {
    const other = await w.isolate() // disposed by w.close()
    {
      await ok('package_patch', { id: 'trips-a', notes: 'tidal gauges, patched' }, w.sysadmin, other)
      const c0 = cat.counter.requests
      const shown = await ok('package_show', { id: 'trips-a' })
      expect(shown.notes).toBe('tidal gauges, patched')
      // catch-up (1), the dataset row (1), its dict in one batch (1); the search refresh happens on search
      expect(cat.counter.requests - c0).toBeLessThanOrEqual(3)
      expect(await trips('package_show', { id: 'trips-a' })).toEqual({ catalogue: 1, datastore: 0 })
    }
  })
})
