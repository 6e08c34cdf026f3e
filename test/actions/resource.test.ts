// Resources: resource_create, resource_show, resource_update, resource_patch and resource_delete.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { activities, resources } from '../../src/db/schema'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who
let editor: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const) {
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
  }
})

const dataset = (fields: Record<string, unknown> = {}) =>
  t.ok('package_create', { name: uniq('res-ds'), owner_org: org.id, ...fields }, sys)

const showPkg = (id: string) => t.ok('package_show', { id }, sys)

const denied = (r: { status: number; body: any }, message: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({
    __type: 'Authorization Error',
    message: `Access denied: ${message}`,
  })
}

const notFound = (r: { status: number; body: any }, message = 'Not found') => {
  expect(r.status).toBe(404)
  expect(r.body.error).toEqual({ __type: 'Not Found Error', message })
}

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

const tick = () => new Promise((r) => setTimeout(r, 3))

describe('resource_create', () => {
  it('appends a resource and returns it as the dataset lists it', async () => {
    const d = await dataset({ resources: [{ url: 'http://e.com/first.csv' }] })
    await tick()
    const r = await t.ok(
      'resource_create',
      {
        package_id: d.name,
        url: ' http://e.com/img.PNG ',
        name: 'Image',
        alt_url: 'alt123',
        extras: { dropped: true },
        size: '12',
      },
      editor,
    )
    expect(r).toMatchObject({
      package_id: d.id,
      url: 'http://e.com/img.PNG',
      name: 'Image',
      format: 'PNG',
      position: 1,
      size: 12,
      alt_url: 'alt123',
      state: 'active',
      description: null,
      mimetype: 'image/png', // ckan: guessed from the URL's extension
      hash: '',
      url_type: null,
      datastore_active: false,
    })
    expect(r).not.toHaveProperty('extras')
    const pkg = await showPkg(d.id)
    expect(pkg.resources[1]).toEqual(r)
    expect(pkg.num_resources).toBe(2)
    expect(pkg.metadata_modified > d.metadata_modified).toBe(true)
  })

  // ckan 2.9: test_create.py TestResourceCreate.test_extras
  it('keeps extra keys holding strings, objects and lists, and drops extras', async () => {
    const d = await dataset()
    const r = await t.ok(
      'resource_create',
      {
        package_id: d.id,
        somekey: 'somevalue',
        extras: { someotherkey: 'alt234' },
        subobject: { hello: 'there' },
        sublist: [1, 2, 3],
        format: 'plain text',
        url: 'http://datahub.io/download/',
      },
      editor,
    )
    const shown = (await showPkg(d.id)).resources[0]
    for (const res of [r, shown]) {
      expect(res).toMatchObject({ somekey: 'somevalue', subobject: { hello: 'there' }, sublist: [1, 2, 3] })
      expect(res).not.toHaveProperty('extras')
      expect(res).not.toHaveProperty('someotherkey')
    }
  })

  it('canonicalises formats and keeps unknown ones', async () => {
    const d = await dataset()
    const fmt = async (fields: Record<string, unknown>) =>
      (await t.ok('resource_create', { package_id: d.id, ...fields }, sys)).format
    expect(await fmt({ url: 'x', format: 'text/csv' })).toBe('CSV')
    expect(await fmt({ url: 'x', format: 'csv' })).toBe('CSV')
    expect(await fmt({ url: 'x', format: 'plain text' })).toBe('plain text')
    expect(await fmt({ url: 'http://e.com/a.json?x=1' })).toBe('')
    expect(await fmt({ url: 'http://e.com/a.xlsx' })).toBe('XLSX')
    expect(await fmt({ url: 'http://e.com/a.csv.gz' })).toBe('CSV')
    expect(await fmt({ url: 'http://e.com/a.csv', id: 'my-own-resource-id' })).toBe('')
  })

  it('records a "changed package" activity for public datasets only', async () => {
    const d = await dataset()
    await t.ok('resource_create', { package_id: d.id, url: 'x' }, sys)
    const acts = await t.db.select().from(activities).where(eq(activities.object_id, d.id))
    expect(acts.map((a) => a.activity_type).sort()).toEqual(['changed package', 'new package'])
    const priv = await dataset({ private: true })
    await t.ok('resource_create', { package_id: priv.id, url: 'x' }, sys)
    expect(await t.db.select().from(activities).where(eq(activities.object_id, priv.id))).toEqual(
      [],
    )
  })

  it('stores an uploaded file name, size and mimetype', async () => {
    const d = await dataset()
    const form = new FormData()
    form.set('package_id', d.id)
    form.set('name', 'Uploaded')
    form.set('upload', new File(['a,b\n1,2\n'], 'My Data Ü.csv', { type: 'text/csv' }))
    const res = await t.app.request('/api/3/action/resource_create', {
      method: 'POST',
      headers: { authorization: sys.apikey },
      body: form,
    })
    const body = (await res.json()) as any
    expect(body.success).toBe(true)
    const r = body.result
    expect(r).toMatchObject({
      url_type: 'upload',
      size: 8,
      mimetype: 'text/csv',
      format: 'CSV',
      name: 'Uploaded',
    })
    expect(r.url).toBe(
      `http://test.ckan.net/dataset/${d.id}/resource/${r.id}/download/my-data-u.csv`,
    )
    expect(r.last_modified).toEqual(expect.any(String))
  })

  it('reports the resource own errors, not nested', async () => {
    const d = await dataset()
    invalid(
      await t.call(
        'resource_create',
        { package_id: d.id, last_modified: '2020-01-01T10:00:00Z' },
        sys,
      ),
      {
        last_modified: ['Date format incorrect'],
      },
    )
    invalid(await t.call('resource_create', { package_id: d.id, id: 'short' }, sys), {
      id: ['Invalid length for resource id'],
    })
    const ok = await t.ok(
      'resource_create',
      { package_id: d.id, created: '2020-01-02 03:04:05.000007' },
      sys,
    )
    expect(ok.created).toBe('2020-01-02T03:04:05.000007')
    invalid(await t.call('resource_create', { package_id: d.id, id: ok.id }, sys), {
      id: ['Resource id already exists.'],
    })
  })

  it('requires package_id and a known dataset', async () => {
    invalid(await t.call('resource_create', { url: 'x' }, sys), { package_id: ['Missing value'] })
    notFound(await t.call('resource_create', { package_id: 'no-such-dataset' }, sys))
  })

  it('lets editors and admins add resources, and refuses others', async () => {
    const d = await dataset()
    for (const who of [editor, admin])
      await t.ok('resource_create', { package_id: d.id, url: who.name }, who)
    for (const who of [member, stranger])
      denied(
        await t.call('resource_create', { package_id: d.name, url: 'x' }, who),
        `User ${who.name} not authorized to create resources on dataset ${d.name}`,
      )
    denied(
      await t.call('resource_create', { package_id: d.id }, null),
      'Action resource_create requires an authenticated user',
    )
    notFound(await t.call('resource_create', { package_id: 'no-such-dataset' }, null))
  })

  it('refuses readers of a private dataset they cannot see', async () => {
    const d = await dataset({ private: true })
    denied(
      await t.call('resource_create', { package_id: d.id }, stranger),
      `User ${stranger.name} not authorized to read package ${d.id}`,
    )
  })
})

