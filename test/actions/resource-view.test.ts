// Resource views: create, show, list, update, delete, reorder and clear, with CKAN's messages and rules.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { setup, type Caller, type CallResult, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { resourceViews } from '../../src/db/schema'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who
let editor: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }

beforeAll(async () => {
  // No default views here: every view of these tests is made by the test itself.
  t = await setup({ 'service.views.default_views': '' })
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const)
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
})

/** A dataset of the organization with one resource; returns the dataset and the resource. */
async function resource(fields: Record<string, unknown> = {}, res: Record<string, unknown> = {}) {
  const d = await t.ok(
    'package_create',
    {
      name: uniq('view-ds'),
      owner_org: org.id,
      resources: [{ url: 'http://e.com/pic.png', ...res }],
      ...fields,
    },
    sys,
  )
  return { d, r: d.resources[0] as { id: string; package_id: string } }
}

const image = (resource_id: string, fields: Record<string, unknown> = {}) =>
  t.ok('resource_view_create', { resource_id, view_type: 'image_view', title: 'Pic', ...fields }, sys)

const invalid = (r: CallResult, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}
const denied = (r: CallResult, message?: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({
    __type: 'Authorization Error',
    message: message ? `Access denied: ${message}` : 'Access denied',
  })
}
const notFound = (r: CallResult) => {
  expect(r.status).toBe(404)
  expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
}
const storedOrders = async (resourceId: string) =>
  (await t.db.select().from(resourceViews).where(eq(resourceViews.resource_id, resourceId)))
    .sort((a, b) => a.order - b.order)
    .map((v) => v.id)

