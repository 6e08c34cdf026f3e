// package_collaborator_create/delete/list/list_for_user: results, CKAN's messages and who may call them.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { registry } from '../../src/actions'
import { invoke } from '../../src/actions/invoke'
import { systemContext } from '../../src/context'
import { packageMembers } from '../../src/db/schema'

type Who = Caller & { id: string; name: string }

const ON = { 'service.auth.allow_dataset_collaborators': 'true' }

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

const denied = (r: { status: number; body: any }, message?: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({
    __type: 'Authorization Error',
    message: message ? `Access denied: ${message}` : 'Access denied',
  })
}

const notFound = (r: { status: number; body: any }, message: string) => {
  expect(r.status).toBe(404)
  expect(r.body.error).toEqual({ __type: 'Not Found Error', message: `Not found: ${message}` })
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/

/** A site with an organization, its admin, editor and member, and two outsiders. */
async function site(overrides: Record<string, string>) {
  const t = await setup(overrides)
  const sys = await t.make.sysadmin()
  const admin = await t.make.user()
  const editor = await t.make.user()
  const member = await t.make.user()
  const alice = await t.make.user()
  const bob = await t.make.user()
  const org = await t.make.organization(admin)
  for (const [who, role] of [
    [editor, 'editor'],
    [member, 'member'],
  ] as const)
    await t.ok('organization_member_create', { id: org.id, username: who.name, role }, admin)
  const dataset = (fields: Record<string, unknown> = {}) =>
    t.make.dataset(admin, { owner_org: org.id, private: true, ...fields })
  return { t, sys, admin, editor, member, alice, bob, org, dataset }
}

describe('package_collaborator_create', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site(ON)
  })

  it('adds a collaborator and returns package_id, user_id, capacity and modified', async () => {
    const d = await s.dataset()
    const r = await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    expect(Object.keys(r).sort()).toEqual(['capacity', 'modified', 'package_id', 'user_id'])
    expect(r).toMatchObject({ package_id: d.id, user_id: s.alice.id, capacity: 'editor' })
    expect(r.modified).toMatch(ISO)
  })

  it('takes names, and changes the capacity of an existing collaborator', async () => {
    const d = await s.dataset()
    await s.t.ok('package_collaborator_create', { id: d.name, user_id: s.alice.name, capacity: 'editor' }, s.admin)
    const r = await s.t.ok('package_collaborator_create', { id: d.name, user_id: s.alice.name, capacity: 'member' }, s.sys)
    expect(r).toMatchObject({ package_id: d.id, user_id: s.alice.id, capacity: 'member' })
    const list = await s.t.ok('package_collaborator_list', { id: d.id }, s.admin)
    expect(list.map((c: any) => [c.user_id, c.capacity])).toEqual([[s.alice.id, 'member']])
  })

  it('asks for every missing key at once', async () => {
    for (const who of [s.admin, s.sys, null])
      invalid(await s.t.call('package_collaborator_create', {}, who), {
        id: ['Missing value'],
        user_id: ['Missing value'],
        capacity: ['Missing value'],
      })
    invalid(await s.t.call('package_collaborator_create', { id: 'x', capacity: null }, s.admin), {
      user_id: ['Missing value'],
      capacity: ['Missing value'],
    })
  })

  it('accepts only "editor" and "member" unless admin collaborators are allowed', async () => {
    const d = await s.dataset()
    for (const capacity of ['admin', 'owner', 'Editor', 5])
      for (const who of [s.admin, s.sys, null])
        invalid(
          await s.t.call('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity }, who),
          { message: 'Role must be one of "editor, member"' },
        )
  })

  it('answers Not Found for an unknown dataset or user', async () => {
    const d = await s.dataset()
    for (const who of [s.admin, s.sys])
      notFound(
        await s.t.call('package_collaborator_create', { id: 'nope', user_id: s.alice.id, capacity: 'member' }, who),
        'Dataset not found',
      )
    for (const who of [s.admin, s.sys])
      notFound(
        await s.t.call('package_collaborator_create', { id: d.id, user_id: 'nobody', capacity: 'member' }, who),
        'User not found',
      )
  })

  it('lets only organization admins and sysadmins add collaborators to an owned dataset', async () => {
    const d = await s.dataset()
    const add = (as: Caller | null) =>
      s.t.call('package_collaborator_create', { id: d.id, user_id: s.bob.id, capacity: 'member' }, as)
    denied(await add(null), 'Action package_collaborator_create requires an authenticated user')
    for (const who of [s.editor, s.member, s.alice])
      denied(await add(who), `User ${who.name} not authorized to add collaborators to this dataset`)
    // an editor collaborator does not manage collaborators either
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    denied(await add(s.alice), `User ${s.alice.name} not authorized to add collaborators to this dataset`)
    const other = await s.t.make.user()
    await s.t.make.organization(other)
    denied(await add(other), `User ${other.name} not authorized to add collaborators to this dataset`)
    expect((await add(s.admin)).status).toBe(200)
    expect((await add(s.sys)).status).toBe(200)
  })

  it('lets the creator of an unowned dataset manage its collaborators', async () => {
    const own = await s.t.make.dataset(s.bob)
    const r = await s.t.call('package_collaborator_create', { id: own.id, user_id: s.alice.id, capacity: 'editor' }, s.bob)
    expect(r.status).toBe(200)
    denied(
      await s.t.call('package_collaborator_create', { id: own.id, user_id: s.bob.id, capacity: 'editor' }, s.alice),
      `User ${s.alice.name} not authorized to add collaborators to this dataset`,
    )
  })
})