describe('resource_show', () => {
  it('returns the resource, with tracking when asked', async () => {
    const d = await dataset({ resources: [{ url: 'http://e.com/a.csv', foo: 'bar' }] })
    const r = await t.ok('resource_show', { id: d.resources[0].id })
    expect(r).toEqual(d.resources[0])
    const g = await t.get(`/api/3/action/resource_show?id=${r.id}&include_tracking=true`)
    expect(g.body.result.tracking_summary).toMatchObject({ total: 0, recent: 0 })
  })

  it('answers 404 for unknown and deleted resources', async () => {
    notFound(await t.call('resource_show', { id: 'no-such-resource' }))
    const d = await dataset({ resources: [{ url: 'a' }] })
    await t.ok('resource_delete', { id: d.resources[0].id }, sys)
    notFound(
      await t.call('resource_show', { id: d.resources[0].id }, sys),
      'Not found: Resource was not found.',
    )
    invalid(await t.call('resource_show', {}), { id: ['Missing value'] })
  })

  it('needs read access to a private dataset', async () => {
    const d = await dataset({ private: true, resources: [{ url: 'a' }] })
    const id = d.resources[0].id
    denied(
      await t.call('resource_show', { id }, stranger),
      `User ${stranger.name} not authorized to read resource ${id}`,
    )
    denied(await t.call('resource_show', { id }), `User  not authorized to read resource ${id}`)
    expect((await t.ok('resource_show', { id }, member)).id).toBe(id)
  })
})