describe('resource_view_create', () => {
  it('creates a view and returns its settings at the top level, without order', async () => {
    const { r } = await resource()
    const v = await t.ok(
      'resource_view_create',
      {
        resource_id: r.id,
        view_type: 'image_view',
        title: 'A picture',
        description: 'A nice view',
        image_url: 'http://e.com/other.png',
      },
      editor,
    )
    expect(v).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      resource_id: r.id,
      package_id: r.package_id,
      title: 'A picture',
      description: 'A nice view',
      view_type: 'image_view',
      image_url: 'http://e.com/other.png',
    })
    expect(await t.ok('resource_view_show', { id: v.id })).toEqual(v)
  })

  it('stores no description or empty plugin keys when none are given', async () => {
    const { r } = await resource()
    const v = await image(r.id, { image_url: '' })
    expect(v.description).toBeNull()
    expect(v).not.toHaveProperty('image_url')
  })

  it('accepts each type with its own keys', async () => {
    const { r } = await resource()
    const web = await t.ok(
      'resource_view_create',
      { resource_id: r.id, view_type: 'webpage_view', title: 'W', page_url: 'http://e.com/p' },
      sys,
    )
    expect(web.page_url).toBe('http://e.com/p')
    const text = await t.ok('resource_view_create', { resource_id: r.id, view_type: 'text_view', title: 'T' }, sys)
    expect(Object.keys(text).sort()).toEqual(
      ['description', 'id', 'package_id', 'resource_id', 'title', 'view_type'],
    )
    const table = await t.ok(
      'resource_view_create',
      { resource_id: r.id, view_type: 'datatables_view', title: 'D', show_fields: ['a', 'b'] },
      sys,
    )
    expect(table).toMatchObject({ responsive: false, filterable: true, show_fields: ['a', 'b'] })
    const table2 = await t.ok(
      'resource_view_create',
      { resource_id: r.id, view_type: 'datatables_view', title: 'D', responsive: 'true', filterable: 'no' },
      sys,
    )
    expect(table2).toMatchObject({ responsive: true, filterable: false })
    expect(table2).not.toHaveProperty('show_fields')
    for (const view_type of ['recline_view', 'recline_grid_view']) {
      const v = await t.ok('resource_view_create', { resource_id: r.id, view_type, title: 'R' }, sys)
      expect(v.view_type).toBe(view_type)
    }
  })

  it("refuses keys that are not the type's", async () => {
    const { r } = await resource()
    const extra = { __extras: ['The input field __extras was not expected.'] }
    const create = (fields: Record<string, unknown>) =>
      t.call('resource_view_create', { resource_id: r.id, title: 'X', ...fields }, sys)
    invalid(await create({ view_type: 'text_view', image_url: 'http://e.com/x.png' }), extra)
    invalid(await create({ view_type: 'image_view', page_url: 'http://e.com/' }), extra)
    invalid(await create({ view_type: 'image_view', responsive: true }), extra)
    invalid(await create({ view_type: 'image_view', id: 'my-own-id' }), extra)
    // ckan: only filterable types take filters
    invalid(await create({ view_type: 'image_view', filter_fields: 'a', filter_values: 'b' }), extra)
  })

  it('turns filter fields and values into lists and a filters dict', async () => {
    const { r } = await resource()
    const v = await t.ok(
      'resource_view_create',
      {
        resource_id: r.id,
        view_type: 'recline_view',
        title: 'Filtered',
        filter_fields: ['country', 'weather', 'country'],
        filter_values: ['Brazil', 'warm', 'Argentina'],
      },
      sys,
    )
    expect(v).toMatchObject({
      filter_fields: ['country', 'weather', 'country'],
      filter_values: ['Brazil', 'warm', 'Argentina'],
      filters: { country: ['Brazil', 'Argentina'], weather: ['warm'] },
    })
    const one = await t.ok(
      'resource_view_create',
      { resource_id: r.id, view_type: 'datatables_view', title: 'F', filter_fields: 'country', filter_values: 'Brazil' },
      sys,
    )
    expect(one).toMatchObject({
      filter_fields: ['country'],
      filter_values: ['Brazil'],
      filters: { country: ['Brazil'] },
    })
  })

  it('requires filter fields and values of the same length', async () => {
    const { r } = await resource()
    const same = '"filter_fields" and "filter_values" should have the same length'
    const create = (fields: Record<string, unknown>) =>
      t.call('resource_view_create', { resource_id: r.id, view_type: 'recline_view', title: 'F', ...fields }, sys)
    invalid(await create({ filter_fields: ['a', 'a'], filter_values: 'x' }), {
      filter_fields: [same],
      filter_values: [same],
    })
    invalid(await create({ filter_fields: 'a' }), {
      filter_fields: [same],
      filter_values: [same, '"filter_values" is required when "filter_fields" is filled'],
    })
    invalid(await create({ filter_fields: [], filter_values: ['x'] }), {
      filter_fields: [same, '"filter_fields" is required when "filter_values" is filled'],
      filter_values: [same],
    })
  })

  it('takes the keys from a config JSON object too', async () => {
    const { r } = await resource()
    const v = await image(r.id, { config: JSON.stringify({ image_url: 'http://e.com/c.png' }) })
    expect(v.image_url).toBe('http://e.com/c.png')
    const direct = await image(r.id, { config: { image_url: 'http://e.com/c.png' }, image_url: 'http://e.com/d.png' })
    expect(direct.image_url).toBe('http://e.com/d.png')
    invalid(await t.call('resource_view_create', { resource_id: r.id, view_type: 'image_view', title: 'X', config: '{nope' }, sys), {
      config: ['Could not parse as valid JSON'],
    })
    invalid(await t.call('resource_view_create', { resource_id: r.id, view_type: 'image_view', title: 'X', config: { page_url: 'x' } }, sys), {
      __extras: ['The input field __extras was not expected.'],
    })
  })

  it("gives CKAN's messages for missing, unknown and disabled input", async () => {
    const { r } = await resource()
    const call = (fields: Record<string, unknown>, as: Caller | null = sys) =>
      t.call('resource_view_create', fields, as)
    invalid(await call({ view_type: 'image_view', title: 'X' }), { resource_id: ['Missing value'] })
    invalid(await call({ resource_id: r.id, title: 'X' }), { view_type: ['Missing value'] })
    invalid(await call({ resource_id: r.id, view_type: 'recline_graph_view', title: 'X' }), {
      view_type: 'No plugin found for view_type recline_graph_view',
    })
    invalid(await call({ resource_id: r.id, view_type: 'image_view' }), { title: ['Missing value'] })
    invalid(await call({ resource_id: r.id, view_type: 'image_view', title: '' }), { title: ['Missing value'] })
    invalid(await call({ resource_id: 'no-such-resource', view_type: 'image_view', title: 'X' }), {
      resource_id: ['Not found: Resource'],
    })
    invalid(await call({ resource_id: '', view_type: 'image_view' }), {
      resource_id: ['Missing value'],
      title: ['Missing value'],
    })
    // ckan: the fields are checked before the caller
    invalid(await call({ resource_id: r.id, view_type: 'image_view' }, null), { title: ['Missing value'] })
  })

  it('refuses a deleted resource', async () => {
    const { r } = await resource()
    await t.ok('resource_delete', { id: r.id }, sys)
    invalid(await t.call('resource_view_create', { resource_id: r.id, view_type: 'image_view', title: 'X' }, sys), {
      resource_id: ['Not found: Resource'],
    })
  })

  it('puts new views after the existing ones', async () => {
    const { r } = await resource()
    const a = await image(r.id)
    const b = await image(r.id)
    const c = await image(r.id)
    expect(await storedOrders(r.id)).toEqual([a.id, b.id, c.id])
  })

  it('lets editors and admins of the organization create views, and refuses others', async () => {
    const { r } = await resource()
    const params = { resource_id: r.id, view_type: 'image_view', title: 'X' }
    for (const who of [editor, admin, sys]) await t.ok('resource_view_create', params, who)
    denied(await t.call('resource_view_create', params), 'Action resource_view_create requires an authenticated user')
    for (const who of [member, stranger])
      denied(
        await t.call('resource_view_create', params, who),
        `User ${who.name} not authorized to create resources on dataset ${r.package_id}`,
      )
  })

  it('disables types left out of service.views.plugins', async () => {
    const only = await setup({ 'service.views.plugins': 'image_view', 'service.views.default_views': '' })
    const s = await only.make.sysadmin()
    const d = await only.ok('package_create', { name: uniq('view-ds'), resources: [{ url: 'x.csv' }] }, s)
    const r = await only.call(
      'resource_view_create',
      { resource_id: d.resources[0].id, view_type: 'recline_view', title: 'X' },
      s,
    )
    invalid(r, { view_type: 'No plugin found for view_type recline_view' })
  })
})

