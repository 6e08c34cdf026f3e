// Dataset lifecycle and listing: delete, purge, lists, owner change, resource order, bulk updates.
import { beforeAll, describe, expect, it } from 'vitest'
import { and, eq } from 'drizzle-orm'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import {
  activities,
  members,
  packageExtras,
  packageRelationships,
  packageTags,
  packages,
  resources,
} from '../../src/db/schema'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who // admin of org
let editor: Who
let member: Who
let stranger: Who
let org: { id: string; name: string }
let org2: { id: string; name: string }
let group: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  editor = await t.make.user()
  member = await t.make.user()
  stranger = await t.make.user()
  org = await t.make.organization(admin)
  org2 = await t.make.organization(sys)
  group = await t.make.group(sys)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const) {
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
  }
})

/** A dataset of `org`, in `group`, created by a sysadmin. */
const orgDataset = (fields: Record<string, unknown> = {}) =>
  t.make.dataset(sys, { owner_org: org.id, groups: [{ id: group.id }], ...fields })

/** Lets the clock move on, so timestamps taken after it are strictly later (ms resolution). */
const tick = () => new Promise((r) => setTimeout(r, 3))

const show = (id: string, as: Caller = sys) => t.ok('package_show', { id }, as)

const denied = (body: { error: { __type: string; message: string } }, message: string) => {
  expect(body.error.__type).toBe('Authorization Error')
  expect(body.error.message).toBe(message)
}

describe('package_delete', () => {
  it('marks the dataset deleted and drops its group memberships', async () => {
    const ds = await orgDataset()
    expect((await show(ds.id)).groups).toHaveLength(1)
    const r = await t.call('package_delete', { id: ds.name }, editor)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, result: null })
    const after = await show(ds.id, member)
    expect(after.state).toBe('deleted')
    expect(after.groups).toEqual([])
    expect(after.owner_org).toBe(org.id)
    const rows = await t.db
      .select()
      .from(members)
      .where(and(eq(members.table_id, ds.id), eq(members.group_id, group.id)))
    expect(rows.map((m) => m.state)).toEqual(['deleted'])
    expect(await t.ok('package_list')).not.toContain(ds.name)
  })

  it('records a deleted package activity for public datasets only', async () => {
    const pub = await orgDataset()
    const priv = await orgDataset({ private: true })
    await t.ok('package_delete', { id: pub.id }, admin)
    await t.ok('package_delete', { id: priv.id }, admin)
    const pubActs = await t.db.select().from(activities).where(eq(activities.object_id, pub.id))
    const deleted = pubActs.filter((a) => a.activity_type === 'deleted package')
    expect(deleted).toHaveLength(1)
    expect(deleted[0]!.user_id).toBe(admin.id)
    expect(JSON.parse(deleted[0]!.data).package).toMatchObject({ id: pub.id, state: 'deleted' })
    const privActs = await t.db.select().from(activities).where(eq(activities.object_id, priv.id))
    expect(privActs.filter((a) => a.activity_type === 'deleted package')).toHaveLength(0)
  })

  it('lets a sysadmin delete any dataset', async () => {
    const ds = await orgDataset()
    await t.ok('package_delete', { id: ds.id }, sys)
    expect((await show(ds.id)).state).toBe('deleted')
  })

  it('requires an id', async () => {
    const r = await t.call('package_delete', {}, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: ['Missing value'] })
  })

  it('answers Not found for an unknown dataset, even to anonymous callers', async () => {
    for (const as of [sys, null]) {
      const r = await t.call('package_delete', { id: uniq('nope') }, as)
      expect(r.status).toBe(404)
      expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    }
  })

  it('refuses anonymous callers, plain users and org members', async () => {
    const ds = await orgDataset()
    const anon = await t.call('package_delete', { id: ds.id })
    expect(anon.status).toBe(403)
    denied(anon.body, 'Access denied: Action package_delete requires an authenticated user')
    for (const who of [stranger, member]) {
      const r = await t.call('package_delete', { id: ds.id }, who)
      expect(r.status).toBe(403)
      denied(r.body, `Access denied: User ${who.name} not authorized to edit package ${ds.id}`)
    }
    expect((await show(ds.id)).state).toBe('active')
  })
})

