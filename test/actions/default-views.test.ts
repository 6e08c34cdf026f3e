// Default views: created with resources, on format changes, with DataStore tables, by the two
// default-view actions; deleted with their resources.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { setup, type Caller, type CallResult, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { resourceViews } from '../../src/db/schema'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who
let member: Who
let org: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  member = await t.make.user()
  org = await t.make.organization(admin)
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, admin)
})

const dataset = (resources: Record<string, unknown>[], fields: Record<string, unknown> = {}) =>
  t.ok('package_create', { name: uniq('dv-ds'), owner_org: org.id, resources, ...fields }, admin)

/** The view types of a resource, in their order. */
const types = async (env: TestEnv, resourceId: string) =>
  (await env.ok('resource_view_list', { id: resourceId })).map((v: any) => v.view_type)

const stored = async (resourceId: string) =>
  t.db.select().from(resourceViews).where(eq(resourceViews.resource_id, resourceId))

const PNG = { url: 'http://e.com/pic.png' }
const CSV = { url: 'http://e.com/data.csv' }
const HTML = { url: 'http://e.com/page.html' }

const denied = (r: CallResult, message: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message: `Access denied: ${message}` })
}

describe('default views on dataset and resource writes', () => {
  it('gives a PNG an image_view and a CSV a recline_view on package_create', async () => {
    const d = await dataset([PNG, CSV, HTML])
    const [png, csv, html] = d.resources
    const [image] = await t.ok('resource_view_list', { id: png.id })
    expect(image).toEqual({
      id: expect.any(String),
      resource_id: png.id,
      package_id: d.id,
      title: 'Image',
      description: '',
      view_type: 'image_view',
    })
    const [explorer] = await t.ok('resource_view_list', { id: csv.id })
    expect(explorer).toMatchObject({ title: 'Data Explorer', description: '', view_type: 'recline_view' })
    // webpage_view is not a default view type
    expect(await types(t, html.id)).toEqual([])
  })

  it('gives resources added by package_update their views, and those of a changed format', async () => {
    const d = await dataset([{ url: 'http://e.com/a', format: 'PDF' }])
    const u = await t.ok(
      'package_update',
      { id: d.id, name: d.name, owner_org: org.id, resources: [{ ...d.resources[0], format: 'CSV' }, PNG] },
      admin,
    )
    expect(await types(t, u.resources[0].id)).toEqual(['recline_view'])
    expect(await types(t, u.resources[1].id)).toEqual(['image_view'])
  })

  it('does not bring back a deleted default view when nothing about the resource changed', async () => {
    const d = await dataset([PNG])
    const [view] = await t.ok('resource_view_list', { id: d.resources[0].id })
    await t.ok('resource_view_delete', { id: view.id }, admin)
    await t.ok('package_update', { ...d, notes: 'changed' }, admin)
    await t.ok('resource_update', { ...d.resources[0], name: 'renamed' }, admin)
    expect(await types(t, d.resources[0].id)).toEqual([])
  })

  it('gives no default views to resources added by package_patch', async () => {
    const d = await dataset([PNG])
    const p = await t.ok('package_patch', { id: d.id, resources: [...d.resources, CSV, PNG] }, admin)
    expect(await types(t, p.resources[0].id)).toEqual(['image_view'])
    expect(await types(t, p.resources[1].id)).toEqual([])
    expect(await types(t, p.resources[2].id)).toEqual([])
  })

  it('gives a resource_create its views and a resource_update with a new format the missing ones', async () => {
    const d = await dataset([])
    const r = await t.ok('resource_create', { package_id: d.id, ...PNG }, admin)
    expect(await types(t, r.id)).toEqual(['image_view'])
    const u = await t.ok('resource_update', { id: r.id, url: 'http://e.com/t.xls', format: 'XLS' }, admin)
    expect(u.format).toBe('XLS')
    expect(await types(t, r.id)).toEqual(['image_view', 'recline_view'])
    await t.ok('resource_patch', { id: r.id, format: 'PNG' }, admin)
    await t.ok('resource_patch', { id: r.id, format: 'TSV' }, admin)
    expect(await types(t, r.id)).toEqual(['image_view', 'recline_view'])
    const stored_ = await stored(r.id)
    expect(new Set(stored_.map((v) => v.order)).size).toBe(2)
  })

  it('deletes the views of a resource with the resource', async () => {
    const d = await dataset([PNG, CSV, PNG])
    const [a, b, c] = d.resources
    await t.ok('resource_delete', { id: a.id }, admin)
    expect(await stored(a.id)).toEqual([])
    // package_update drops the resources it does not list
    await t.ok('package_update', { ...d, resources: [c] }, admin)
    expect(await stored(b.id)).toEqual([])
    expect(await stored(c.id)).toHaveLength(1)
  })

  it('keeps the views of a deleted dataset and purges them with it', async () => {
    const d = await dataset([PNG])
    const id = d.resources[0].id
    await t.ok('package_delete', { id: d.id }, admin)
    expect(await stored(id)).toHaveLength(1)
    await t.ok('dataset_purge', { id: d.id }, sys)
    expect(await stored(id)).toEqual([])
  })
})