describe('resource_view_show', () => {
  it('shows a view to whoever may read the dataset, also with GET', async () => {
    const { r } = await resource()
    const v = await image(r.id)
    expect(await t.ok('resource_view_show', { id: v.id })).toEqual(v)
    const got = await t.get(`/api/3/action/resource_view_show?id=${v.id}`)
    expect(got.body.result).toEqual(v)
  })

  it('needs an id and answers 404 for an unknown one', async () => {
    invalid(await t.call('resource_view_show', {}), { id: ['Missing value'] })
    notFound(await t.call('resource_view_show', { id: 'no-such-view' }))
    notFound(await t.call('resource_view_show', { id: 'no-such-view' }, sys))
  })

  it('hides the views of a private dataset like the dataset', async () => {
    const { r } = await resource({ private: true })
    const v = await image(r.id)
    denied(await t.call('resource_view_show', { id: v.id }), `User  not authorized to read resource ${r.id}`)
    denied(
      await t.call('resource_view_show', { id: v.id }, stranger),
      `User ${stranger.name} not authorized to read resource ${r.id}`,
    )
    for (const who of [member, editor, sys]) expect((await t.ok('resource_view_show', { id: v.id }, who)).id).toBe(v.id)
  })

  it('hides the views of a deleted dataset from the public', async () => {
    const { d, r } = await resource()
    const v = await image(r.id)
    await t.ok('package_delete', { id: d.id }, sys)
    denied(await t.call('resource_view_show', { id: v.id }), `User  not authorized to read resource ${r.id}`)
    expect((await t.ok('resource_view_show', { id: v.id }, member)).id).toBe(v.id)
  })
})