describe('package_collaborator_delete', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site(ON)
  })

  it('removes a collaborator and returns nothing', async () => {
    const d = await s.dataset()
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    const r = await s.t.call('package_collaborator_delete', { id: d.name, user_id: s.alice.name }, s.admin)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect(await s.t.ok('package_collaborator_list', { id: d.id }, s.admin)).toEqual([])
  })

  it('asks for missing keys, then answers Not Found', async () => {
    const d = await s.dataset()
    for (const who of [s.admin, s.sys, null])
      invalid(await s.t.call('package_collaborator_delete', {}, who), {
        id: ['Missing value'],
        user_id: ['Missing value'],
      })
    for (const who of [s.admin, s.sys])
      notFound(await s.t.call('package_collaborator_delete', { id: 'nope', user_id: s.alice.id }, who), 'Package not found')
    notFound(await s.t.call('package_collaborator_delete', { id: d.id, user_id: 'nobody' }, s.admin), 'User not found')
    notFound(
      await s.t.call('package_collaborator_delete', { id: d.id, user_id: s.bob.name }, s.admin),
      `User ${s.bob.name} is not a collaborator on this package`,
    )
  })

  it('lets only those who manage collaborators remove them', async () => {
    const d = await s.dataset()
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    const del = (as: Caller | null) => s.t.call('package_collaborator_delete', { id: d.id, user_id: s.alice.id }, as)
    denied(await del(null), 'Action package_collaborator_delete requires an authenticated user')
    for (const who of [s.editor, s.member, s.alice, s.bob])
      denied(await del(who), `User ${who.name} not authorized to remove collaborators from this dataset`)
    expect((await del(s.sys)).status).toBe(200)
  })
})

describe('package_collaborator_list', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site(ON)
  })

  it('lists the collaborators in the order they were added, optionally of one capacity', async () => {
    const d = await s.dataset()
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.bob.id, capacity: 'member' }, s.admin)
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    const all = await s.t.ok('package_collaborator_list', { id: d.name }, s.admin)
    expect(all.map((c: any) => [c.package_id, c.user_id, c.capacity])).toEqual([
      [d.id, s.bob.id, 'member'],
      [d.id, s.alice.id, 'editor'],
    ])
    expect(all[0].modified).toMatch(ISO)
    const editors = await s.t.ok('package_collaborator_list', { id: d.id, capacity: 'editor' }, s.sys)
    expect(editors.map((c: any) => c.user_id)).toEqual([s.alice.id])
    // a read action: GET works too
    const got = await s.t.get(`/api/3/action/package_collaborator_list?id=${d.id}&capacity=member`, s.admin)
    expect(got.body.result.map((c: any) => c.user_id)).toEqual([s.bob.id])
  })

  it("answers CKAN's messages for a bad capacity, a missing id and an unknown dataset", async () => {
    const d = await s.dataset()
    invalid(await s.t.call('package_collaborator_list', { id: d.id, capacity: 'admin' }, s.admin), {
      message: 'Capacity must be one of "editor, member"',
    })
    invalid(await s.t.call('package_collaborator_list', {}, s.admin), { id: ['Missing value'] })
    for (const who of [s.admin, s.sys, null])
      notFound(await s.t.call('package_collaborator_list', { id: 'nope' }, who), 'Package not found')
  })

  it('is refused to those who do not manage collaborators', async () => {
    const d = await s.dataset()
    denied(await s.t.call('package_collaborator_list', { id: d.id }, null), 'Action package_collaborator_list requires an authenticated user')
    for (const who of [s.editor, s.member, s.alice])
      denied(
        await s.t.call('package_collaborator_list', { id: d.id }, who),
        `User ${who.name} not authorized to list collaborators from this dataset`,
      )
  })
})