describe('resource_update', () => {
  it('replaces the resource: cleared, kept and replaced keys', async () => {
    const d = await dataset({
      resources: [
        {
          url: 'http://e.com/a',
          description: 'desc',
          format: 'csv',
          name: 'N',
          mimetype: 'text/csv',
          size: 5,
          x1: 'old',
          x2: 'gone',
        },
        { url: 'b' },
      ],
    })
    const before = d.resources[0]
    await tick()
    const r = await t.ok(
      'resource_update',
      { id: before.id, x1: 'new', resource_type: 'file' },
      editor,
    )
    expect(r).toMatchObject({
      id: before.id,
      url: '',
      description: null,
      mimetype: null,
      resource_type: 'file',
      format: 'CSV',
      name: 'N',
      size: 5,
      x1: 'new',
      position: 0,
      created: before.created,
    })
    expect(r).not.toHaveProperty('x2')
    expect(r.metadata_modified > before.metadata_modified).toBe(true)
    const pkg = await showPkg(d.id)
    expect(pkg.resources[0]).toEqual(r)
    expect(pkg.resources[1].id).toBe(d.resources[1].id)
  })

  it('replaces the file of an uploaded resource', async () => {
    const d = await dataset({ resources: [{ url: 'http://e.com/a.csv', format: 'CSV' }] })
    const form = new FormData()
    form.set('id', d.resources[0].id)
    form.set('upload', new File(['{}'], 'new.json'))
    const res = await t.app.request('/api/3/action/resource_update', {
      method: 'POST',
      headers: { authorization: editor.apikey },
      body: form,
    })
    const r = ((await res.json()) as any).result
    expect(r).toMatchObject({
      url_type: 'upload',
      size: 2,
      mimetype: 'application/json',
      format: 'CSV',
    })
    expect(r.url).toMatch(/\/download\/new\.json$/)
    const again = await t.ok('resource_patch', { id: r.id, name: 'kept file' }, editor)
    expect(again).toMatchObject({ url: r.url, url_type: 'upload', size: 2 })
  })

  it('does not guess a format on update', async () => {
    const d = await dataset({ resources: [{ url: 'x' }] })
    expect(
      (await t.ok('resource_update', { id: d.resources[0].id, url: 'http://e.com/a.csv' }, sys))
        .format,
    ).toBe('')
  })

  it('answers 404 for unknown and deleted resources', async () => {
    notFound(
      await t.call('resource_update', { id: 'no-such-resource' }, sys),
      'Not found: Resource was not found.',
    )
    notFound(
      await t.call('resource_update', { id: 'no-such-resource' }, null),
      'Not found: Resource was not found.',
    )
    const d = await dataset({ resources: [{ url: 'a' }] })
    await t.ok('resource_delete', { id: d.resources[0].id }, sys)
    notFound(
      await t.call('resource_update', { id: d.resources[0].id }, sys),
      'Not found: Resource was not found.',
    )
  })

  it('reports bad values', async () => {
    const d = await dataset({ resources: [{ url: 'a' }] })
    invalid(await t.call('resource_update', { id: d.resources[0].id, size: 1.5 }, sys), {
      size: ['Invalid integer'],
    })
    invalid(await t.call('resource_update', {}, sys), { id: ['Missing value'] })
  })

  it('refuses members, outsiders and anonymous callers', async () => {
    const d = await dataset({ resources: [{ url: 'a' }] })
    const id = d.resources[0].id
    for (const who of [member, stranger])
      denied(
        await t.call('resource_update', { id }, who),
        `User ${who.name} not authorized to edit resource ${id}`,
      )
    denied(
      await t.call('resource_update', { id }, null),
      'Action resource_update requires an authenticated user',
    )
  })
})

