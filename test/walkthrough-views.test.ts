// A publisher's second walk-through over real HTTP: default and DataStore views, relationships, a collaborator, package_revise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from './helpers/setup'
import { listen } from './helpers/server'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }

beforeAll(async () => {
  t = await setup({
    'service.auth.allow_dataset_collaborators': 'true',
    // CKAN 2.9's defaults plus the DataStore's own table view
    'service.views.default_views': 'image_view recline_view datatables_view',
  })
  server = await listen(t.app)
})
afterAll(async () => server?.close())

async function api(action: string, body: object, key?: string) {
  const res = await fetch(`${server.url}/api/3/action/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'X-CKAN-API-Key': key } : {}) },
    body: JSON.stringify(body),
  })
  return { status: res.status, ...((await res.json()) as { success: boolean; result?: any; error?: any }) }
}

async function ok(action: string, body: object, key?: string) {
  const r = await api(action, body, key)
  expect(r, `${action} ${JSON.stringify(r.error)}`).toMatchObject({ success: true })
  return r.result
}

const viewTypes = async (resourceId: string, key: string) =>
  (await ok('resource_view_list', { id: resourceId }, key)).map((v: { view_type: string }) => v.view_type)

describe('views, relationships, collaborators and revisions over HTTP', () => {
  it('walks a private dataset from default views to a guarded revision', async () => {
    const sys = (await t.make.sysadmin()).apikey
    const publisher = await t.make.user()
    const collaborator = await t.make.user()
    const outsider = await t.make.user()
    await ok('organization_create', { name: 'walk-views-org' }, sys)
    await ok('organization_member_create', { id: 'walk-views-org', username: publisher.name, role: 'admin' }, sys)

    // a private dataset with a PNG and a CSV: an image view and a grid view by default
    const ds = await ok(
      'package_create',
      {
        name: 'walk-gauges',
        title: 'River gauges',
        owner_org: 'walk-views-org',
        private: true,
        resources: [
          { name: 'Chart', url: 'http://example.com/chart.png', format: 'PNG' },
          { name: 'Readings', url: 'http://example.com/readings.csv', format: 'CSV' },
        ],
      },
      publisher.apikey,
    )
    const [png, csv] = ds.resources
    expect(csv.mimetype).toBe('text/csv')
    expect(await viewTypes(png.id, publisher.apikey)).toEqual(['image_view'])
    expect(await viewTypes(csv.id, publisher.apikey)).toEqual(['recline_view'])

    // a DataStore table for the CSV brings its DataStore view
    await ok(
      'datastore_create',
      { resource_id: csv.id, force: true, fields: [{ id: 'station', type: 'text' }, { id: 'level', type: 'float' }], records: [{ station: 'A', level: 1.5 }] },
      publisher.apikey,
    )
    expect(await viewTypes(csv.id, publisher.apikey)).toEqual(['recline_view', 'datatables_view'])

    // reorder, then delete one
    const views = await ok('resource_view_list', { id: csv.id }, publisher.apikey)
    const reversed = views.map((v: { id: string }) => v.id).reverse()
    expect(await ok('resource_view_reorder', { id: csv.id, order: reversed }, publisher.apikey)).toEqual({ id: csv.id, order: reversed })
    expect(await viewTypes(csv.id, publisher.apikey)).toEqual(['datatables_view', 'recline_view'])
    await ok('resource_view_delete', { id: views[0].id }, publisher.apikey)
    expect(await viewTypes(csv.id, publisher.apikey)).toEqual(['datatables_view'])
    // nobody outside sees the private dataset's views
    expect((await api('resource_view_list', { id: csv.id }, outsider.apikey)).status).toBe(403)

    // a derived dataset, seen from both sides
    const derived = await ok('package_create', { name: 'walk-gauges-daily', owner_org: 'walk-views-org' }, publisher.apikey)
    await ok('package_relationship_create', { subject: derived.name, object: ds.name, type: 'derives_from' }, publisher.apikey)
    expect(await ok('package_relationships_list', { id: ds.name }, publisher.apikey)).toEqual([
      { subject: ds.name, type: 'has_derivation', object: derived.name, comment: '' },
    ])
    expect((await ok('package_show', { id: derived.id }, publisher.apikey)).relationships_as_subject).toHaveLength(1)

    // a collaborator editor may update the private dataset and finds it in search
    await ok('package_collaborator_create', { id: ds.id, user_id: collaborator.name, capacity: 'editor' }, publisher.apikey)
    await ok('package_patch', { id: ds.id, notes: 'Edited by a collaborator.' }, collaborator.apikey)
    const search = (key: string) =>
      ok('package_search', { q: 'name:walk-gauges', include_private: true }, key)
    expect((await search(collaborator.apikey)).results.map((d: { name: string }) => d.name)).toEqual(['walk-gauges'])
    expect((await search(outsider.apikey)).count).toBe(0)
    expect((await api('package_patch', { id: ds.id, notes: 'x' }, outsider.apikey)).status).toBe(403)

    // a revision guarded by the old title, then a stale one that changes nothing
    const revised = await ok(
      'package_revise',
      { match: { id: ds.id, title: 'River gauges' }, update: { title: 'River gauges (hourly)' } },
      collaborator.apikey,
    )
    expect(revised.package.title).toBe('River gauges (hourly)')
    const stale = await api(
      'package_revise',
      { match: { id: ds.id, title: 'River gauges' }, update: { title: 'Overwritten' } },
      publisher.apikey,
    )
    expect(stale.status).toBe(409)
    expect(stale.error).toMatchObject({ __type: 'Validation Error', message: [{ match: ['title'] }] })
    const after = await ok('package_show', { id: ds.id }, publisher.apikey)
    expect(after.title).toBe('River gauges (hourly)')
    expect(after.notes).toBe('Edited by a collaborator.')
  })
})
