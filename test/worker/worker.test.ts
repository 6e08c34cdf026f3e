// The Worker in workerd against sqld: the protocol, datasets, search, the DataStore, and two isolates on one database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callWorker, okWorker, startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
beforeAll(async () => {
  w = await startWorker()
}, 120_000)
afterAll(async () => {
  await w?.close()
})

const ok = (name: string, params: object = {}, as?: { apikey: string }) =>
  okWorker(w.mf, name, params, as)

describe('the Worker', () => {
  it('answers the Action API with CKAN envelopes', async () => {
    const status = await callWorker(w.mf, 'status_show')
    expect(status.status).toBe(200)
    expect(status.body).toMatchObject({ success: true, result: { ckan_version: expect.any(String) } })
    expect(status.body.result.extensions).toContain('datastore')
    const unknown = await callWorker(w.mf, 'no_such_action')
    expect(unknown.status).toBe(400)
    expect(unknown.body).toBe('Bad request - Action name not known: no_such_action')
    const anon = await callWorker(w.mf, 'organization_create', { name: 'anon-org' })
    expect(anon.status).toBe(403)
    expect(anon.body.error.__type).toBe('Authorization Error')
  })

  it('takes site_url from the settings, else from the origin of each request', async () => {
    const configured = await w.mf.dispatchFetch('https://data.example.org/api/3/action/status_show')
    const body = (await configured.json()) as { help: string; result: { site_url: string } }
    expect(body.result.site_url).toBe('http://test.ckan.net')
    expect(body.help).toBe('http://test.ckan.net/api/3/action/help_show?name=status_show')

    const unset = await w.isolate({ 'service.site_url': undefined })
    // (twice each: the second answer of a host may come from the Cache API, and must still be its own)
    for (const origin of ['https://data.example.org', 'http://localhost:8787', 'https://data.example.org', 'http://localhost:8787']) {
      const res = await unset.dispatchFetch(`${origin}/api/3/action/status_show`)
      const b = (await res.json()) as { help: string; result: { site_url: string } }
      expect(b.result.site_url).toBe(origin)
      expect(b.help).toBe(`${origin}/api/3/action/help_show?name=status_show`)
    }
    // the envelope of a request that fails before any I/O has it too
    const bad = await unset.dispatchFetch('https://data.example.org/api/3/action/no_such_action')
    expect(bad.status).toBe(400)
  })

  it('creates, reads, searches and deletes datasets', async () => {
    const admin = w.sysadmin
    await ok('organization_create', { name: 'edge-org' }, admin)
    const created = await ok(
      'package_create',
      { name: 'edge-data', title: 'Rainfall at the edge', owner_org: 'edge-org', tags: [{ name: 'rain' }] },
      admin,
    )
    expect(created).toMatchObject({ name: 'edge-data', organization: { name: 'edge-org' } })
    expect(await ok('package_show', { id: 'edge-data' })).toMatchObject({ title: 'Rainfall at the edge' })
    await ok('package_patch', { id: 'edge-data', notes: 'Measured hourly' }, admin)
    const found = await ok('package_search', {
      q: 'rainfall',
      fq: 'tags:rain',
      'facet.field': ['organization'],
    })
    expect(found.count).toBe(1)
    expect(found.results[0]).toMatchObject({ name: 'edge-data', notes: 'Measured hourly' })
    expect(found.facets.organization).toEqual({ 'edge-org': 1 })
    await ok('package_delete', { id: 'edge-data' }, admin)
    expect((await ok('package_search', { q: 'rainfall' })).count).toBe(0)
  })

  it('keeps a second isolate on the same database consistent', async () => {
    const other = await w.isolate()
    await ok('package_create', { name: 'seen-elsewhere', title: 'Tides' }, w.sysadmin)
    const r = await callWorker(other, 'package_search', { q: 'tides' })
    expect(r.body.result.count).toBe(1)
    await ok('package_patch', { id: 'seen-elsewhere', title: 'Tides and currents' }, w.sysadmin)
    const again = await callWorker(other, 'package_show', { id: 'seen-elsewhere' })
    expect(again.body.result.title).toBe('Tides and currents')
  })

  it('stores, searches and dumps DataStore tables', async () => {
    const pkg = await ok('package_create', { name: 'edge-table' }, w.sysadmin)
    const res = await ok(
      'datastore_create',
      {
        resource: { package_id: pkg.id, name: 'counts' },
        fields: [{ id: 'site', type: 'text' }, { id: 'n', type: 'int' }],
        records: [{ site: 'a', n: 1 }, { site: 'b', n: 2 }],
      },
      w.sysadmin,
    )
    const search = await ok('datastore_search', { resource_id: res.resource_id, filters: { site: 'b' } })
    expect(search.records).toEqual([{ _id: 2, site: 'b', n: 2 }])
    const sql = await ok('datastore_search_sql', {
      sql: `SELECT sum(n) AS total FROM "${res.resource_id}"`,
    })
    expect(sql.records).toEqual([{ total: 3 }])
    const dump = await w.mf.dispatchFetch(`http://localhost/datastore/dump/${res.resource_id}`)
    expect(dump.status).toBe(200)
    expect(await dump.text()).toBe('_id,site,n\r\n1,a,1\n2,b,2\n') // as the Node server (dump.test.ts)
  })
})