describe('resource_patch', () => {
  it('changes only the given keys', async () => {
    const d = await dataset({
      resources: [{ url: 'http://e.com/a.csv', description: 'keep me', extra: 'e' }],
    })
    const r = await t.ok('resource_patch', { id: d.resources[0].id, name: 'Renamed' }, editor)
    expect(r).toMatchObject({
      name: 'Renamed',
      description: 'keep me',
      url: 'http://e.com/a.csv',
      extra: 'e',
      format: 'CSV',
    })
    expect((await showPkg(d.id)).resources[0]).toEqual(r)
  })

  it('answers 404 and refuses outsiders', async () => {
    notFound(await t.call('resource_patch', { id: 'no-such-resource' }, sys))
    const d = await dataset({ resources: [{ url: 'a' }] })
    const id = d.resources[0].id
    denied(
      await t.call('resource_patch', { id, name: 'x' }, member),
      `User ${member.name} not authorized to edit resource ${id}`,
    )
    denied(
      await t.call('resource_patch', { id }, null),
      'Action resource_patch requires an authenticated user',
    )
  })
})

describe('resource_delete', () => {
  it('marks the resource deleted and closes the gap in positions', async () => {
    const d = await dataset({ resources: [{ url: 'a' }, { url: 'b' }, { url: 'c' }] })
    await tick()
    const del = await t.call('resource_delete', { id: d.resources[1].id }, editor)
    expect(del.body).toMatchObject({ success: true, result: null })
    const pkg = await showPkg(d.id)
    expect(
      pkg.resources.map((r: { url: string; position: number }) => [r.url, r.position]),
    ).toEqual([
      ['http://a', 0],
      ['http://c', 1],
    ])
    expect(pkg.metadata_modified > d.metadata_modified).toBe(true)
    const [row] = await t.db.select().from(resources).where(eq(resources.id, d.resources[1].id))
    expect(row!.state).toBe('deleted')
  })

  it('answers 404 for an unknown resource', async () => {
    notFound(await t.call('resource_delete', { id: 'no-such-resource' }, sys))
    notFound(await t.call('resource_delete', { id: 'no-such-resource' }, null))
    invalid(await t.call('resource_delete', {}, sys), { id: ['Missing value'] })
  })

  it('lets anyone who may update the dataset delete, and refuses the rest', async () => {
    const d = await dataset({ resources: [{ url: 'a' }, { url: 'b' }] })
    for (const who of [member, stranger])
      denied(
        await t.call('resource_delete', { id: d.resources[0].id }, who),
        `User ${who.name} not authorized to delete resource ${d.resources[0].id}`,
      )
    denied(
      await t.call('resource_delete', { id: d.resources[0].id }, null),
      'Action resource_delete requires an authenticated user',
    )
    await t.ok('resource_delete', { id: d.resources[0].id }, admin)
    const unowned = await t.ok(
      'package_create',
      { name: uniq('unowned'), resources: [{ url: 'a' }] },
      stranger,
    )
    // ckan: with both unowned-dataset options on, any logged-in user may edit unowned datasets
    await t.ok('resource_delete', { id: unowned.resources[0].id }, member)
  })
})