describe('resource_view_list', () => {
  it('lists the views of a resource in their order, also with GET', async () => {
    const { r } = await resource()
    const a = await image(r.id, { title: 'A' })
    const b = await image(r.id, { title: 'B' })
    expect(await t.ok('resource_view_list', { id: r.id })).toEqual([a, b])
    const got = await t.get(`/api/3/action/resource_view_list?id=${r.id}`)
    expect(got.body.result).toEqual([a, b])
    const { r: other } = await resource()
    expect(await t.ok('resource_view_list', { id: other.id })).toEqual([])
  })

  it('leaves out views whose type is not enabled', async () => {
    const { r } = await resource()
    const a = await image(r.id)
    await t.db.insert(resourceViews).values({
      id: uniq('graph'),
      resource_id: r.id,
      title: 'Graph',
      view_type: 'recline_graph_view',
      order: 5,
    })
    expect((await t.ok('resource_view_list', { id: r.id })).map((v: any) => v.id)).toEqual([a.id])
  })

  it('needs a known, active resource', async () => {
    invalid(await t.call('resource_view_list', {}), { id: ['Missing value'] })
    notFound(await t.call('resource_view_list', { id: 'no-such-resource' }))
    const { r } = await resource()
    await t.ok('resource_delete', { id: r.id }, sys)
    notFound(await t.call('resource_view_list', { id: r.id }, sys))
  })

  it('hides the views of a private dataset like the dataset', async () => {
    const { r } = await resource({ private: true })
    await image(r.id)
    denied(await t.call('resource_view_list', { id: r.id }), `User  not authorized to read resource ${r.id}`)
    denied(
      await t.call('resource_view_list', { id: r.id }, stranger),
      `User ${stranger.name} not authorized to read resource ${r.id}`,
    )
    expect(await t.ok('resource_view_list', { id: r.id }, member)).toHaveLength(1)
  })
})

describe('resource_view_update', () => {
  it('changes the given fields, keeps title and description, replaces the settings', async () => {
    const { r } = await resource()
    const v = await image(r.id, { description: 'Old', image_url: 'http://e.com/a.png' })
    const same = await t.ok('resource_view_update', { id: v.id, image_url: 'http://e.com/a.png' }, editor)
    expect(same).toEqual(v)
    const u = await t.ok(
      'resource_view_update',
      { id: v.id, title: 'New', view_type: 'webpage_view', package_id: 'ignored' },
      editor,
    )
    expect(u).toEqual({ ...v, title: 'New', image_url: undefined })
    expect(u).not.toHaveProperty('image_url')
    expect(await t.ok('resource_view_show', { id: v.id })).toEqual(u)
  })

  it('applies the type defaults and filters again', async () => {
    const { r } = await resource()
    const v = await t.ok(
      'resource_view_create',
      { resource_id: r.id, view_type: 'datatables_view', title: 'T', responsive: true },
      sys,
    )
    const u = await t.ok(
      'resource_view_update',
      { id: v.id, filter_fields: ['a', 'b'], filter_values: ['1', '2'] },
      sys,
    )
    expect(u).toMatchObject({ responsive: false, filterable: true, filters: { a: ['1'], b: ['2'] } })
    // a view sent back as shown (with its derived filters) is accepted
    expect(await t.ok('resource_view_update', u, sys)).toEqual(u)
  })

  it("gives CKAN's messages", async () => {
    const { r } = await resource()
    const v = await image(r.id)
    invalid(await t.call('resource_view_update', { title: 'X' }, sys), { id: ['Missing value'] })
    notFound(await t.call('resource_view_update', { id: 'no-such-view' }, sys))
    invalid(await t.call('resource_view_update', { id: v.id, resource_id: 'no-such-resource' }, sys), {
      resource_id: ['Not found: Resource'],
    })
    invalid(await t.call('resource_view_update', { id: v.id, page_url: 'x' }, sys), {
      __extras: ['The input field __extras was not expected.'],
    })
  })

  it('lets editors change views and refuses others', async () => {
    const { r } = await resource()
    const v = await image(r.id)
    denied(await t.call('resource_view_update', { id: v.id, title: 'X' }), 'Action resource_view_update requires an authenticated user')
    for (const who of [member, stranger])
      denied(
        await t.call('resource_view_update', { id: v.id, title: 'X' }, who),
        `User ${who.name} not authorized to edit resource ${r.id}`,
      )
    expect((await t.ok('resource_view_update', { id: v.id, title: 'By admin' }, admin)).title).toBe('By admin')
  })
})