describe('default views of the view types', () => {
  let all: TestEnv
  let s: Caller

  beforeAll(async () => {
    all = await setup({
      'service.views.default_views':
        'image_view webpage_view text_view recline_view recline_grid_view datatables_view',
    })
    s = await all.make.sysadmin()
  })

  const viewsOf = async (res: Record<string, unknown>) => {
    const d = await all.ok('package_create', { name: uniq('dv-types'), resources: [res] }, s)
    return types(all, d.resources[0].id)
  }

  it('follows each type\'s "can view" rule', async () => {
    expect(await viewsOf({ url: 'http://e.com/a.jpg' })).toEqual(['image_view'])
    expect(await viewsOf({ url: 'http://e.com/a', format: 'gif' })).toEqual(['image_view'])
    expect(await viewsOf({ url: 'http://e.com/a.htm' })).toEqual(['webpage_view'])
    expect(await viewsOf({ url: 'http://e.com/page.html', format: 'PDF' })).toEqual(['webpage_view'])
    expect(await viewsOf({ url: 'http://e.com/a.ods' })).toEqual(['recline_view'])
    expect(await viewsOf({ url: 'http://e.com/a', format: 'jsonp' })).toEqual(['text_view'])
    // text, XML and JSON only from the site's own domain (no resource proxy)
    expect(await viewsOf({ url: 'http://e.com/a.json' })).toEqual([])
    expect(await viewsOf({ url: 'http://test.ckan.net/files/a.json' })).toEqual(['text_view'])
    expect(await viewsOf({ url: 'http://test.ckan.net/a.rdf' })).toEqual(['text_view'])
    expect(await viewsOf({ url: 'https://test.ckan.net/a.txt' })).toEqual([])
    expect(await viewsOf({ url: 'http://e.com/a.zip' })).toEqual([])
    // several views of one resource come in the order of service.views.default_views
    expect(await viewsOf({ url: 'http://test.ckan.net/a.html', format: 'json' })).toEqual([
      'webpage_view',
      'text_view',
    ])
  })

  it('shows text from any domain when the resource proxy is enabled', async () => {
    const proxied = await setup({
      'service.views.default_views': 'text_view',
      'service.plugins': 'datastore resource_proxy',
    })
    const p = await proxied.make.sysadmin()
    const d = await proxied.ok(
      'package_create',
      { name: uniq('dv-proxy'), resources: [{ url: 'http://e.com/a.xml' }] },
      p,
    )
    expect(await types(proxied, d.resources[0].id)).toEqual(['text_view'])
  })

  it('gives a datastore-only resource its DataStore views when its table is created', async () => {
    const d = await all.ok('package_create', { name: uniq('dv-ds') }, s)
    const made = await all.ok(
      'datastore_create',
      { resource: { package_id: d.id }, fields: [{ id: 'a', type: 'text' }] },
      s,
    )
    expect(await types(all, made.resource_id)).toEqual(['recline_view', 'recline_grid_view', 'datatables_view'])
  })

  it('ignores default view types that are not enabled', async () => {
    const few = await setup({
      'service.views.plugins': 'recline_view',
      'service.views.default_views': 'image_view recline_view',
    })
    const f = await few.make.sysadmin()
    const d = await few.ok('package_create', { name: uniq('dv-few'), resources: [PNG, CSV] }, f)
    expect(await types(few, d.resources[0].id)).toEqual([])
    expect(await types(few, d.resources[1].id)).toEqual(['recline_view'])
  })
})

describe('DataStore views on datastore_create', () => {
  let ds: TestEnv
  let s: Caller

  beforeAll(async () => {
    ds = await setup({ 'service.views.default_views': 'image_view recline_view datatables_view' })
    s = await ds.make.sysadmin()
  })

  const table = (resource_id: string) =>
    ds.ok(
      'datastore_create',
      { resource_id, force: true, fields: [{ id: 'a', type: 'int' }], records: [{ a: 1 }] },
      s,
    )

  it('adds the views that need the DataStore when the table is first created', async () => {
    const d = await ds.ok('package_create', { name: uniq('dv-csv'), resources: [CSV] }, s)
    const id = d.resources[0].id
    expect(await types(ds, id)).toEqual(['recline_view'])
    await table(id)
    expect(await types(ds, id)).toEqual(['recline_view', 'datatables_view'])
    // a second call finds the table there: nothing new
    await table(id)
    expect(await types(ds, id)).toEqual(['recline_view', 'datatables_view'])
  })

  it('adds the views the table makes possible (recline_view of a JSON file)', async () => {
    const d = await ds.ok('package_create', { name: uniq('dv-json'), resources: [{ url: 'http://e.com/a.json' }] }, s)
    const id = d.resources[0].id
    expect(await types(ds, id)).toEqual([])
    await table(id)
    expect(await types(ds, id)).toEqual(['datatables_view', 'recline_view'])
  })

  it('does not bring back a deleted view the resource could show before', async () => {
    const d = await ds.ok('package_create', { name: uniq('dv-del'), resources: [CSV] }, s)
    const id = d.resources[0].id
    const [explorer] = await ds.ok('resource_view_list', { id })
    await ds.ok('resource_view_delete', { id: explorer.id }, s)
    await table(id)
    expect(await types(ds, id)).toEqual(['datatables_view'])
  })
})