describe('package_collaborator_list_for_user', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site(ON)
  })

  it("lists a user's own collaborations: package_id, capacity and modified", async () => {
    const d1 = await s.dataset()
    const d2 = await s.dataset()
    await s.t.ok('package_collaborator_create', { id: d1.id, user_id: s.alice.id, capacity: 'editor' }, s.admin)
    await s.t.ok('package_collaborator_create', { id: d2.id, user_id: s.alice.id, capacity: 'member' }, s.admin)
    const mine = await s.t.ok('package_collaborator_list_for_user', { id: s.alice.name }, s.alice)
    expect(mine.map((c: any) => Object.keys(c).sort())).toEqual([
      ['capacity', 'modified', 'package_id'],
      ['capacity', 'modified', 'package_id'],
    ])
    expect(mine.map((c: any) => [c.package_id, c.capacity])).toEqual([
      [d1.id, 'editor'],
      [d2.id, 'member'],
    ])
    const members = await s.t.ok('package_collaborator_list_for_user', { id: s.alice.id, capacity: 'member' }, s.sys)
    expect(members.map((c: any) => c.package_id)).toEqual([d2.id])
    expect(await s.t.ok('package_collaborator_list_for_user', { id: s.bob.id }, s.bob)).toEqual([])
  })

  it('is refused for somebody else, without detail', async () => {
    denied(await s.t.call('package_collaborator_list_for_user', { id: s.alice.id }, s.bob))
    denied(await s.t.call('package_collaborator_list_for_user', { id: s.alice.id }, s.admin))
    denied(
      await s.t.call('package_collaborator_list_for_user', { id: s.alice.id }, null),
      'Action package_collaborator_list_for_user requires an authenticated user',
    )
  })

  it("answers CKAN's messages for a missing id, an unknown user and a bad capacity", async () => {
    invalid(await s.t.call('package_collaborator_list_for_user', {}, s.alice), { id: ['Missing value'] })
    denied(await s.t.call('package_collaborator_list_for_user', { id: 'nobody' }, s.sys), 'Not allowed to retrieve collaborators')
    const skipped = { ...systemContext(s.t.deps), ignoreAuth: true }
    await expect(
      invoke(skipped, registry.get('package_collaborator_list_for_user')!, { id: 'nobody' }),
    ).rejects.toMatchObject({ type: 'Authorization Error', message: 'Access denied: Not allowed to retrieve collaborators' })
    invalid(await s.t.call('package_collaborator_list_for_user', { id: s.alice.id, capacity: 'boss' }, s.alice), {
      message: 'Capacity must be one of "editor, member"',
    })
  })
})

describe('the collaborator actions while the feature is off', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site({})
  })

  it('answers "Dataset collaborators not enabled" once the other checks pass', async () => {
    const d = await s.dataset()
    const off = { message: 'Dataset collaborators not enabled' }
    for (const who of [s.admin, s.sys])
      invalid(await s.t.call('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'member' }, who), off)
    // ckan: delete checks the feature before looking the dataset up
    invalid(await s.t.call('package_collaborator_delete', { id: 'nope', user_id: 'nobody' }, s.sys), off)
    invalid(await s.t.call('package_collaborator_delete', { id: d.id, user_id: s.alice.id }, s.admin), off)
    invalid(await s.t.call('package_collaborator_list', { id: d.id }, s.admin), off)
    // ckan: list_for_user checks it before the caller
    for (const who of [s.alice, s.bob, null])
      invalid(await s.t.call('package_collaborator_list_for_user', { id: s.alice.id }, who), off)
    expect(await s.t.db.select().from(packageMembers)).toEqual([])
  })

  it('still checks keys, capacity, the dataset and the caller first', async () => {
    const d = await s.dataset()
    invalid(await s.t.call('package_collaborator_create', { id: d.id }, s.admin), {
      user_id: ['Missing value'],
      capacity: ['Missing value'],
    })
    invalid(await s.t.call('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'x' }, s.admin), {
      message: 'Role must be one of "editor, member"',
    })
    notFound(await s.t.call('package_collaborator_list', { id: 'nope' }, s.admin), 'Package not found')
    denied(
      await s.t.call('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'member' }, s.alice),
      `User ${s.alice.name} not authorized to add collaborators to this dataset`,
    )
  })
})

describe('admin collaborators', () => {
  let s: Awaited<ReturnType<typeof site>>
  beforeAll(async () => {
    s = await site({ ...ON, 'service.auth.allow_admin_collaborators': 'true' })
  })

  it('may be added where allowed, and then manage the collaborators', async () => {
    const d = await s.dataset()
    invalid(await s.t.call('package_collaborator_create', { id: d.id, user_id: s.bob.id, capacity: 'owner' }, s.admin), {
      message: 'Role must be one of "admin, editor, member"',
    })
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.alice.id, capacity: 'admin' }, s.admin)
    await s.t.ok('package_collaborator_create', { id: d.id, user_id: s.bob.id, capacity: 'member' }, s.alice)
    const list = await s.t.ok('package_collaborator_list', { id: d.id, capacity: 'admin' }, s.alice)
    expect(list.map((c: any) => c.user_id)).toEqual([s.alice.id])
    await s.t.ok('package_collaborator_delete', { id: d.id, user_id: s.bob.id }, s.alice)
    // they edit the dataset too
    expect((await s.t.call('package_patch', { id: d.id, notes: 'by the admin collaborator' }, s.alice)).status).toBe(200)
  })
})