describe('resource_view_delete', () => {
  it('deletes a view', async () => {
    const { r } = await resource()
    const a = await image(r.id)
    const b = await image(r.id)
    expect(await t.ok('resource_view_delete', { id: a.id }, editor)).toBeNull()
    notFound(await t.call('resource_view_show', { id: a.id }))
    expect(await t.ok('resource_view_list', { id: r.id })).toEqual([b])
  })

  it('needs a known view, even for anonymous callers', async () => {
    invalid(await t.call('resource_view_delete', {}, sys), { id: ['Missing value'] })
    notFound(await t.call('resource_view_delete', { id: 'no-such-view' }))
  })

  it('refuses callers who may not delete the resource', async () => {
    const { r } = await resource()
    const v = await image(r.id)
    denied(await t.call('resource_view_delete', { id: v.id }), 'Action resource_view_delete requires an authenticated user')
    for (const who of [member, stranger])
      denied(
        await t.call('resource_view_delete', { id: v.id }, who),
        `User ${who.name} not authorized to delete resource ${r.id}`,
      )
    expect(await t.ok('resource_view_list', { id: r.id })).toHaveLength(1)
  })
})

describe('resource_view_reorder', () => {
  it('puts the given views first, then the others in their order', async () => {
    const { r } = await resource()
    const [a, b, c] = [await image(r.id), await image(r.id), await image(r.id)]
    const all = await t.ok('resource_view_reorder', { id: r.id, order: [c.id, a.id] }, editor)
    expect(all).toEqual({ id: r.id, order: [c.id, a.id, b.id] })
    expect((await t.ok('resource_view_list', { id: r.id })).map((v: any) => v.id)).toEqual([c.id, a.id, b.id])
    const one = await t.ok('resource_view_reorder', { id: r.id, order: [b.id] }, editor)
    expect(one.order).toEqual([b.id, c.id, a.id])
    expect(await storedOrders(r.id)).toEqual([b.id, c.id, a.id])
  })

  it("gives CKAN's messages", async () => {
    const { r } = await resource()
    const { r: other } = await resource()
    const a = await image(r.id)
    const foreign = await image(other.id)
    const call = (params: Record<string, unknown>) => t.call('resource_view_reorder', params, sys)
    invalid(await call({}), { id: ['Missing value'], order: ['Missing value'] })
    invalid(await call({ id: r.id }), { order: ['Missing value'] })
    invalid(await call({ id: r.id, order: a.id }), { order: 'Must supply order as a list' })
    invalid(await call({ id: r.id, order: [a.id, a.id] }), { order: 'No duplicates allowed in order' })
    invalid(await call({ id: r.id, order: ['nope'] }), { order: 'View nope does not exist' })
    invalid(await call({ id: r.id, order: [foreign.id] }), { order: `View ${foreign.id} does not exist` })
    notFound(await call({ id: 'no-such-resource', order: [] }))
  })

  it('refuses callers who may not edit the resource', async () => {
    const { r } = await resource()
    const a = await image(r.id)
    denied(await t.call('resource_view_reorder', { id: r.id, order: [a.id] }), 'Action resource_view_reorder requires an authenticated user')
    denied(
      await t.call('resource_view_reorder', { id: r.id, order: [a.id] }, member),
      `User ${member.name} not authorized to edit resource ${r.id}`,
    )
  })
})

describe('resource_view_clear', () => {
  it('deletes every view of the given types, or every view', async () => {
    const { r } = await resource()
    const img = await image(r.id)
    const web = await t.ok('resource_view_create', { resource_id: r.id, view_type: 'webpage_view', title: 'W' }, sys)
    const txt = await t.ok('resource_view_create', { resource_id: r.id, view_type: 'text_view', title: 'T' }, sys)
    expect(await t.ok('resource_view_clear', { view_types: ['image_view', 'text_view'] }, sys)).toBeNull()
    expect(await t.ok('resource_view_list', { id: r.id })).toEqual([web])
    notFound(await t.call('resource_view_show', { id: img.id }))
    notFound(await t.call('resource_view_show', { id: txt.id }))
    await t.ok('resource_view_clear', { view_types: 'webpage_view' }, sys)
    expect(await t.ok('resource_view_list', { id: r.id })).toEqual([])
    const { r: r2 } = await resource()
    await image(r2.id)
    await t.ok('resource_view_clear', {}, sys)
    expect(await t.db.select().from(resourceViews)).toEqual([])
  })

  it('is for sysadmins only', async () => {
    const { r } = await resource()
    await image(r.id)
    denied(await t.call('resource_view_clear', {}), 'Action resource_view_clear requires an authenticated user')
    for (const who of [admin, stranger]) denied(await t.call('resource_view_clear', {}, who))
    expect(await t.ok('resource_view_list', { id: r.id })).toHaveLength(1)
  })
})