describe('resource_create_default_resource_views', () => {
  it('creates the default views a resource lacks and returns them', async () => {
    const d = await dataset([PNG])
    const r = d.resources[0]
    const [view] = await t.ok('resource_view_list', { id: r.id })
    await t.ok('resource_view_delete', { id: view.id }, admin)
    const made = await t.ok('resource_create_default_resource_views', { resource: r, package: d }, admin)
    expect(made).toEqual([
      {
        id: expect.any(String),
        resource_id: r.id,
        package_id: d.id,
        title: 'Image',
        description: '',
        view_type: 'image_view',
      },
    ])
    expect(await t.ok('resource_view_list', { id: r.id })).toEqual(made)
    expect(await t.ok('resource_create_default_resource_views', { resource: r }, admin)).toEqual([])
  })

  it('creates only the DataStore views with create_datastore_views', async () => {
    const ds = await setup({ 'service.views.default_views': 'image_view recline_view datatables_view' })
    const s = await ds.make.sysadmin()
    const d = await ds.ok('package_create', { name: uniq('dv-x'), resources: [CSV] }, s)
    const r = d.resources[0]
    const none = await ds.ok('resource_create_default_resource_views', { resource: r, create_datastore_views: true }, s)
    expect(none).toEqual([]) // datatables_view needs datastore_active
    await ds.ok('resource_patch', { id: r.id, datastore_active: true, format: 'CSV' }, s)
    await ds.db.delete(resourceViews).where(eq(resourceViews.resource_id, r.id))
    const dsViews = await ds.ok('resource_create_default_resource_views', { resource: r, create_datastore_views: 'true' }, s)
    expect(dsViews.map((v: any) => v.view_type)).toEqual(['datatables_view'])
    expect(dsViews[0]).toMatchObject({ title: 'Table', responsive: false, filterable: true })
    const plain = await ds.ok('resource_create_default_resource_views', { resource: r }, s)
    expect(plain.map((v: any) => v.view_type)).toEqual(['recline_view'])
  })

  it("gives CKAN's messages", async () => {
    const d = await dataset([PNG])
    const r = d.resources[0]
    const call = (params: Record<string, unknown>, as: Caller | null = admin) =>
      t.call('resource_create_default_resource_views', params, as)
    const missing = await call({})
    expect(missing.status).toBe(409)
    expect(missing.body.error).toEqual({ __type: 'Validation Error', resource: ['Missing value'] })
    expect((await call({ resource: { id: 'no-such-resource' } })).body.error).toEqual({
      __type: 'Not Found Error',
      message: 'Not found',
    })
    denied(await call({ resource: r }, null), 'Action resource_create_default_resource_views requires an authenticated user')
    denied(
      await call({ resource: r }, member),
      `User ${member.name} not authorized to create resources on dataset ${d.id}`,
    )
  })
})

describe('package_create_default_resource_views', () => {
  it('creates the default views every resource of the dataset lacks', async () => {
    const d = await dataset([PNG, CSV, HTML])
    await t.db.delete(resourceViews).where(eq(resourceViews.resource_id, d.resources[0].id))
    await t.db.delete(resourceViews).where(eq(resourceViews.resource_id, d.resources[1].id))
    const made = await t.ok('package_create_default_resource_views', { package: d }, admin)
    expect(made.map((v: any) => [v.resource_id, v.view_type])).toEqual([
      [d.resources[0].id, 'image_view'],
      [d.resources[1].id, 'recline_view'],
    ])
    expect(await t.ok('package_create_default_resource_views', { package: { id: d.name } }, admin)).toEqual([])
    // the alias works too
    expect(await t.ok('dataset_create_default_resource_views', { package: d }, admin)).toEqual([])
    expect(await t.ok('package_create_default_resource_views', { package: d, create_datastore_views: true }, admin)).toEqual([])
  })

  it("gives CKAN's messages", async () => {
    const d = await dataset([PNG])
    const call = (params: Record<string, unknown>, as: Caller | null = admin) =>
      t.call('package_create_default_resource_views', params, as)
    const missing = await call({})
    expect(missing.status).toBe(409)
    expect(missing.body.error).toEqual({ __type: 'Validation Error', package: ['Missing value'] })
    expect((await call({ package: { id: 'no-such-dataset' } })).status).toBe(404)
    denied(await call({ package: d }, null), 'Action package_create_default_resource_views requires an authenticated user')
    denied(await call({ package: d }, member), `User ${member.name} not authorized to edit package ${d.id}`)
  })
})