describe('dataset_purge', () => {
  it('removes the dataset and everything attached to it', async () => {
    const other = await orgDataset()
    const ds = await orgDataset({
      resources: [{ url: 'http://example.com/a.csv' }],
      tags: [{ name: 'purgeme' }],
      extras: [{ key: 'k', value: 'v' }],
    })
    await t.db.insert(packageRelationships).values({
      id: crypto.randomUUID(),
      subject_package_id: ds.id,
      object_package_id: other.id,
      type: 'depends_on',
    })
    const r = await t.call('dataset_purge', { id: ds.name }, sys)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect((await t.call('package_show', { id: ds.id }, sys)).status).toBe(404)
    for (const [table, col] of [
      [packages, packages.id],
      [resources, resources.package_id],
      [packageTags, packageTags.package_id],
      [packageExtras, packageExtras.package_id],
      [members, members.table_id],
      [packageRelationships, packageRelationships.subject_package_id],
    ] as const) {
      expect(await t.db.select().from(table).where(eq(col, ds.id))).toEqual([])
    }
    expect((await show(other.id)).relationships_as_object).toEqual([])
  })

  it('purges a deleted dataset', async () => {
    const ds = await orgDataset()
    await t.ok('package_delete', { id: ds.id }, admin)
    await t.ok('dataset_purge', { id: ds.id }, sys)
    expect((await t.call('package_show', { id: ds.id }, sys)).status).toBe(404)
  })

  it('answers Dataset was not found for an unknown dataset', async () => {
    const r = await t.call('dataset_purge', { id: uniq('nope') }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Dataset was not found')
  })

  it('requires an id', async () => {
    const r = await t.call('dataset_purge', { id: '' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual(['Missing value'])
  })

  it('refuses everyone but sysadmins', async () => {
    const ds = await orgDataset()
    denied(
      (await t.call('dataset_purge', { id: ds.id })).body,
      'Access denied: Action dataset_purge requires an authenticated user',
    )
    for (const who of [admin, stranger]) {
      const r = await t.call('dataset_purge', { id: ds.id }, who)
      expect(r.status).toBe(403)
      denied(r.body, 'Access denied')
    }
    expect((await show(ds.id)).state).toBe('active')
  })
})

describe('package_list', () => {
  it('lists active public datasets by name', async () => {
    const a = await orgDataset({ name: uniq('aaa-list') })
    const priv = await orgDataset({ private: true })
    const gone = await orgDataset()
    await t.ok('package_delete', { id: gone.id }, sys)
    const draft = await orgDataset()
    await t.db.update(packages).set({ state: 'draft' }).where(eq(packages.id, draft.id))
    const names: string[] = await t.ok('package_list', {}, sys)
    expect(names).toContain(a.name)
    expect(names).not.toContain(priv.name)
    expect(names).not.toContain(gone.name)
    expect(names).not.toContain(draft.name)
    expect([...names].sort()).toEqual(names)
  })

  it('pages with limit and offset, and treats 0 as no limit', async () => {
    await orgDataset()
    await orgDataset()
    const all: string[] = await t.ok('package_list')
    expect(all.length).toBeGreaterThan(2)
    expect(await t.ok('package_list', { limit: 2 })).toEqual(all.slice(0, 2))
    expect(await t.ok('package_list', { limit: 2, offset: 1 })).toEqual(all.slice(1, 3))
    expect(await t.ok('package_list', { offset: 1 })).toEqual(all.slice(1))
    expect(await t.ok('package_list', { limit: 0 })).toEqual(all)
  })

  it('answers GET with query parameters', async () => {
    const all: string[] = await t.ok('package_list')
    const r = await t.get('/api/3/action/package_list?limit=1&offset=1')
    expect(r.body.result).toEqual(all.slice(1, 2))
  })

  it('rejects bad limits and offsets', async () => {
    const r = await t.call('package_list', { limit: 'abc', offset: -1 })
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      limit: ['Invalid integer'],
      offset: ['Must be a natural number'],
    })
  })
})

describe('current_package_list_with_resources', () => {
  let latest: { id: string; name: string }
  let priv: { id: string; name: string }

  beforeAll(async () => {
    for (let i = 0; i < 11; i++) await orgDataset()
    priv = await orgDataset({ private: true })
    await tick()
    latest = await orgDataset({ resources: [{ url: 'http://example.com/r.csv', name: 'r' }] })
  })

  it('returns 10 full dataset dicts by default, most recently modified first', async () => {
    const list = await t.ok('current_package_list_with_resources')
    expect(list).toHaveLength(10)
    expect(list[0]).toEqual(await show(latest.id))
    expect(list[0].resources[0].name).toBe('r')
    const times = list.map((d: { metadata_modified: string }) => d.metadata_modified)
    expect([...times].sort().reverse()).toEqual(times)
    expect(list.map((d: { name: string }) => d.name)).not.toContain(priv.name)
  })

  it('includes private datasets for sysadmins only', async () => {
    const forSys = await t.ok('current_package_list_with_resources', {}, sys)
    expect(forSys.map((d: { name: string }) => d.name)).toContain(priv.name)
    const forAdmin = await t.ok('current_package_list_with_resources', {}, admin)
    expect(forAdmin.map((d: { name: string }) => d.name)).not.toContain(priv.name)
  })

  it('pages with limit, offset and page', async () => {
    const names = async (params: object) =>
      ((await t.ok('current_package_list_with_resources', params)) as { name: string }[]).map(
        (d) => d.name,
      )
    const first = await names({ limit: 6 })
    expect(first).toHaveLength(6)
    expect(await names({ limit: 3, offset: 3 })).toEqual(first.slice(3, 6))
    expect(await names({ limit: 3, page: 2 })).toEqual(first.slice(3, 6))
    // offset wins over page; page without limit means the first page
    expect(await names({ limit: 3, page: 2, offset: 1 })).toEqual(first.slice(1, 4))
    expect(await names({ page: 2 })).toEqual(await names({}))
    expect(await names({ limit: 0 })).toEqual([])
  })

  it('skips deleted datasets', async () => {
    const ds = await orgDataset()
    await t.ok('package_delete', { id: ds.id }, sys)
    const list = await t.ok('current_package_list_with_resources', {}, sys)
    expect(list.map((d: { id: string }) => d.id)).not.toContain(ds.id)
  })

  it('rejects bad paging values', async () => {
    const r = await t.call('current_package_list_with_resources', { limit: -1, page: 0 })
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({
      limit: ['Must be a natural number'],
      page: ['Must be a postive integer'],
    })
  })
})

describe('package_owner_org_update', () => {
  it('moves a dataset to another organization', async () => {
    const ds = await orgDataset()
    await tick()
    const params = { id: ds.name, organization_id: org2.name }
    const r = await t.call('package_owner_org_update', params, sys)
    expect(r.body).toMatchObject({ success: true, result: null })
    const after = await show(ds.id)
    expect(after.owner_org).toBe(org2.id)
    expect(after.organization.name).toBe(org2.name)
    expect(after.metadata_modified > ds.metadata_modified).toBe(true)
    // the old organization's admin no longer controls it
    expect((await t.call('package_delete', { id: ds.id }, admin)).status).toBe(403)
  })

  it('leaves the dataset unowned when organization_id is empty', async () => {
    const ds = await orgDataset()
    await t.ok('package_owner_org_update', { id: ds.id, organization_id: '' }, sys)
    const after = await show(ds.id)
    expect(after.owner_org).toBeNull()
    expect(after.organization).toBeNull()
  })

  it('answers Not found for an unknown dataset or organization', async () => {
    const ds = await orgDataset()
    const params = { id: uniq('x'), organization_id: org.id }
    const noPkg = await t.call('package_owner_org_update', params, sys)
    expect(noPkg.status).toBe(404)
    expect(noPkg.body.error.message).toBe('Not found: Package was not found.')
    for (const bad of [uniq('x'), group.id]) {
      const r = await t.call('package_owner_org_update', { id: ds.id, organization_id: bad }, sys)
      expect(r.status).toBe(404)
      expect(r.body.error.message).toBe('Not found: Organization was not found.')
    }
    expect((await show(ds.id)).owner_org).toBe(org.id)
  })

  it('refuses everyone but sysadmins', async () => {
    const ds = await orgDataset()
    const params = { id: ds.id, organization_id: org2.id }
    denied(
      (await t.call('package_owner_org_update', params)).body,
      'Access denied: Action package_owner_org_update requires an authenticated user',
    )
    const r = await t.call('package_owner_org_update', params, admin)
    expect(r.status).toBe(403)
    denied(r.body, 'Access denied')
    expect((await show(ds.id)).owner_org).toBe(org.id)
  })
})

describe('package_resource_reorder', () => {
  let ds: { id: string; name: string; metadata_modified: string; resources: { id: string }[] }
  let ids: string[]

  beforeAll(async () => {
    ds = await orgDataset({
      resources: ['a', 'b', 'c', 'd'].map((name) => ({ name, url: `http://example.com/${name}` })),
    })
    ids = ds.resources.map((r) => r.id)
    await tick()
  })

  it('puts the listed resources first and keeps the others in order', async () => {
    const [a, b, c, d] = ids as [string, string, string, string]
    const r = await t.ok('package_resource_reorder', { id: ds.name, order: [d, b] }, editor)
    expect(r).toEqual({ id: ds.name, order: [d, b, a, c] })
    const after = await show(ds.id)
    expect(after.resources.map((x: { id: string }) => x.id)).toEqual([d, b, a, c])
    expect(after.resources.map((x: { position: number }) => x.position)).toEqual([0, 1, 2, 3])
    expect(after.metadata_modified > ds.metadata_modified).toBe(true)
    const acts = await t.db.select().from(activities).where(eq(activities.object_id, ds.id))
    expect(acts.some((x) => x.activity_type === 'changed package')).toBe(true)
  })

  it('reports bad orders with plain string messages', async () => {
    const cases: [unknown, unknown][] = [
      ['x', 'Must be a list of resource'],
      [[ids[0], ids[0]], 'Must supply unique resource_ids'],
      [[ids[1], 'zzz'], 'resource_id zzz can not be found'],
    ]
    for (const [order, message] of cases) {
      const r = await t.call('package_resource_reorder', { id: ds.id, order }, editor)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({ __type: 'Validation Error', order: message })
    }
    const missing = await t.call('package_resource_reorder', { id: ds.id }, editor)
    expect(missing.body.error).toEqual({ __type: 'Validation Error', order: ['Missing value'] })
  })

  it('answers Not found for an unknown dataset', async () => {
    const r = await t.call('package_resource_reorder', { id: uniq('x'), order: [] }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found')
  })

  it('refuses anonymous callers, plain users and org members', async () => {
    const before = (await show(ds.id)).resources.map((x: { id: string }) => x.id)
    const order = [...before].reverse()
    denied(
      (await t.call('package_resource_reorder', { id: ds.id, order })).body,
      'Access denied: Action package_resource_reorder requires an authenticated user',
    )
    for (const who of [stranger, member]) {
      const r = await t.call('package_resource_reorder', { id: ds.id, order }, who)
      expect(r.status).toBe(403)
      denied(r.body, `Access denied: User ${who.name} not authorized to edit package ${ds.id}`)
    }
    expect((await show(ds.id)).resources.map((x: { id: string }) => x.id)).toEqual(before)
  })
})

describe('bulk_update_private / bulk_update_public / bulk_update_delete', () => {
  const state = async (id: string) => {
    const d = await show(id)
    return { private: d.private, state: d.state }
  }

  it('makes org datasets private, then public, leaving other datasets alone', async () => {
    const a = await orgDataset()
    const b = await orgDataset()
    const foreign = await t.make.dataset(sys, { owner_org: org2.id })
    const datasets = [a.id, b.id, foreign.id]
    const r = await t.call('bulk_update_private', { datasets, org_id: org.id }, admin)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect(await state(a.id)).toEqual({ private: true, state: 'active' })
    expect(await state(b.id)).toEqual({ private: true, state: 'active' })
    expect(await state(foreign.id)).toEqual({ private: false, state: 'active' })
    expect(await t.ok('package_list')).not.toContain(a.name)
    await t.ok('bulk_update_public', { datasets, org_id: org.id }, admin)
    expect(await state(a.id)).toEqual({ private: false, state: 'active' })
    expect(await t.ok('package_list')).toContain(a.name)
  })

  it('marks org datasets deleted', async () => {
    const a = await orgDataset()
    const foreign = await t.make.dataset(sys, { owner_org: org2.id })
    await t.ok('bulk_update_delete', { datasets: [a.id, foreign.id], org_id: org.name }, sys)
    expect((await state(a.id)).state).toBe('deleted')
    expect((await state(foreign.id)).state).toBe('active')
  })

  it('validates its parameters', async () => {
    const r = await t.call('bulk_update_private', { datasets: 5 }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      datasets: ['Not a list'],
      org_id: ['Missing value'],
    })
  })

  it('refuses anyone who is not an admin of the organization', async () => {
    const a = await orgDataset()
    for (const action of ['bulk_update_private', 'bulk_update_public', 'bulk_update_delete']) {
      denied(
        (await t.call(action, { datasets: [a.id], org_id: org.id })).body,
        `Access denied: Action ${action} requires an authenticated user`,
      )
      for (const who of [editor, member, stranger]) {
        const r = await t.call(action, { datasets: [a.id], org_id: org.id }, who)
        expect(r.status).toBe(403)
        denied(r.body, 'Access denied')
      }
    }
    expect(await state(a.id)).toEqual({ private: false, state: 'active' })
  })
})
