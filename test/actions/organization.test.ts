// organization_* actions: create, show, list, update, patch, delete, purge, list_for_user.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
const tick = () => new Promise((r) => setTimeout(r, 5))
let sys: Awaited<ReturnType<TestEnv['make']['sysadmin']>>

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

/** An organization with an admin, an editor and a member (all plain users). */
async function staffedOrg(env: TestEnv = t, fields: Record<string, unknown> = {}) {
  const admin = await env.make.user()
  const editor = await env.make.user()
  const member = await env.make.user()
  const org = await env.ok(
    'organization_create',
    {
      name: uniq('org'),
      users: [
        { name: editor.name, capacity: 'editor' },
        { name: member.name, capacity: 'member' },
      ],
      ...fields,
    },
    admin,
  )
  return { org, admin, editor, member }
}

const activityTypes = async (id: string) =>
  (
    await t.client.execute({
      sql: 'select activity_type from activity where object_id = ? order by timestamp, rowid',
      args: [id],
    })
  ).rows.map((r) => r.activity_type)

describe('organization_create', () => {
  it('creates an organization with its creator as admin and the listed users', async () => {
    const { org, admin, editor, member } = await staffedOrg()
    expect(org).toMatchObject({
      type: 'organization',
      is_organization: true,
      state: 'active',
      package_count: 0,
    })
    const caps = Object.fromEntries(org.users.map((u: any) => [u.name, u.capacity]))
    expect(caps).toEqual({
      [admin.name]: 'admin',
      [editor.name]: 'editor',
      [member.name]: 'member',
    })
    expect(await activityTypes(org.id)).toEqual(['new organization'])
  })

  it('keeps the creator admin even when the users list says otherwise', async () => {
    const user = await t.make.user()
    const org = await t.ok(
      'organization_create',
      { name: uniq('org'), users: [{ name: user.name, capacity: 'member' }] },
      user,
    )
    expect(org.users).toMatchObject([{ name: user.name, capacity: 'admin' }])
  })

  it('ignores packages: datasets join through owner_org', async () => {
    const ds = await t.make.dataset(sys)
    const org = await t.ok(
      'organization_create',
      { name: uniq('org'), packages: [{ id: ds.id }] },
      sys,
    )
    expect(org.package_count).toBe(0)
    expect((await t.ok('package_show', { id: ds.id })).owner_org).toBeNull()
  })

  it('rejects a taken name and a missing name', async () => {
    const g = await t.make.group(sys)
    expect((await t.call('organization_create', { name: g.name }, sys)).body.error.name).toEqual([
      'Group name already exists in database',
    ])
    expect((await t.call('organization_create', {}, sys)).body.error).toEqual({
      __type: 'Validation Error',
      name: ['Missing value'],
    })
  })

  it('refuses anonymous callers, and users when user_create_organizations is off', async () => {
    const anon = await t.call('organization_create', { name: uniq('org') })
    expect(anon.body.error.message).toBe(
      'Access denied: Action organization_create requires an authenticated user',
    )
    const t2 = await setup({ 'service.auth.user_create_organizations': 'false' })
    const user = await t2.make.user()
    const r = await t2.call('organization_create', { name: uniq('org') }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${user.name} not authorized to create organizations`,
    )
  })
})

describe('organization_show', () => {
  it('includes users by default and leaves them out on request', async () => {
    const { org } = await staffedOrg()
    expect((await t.ok('organization_show', { id: org.name })).users).toHaveLength(3)
    expect(
      await t.ok('organization_show', { id: org.id, include_users: false }),
    ).not.toHaveProperty('users')
  })

  it('leaves users out by default when user details are not public', async () => {
    const env = await setup({ 'service.auth.public_user_details': 'false' })
    const a = await env.make.sysadmin()
    const org = await env.make.organization(a)
    expect(await env.ok('organization_show', { id: org.id })).not.toHaveProperty('users')
    expect(
      (await env.ok('organization_show', { id: org.id, include_users: 'yes' })).users,
    ).toHaveLength(1)
  })

  it('accepts GET with string flags', async () => {
    const { org } = await staffedOrg()
    const r = await t.get(
      `/api/3/action/organization_show?id=${org.name}&include_users=False&include_datasets=True`,
    )
    expect(r.body.result.packages).toEqual([])
    expect(r.body.result).not.toHaveProperty('users')
  })

  it('counts and lists private datasets for members and sysadmins only', async () => {
    const { org, member, admin } = await staffedOrg()
    const pub = await t.make.dataset(admin, { owner_org: org.id })
    await tick() // metadata_modified has millisecond resolution
    const priv = await t.make.dataset(admin, { owner_org: org.id, private: true })
    const outsider = await t.make.user()
    expect((await t.ok('organization_show', { id: org.id })).package_count).toBe(1)
    expect((await t.ok('organization_show', { id: org.id }, outsider)).package_count).toBe(1)
    expect((await t.ok('organization_show', { id: org.id }, member)).package_count).toBe(2)
    expect((await t.ok('organization_show', { id: org.id }, sys)).package_count).toBe(2)
    const withData = await t.ok('organization_show', { id: org.id, include_datasets: true }, member)
    expect(withData.packages.map((p: any) => p.id)).toEqual([priv.id, pub.id])
    const anonData = await t.ok('organization_show', { id: org.id, include_datasets: true })
    expect(anonData.packages.map((p: any) => p.id)).toEqual([pub.id])
  })

  it('answers Not found for groups and unknown ids', async () => {
    const g = await t.make.group(sys)
    expect((await t.call('organization_show', { id: g.id })).status).toBe(404)
    expect((await t.call('organization_show', { id: 'nope' })).body.error.message).toBe('Not found')
  })

  it('shows parent organizations', async () => {
    const parent = await t.make.organization(sys)
    const child = await t.ok(
      'organization_create',
      { name: uniq('org'), groups: [{ name: parent.name, capacity: 'parent' }] },
      sys,
    )
    expect((await t.ok('organization_show', { id: child.id })).groups).toEqual([
      { capacity: 'parent', name: parent.name },
    ])
  })
})

describe('organization_list', () => {
  it('lists organizations, never groups', async () => {
    const env = await setup()
    const a = await env.make.sysadmin()
    await env.ok('organization_create', { name: 'org-b', title: 'A title' }, a)
    await env.ok('organization_create', { name: 'org-a', title: 'B title' }, a)
    await env.ok('group_create', { name: 'grp-a' }, a)
    expect(await env.ok('organization_list')).toEqual(['org-b', 'org-a'])
    expect(await env.ok('organization_list', { organizations: ['org-a'] })).toEqual(['org-a'])
    expect(await env.ok('group_list')).toEqual(['grp-a'])
    await env.make.dataset(a, { owner_org: 'org-a' })
    expect(await env.ok('organization_list', { sort: 'package_count' })).toEqual(['org-a'])
    const dicts = await env.ok('organization_list', { all_fields: true, sort: 'name' })
    expect(dicts.map((o: any) => [o.name, o.package_count])).toEqual([
      ['org-a', 1],
      ['org-b', 0],
    ])
    expect(dicts[0]).not.toHaveProperty('users')
  })
})

describe('organization_update', () => {
  it('lets admins update and ignores packages', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(sys)
    const up = await t.ok(
      'organization_update',
      {
        id: org.id,
        title: 'Renamed',
        packages: [{ id: ds.id }],
        users: [{ name: admin.name, capacity: 'admin' }],
      },
      admin,
    )
    expect(up).toMatchObject({ title: 'Renamed', package_count: 0 })
    expect(up.users.map((u: any) => u.name)).toEqual([admin.name])
    expect(await activityTypes(org.id)).toEqual(['new organization', 'changed organization'])
  })

  it('refuses editors and members', async () => {
    const { org, editor, member } = await staffedOrg()
    for (const who of [editor, member]) {
      const r = await t.call('organization_update', { id: org.id, title: 'x' }, who)
      expect(r.status).toBe(403)
      expect(r.body.error.message).toBe(
        `Access denied: User ${who.name} not authorized to edit organization ${org.id}`,
      )
    }
  })

  it('updates the organization shown in its datasets', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok(
      'organization_update',
      { id: org.id, title: 'Fresh title', users: [{ name: admin.name, capacity: 'admin' }] },
      admin,
    )
    expect((await t.ok('package_show', { id: ds.id })).organization.title).toBe('Fresh title')
  })

  it('answers Not found for unknown ids and for groups', async () => {
    const g = await t.make.group(sys)
    for (const id of ['nope', g.id]) {
      const r = await t.call('organization_update', { id, title: 'x' }, sys)
      expect(r.status).toBe(404)
      expect(r.body.error.message).toBe('Not found: Group was not found.')
    }
  })
})

describe('organization_patch', () => {
  it('keeps members and fields not given', async () => {
    const { org, admin } = await staffedOrg()
    const p = await t.ok('organization_patch', { id: org.id, description: 'new' }, admin)
    expect(p.description).toBe('new')
    expect(p.users).toHaveLength(3)
  })

  it('refuses non-admins', async () => {
    const { org, editor } = await staffedOrg()
    expect(
      (await t.call('organization_patch', { id: org.id, description: 'x' }, editor)).status,
    ).toBe(403)
  })
})

describe('organization_delete', () => {
  it('makes its datasets unowned when unowned datasets are allowed', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    expect((await t.call('organization_delete', { id: org.id }, admin)).body.result).toBeNull()
    const shown = await t.ok('package_show', { id: ds.id })
    expect(shown.owner_org).toBeNull()
    expect(shown.organization).toBeNull()
    expect(await t.ok('organization_list')).not.toContain(org.name)
    expect(await activityTypes(org.id)).toContain('deleted organization')
  })

  it('refuses while datasets remain when unowned datasets are not allowed', async () => {
    const env = await setup({ 'service.auth.create_unowned_dataset': 'false' })
    const a = await env.make.sysadmin()
    const org = await env.make.organization(a)
    const ds = await env.make.dataset(a, { owner_org: org.id })
    const r = await env.call('organization_delete', { id: org.id }, a)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: 'Organization cannot be deleted while it still has datasets',
    })
    await env.ok('package_delete', { id: ds.id }, a)
    expect((await env.call('organization_delete', { id: org.id }, a)).status).toBe(200)
  })

  it('allows admins only', async () => {
    const { org, editor } = await staffedOrg()
    const r = await t.call('organization_delete', { id: org.id }, editor)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${editor.name} not authorized to delete organization ${org.id}`,
    )
    expect((await t.call('organization_delete', { id: org.id })).status).toBe(403)
  })

  it('answers Not found for unknown organizations', async () => {
    const r = await t.call('organization_delete', { id: 'nope' }, sys)
    expect(r.body.error.message).toBe('Not found: Group was not found.')
  })
})

describe('organization_purge', () => {
  it('removes the organization; its datasets remain without organization', async () => {
    const env = await setup({ 'service.auth.create_unowned_dataset': 'false' })
    const a = await env.make.sysadmin()
    const org = await env.make.organization(a)
    const ds = await env.make.dataset(a, { owner_org: org.id })
    expect((await env.call('organization_purge', { id: org.name }, a)).status).toBe(200)
    expect((await env.call('organization_show', { id: org.id }, a)).status).toBe(404)
    expect((await env.ok('package_show', { id: ds.id }, a)).owner_org).toBeNull()
    const left = await env.client.execute({
      sql: 'select count(*) as n from member where group_id = ? or table_id = ?',
      args: [org.id, org.id],
    })
    expect(Number(left.rows[0]!.n)).toBe(0)
  })

  it('is for sysadmins only', async () => {
    const { org, admin } = await staffedOrg()
    expect((await t.call('organization_purge', { id: org.id }, admin)).status).toBe(403)
  })

  it('answers Not found for unknown organizations', async () => {
    const r = await t.call('organization_purge', { id: 'nope' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Organization was not found')
  })
})

describe('organization_list_for_user', () => {
  it('lists the orgs where the caller may manage the group, with capacity', async () => {
    const { org, member } = await staffedOrg()
    const list = await t.ok('organization_list_for_user', {}, member)
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      id: org.id,
      name: org.name,
      capacity: 'member',
      display_name: org.display_name,
    })
    expect(list[0]).not.toHaveProperty('package_count')
  })

  it('filters by permission', async () => {
    const { org, editor, member } = await staffedOrg()
    expect(
      await t.ok('organization_list_for_user', { permission: 'create_dataset' }, member),
    ).toEqual([])
    const ed = await t.ok('organization_list_for_user', { permission: 'create_dataset' }, editor)
    expect(ed.map((o: any) => o.id)).toEqual([org.id])
    expect(await t.ok('organization_list_for_user', { permission: 'admin' }, editor)).toEqual([])
  })

  it('cascades admin roles to child organizations', async () => {
    const { org: parent, admin } = await staffedOrg()
    const child = await t.ok(
      'organization_create',
      { name: uniq('org'), groups: [{ name: parent.name }] },
      sys,
    )
    const list = await t.ok('organization_list_for_user', { permission: 'admin' }, admin)
    expect(list.map((o: any) => [o.id, o.capacity]).sort()).toEqual(
      [
        [parent.id, 'admin'],
        [child.id, 'admin'],
      ].sort(),
    )
  })

  // ckan 2.9: test_get.py TestOrganizationListForUser.test_when_permissions_extend_to_sub_organizations
  it('cascades through parents set with member_create (object is the parent of id)', async () => {
    const user = await t.make.user()
    const users = [{ name: user.name, capacity: 'admin' }]
    const top = await t.make.organization(sys, { users })
    const middle = await t.make.organization(sys, { users })
    const bottom = await t.make.organization(sys)
    await t.make.organization(sys) // not returned
    const made = await t.ok(
      'member_create',
      { id: bottom.id, object: middle.id, object_type: 'group', capacity: 'parent' },
      sys,
    )
    expect(made).toMatchObject({ group_id: bottom.id, table_id: middle.id, table_name: 'group' })
    await t.ok(
      'member_create',
      { id: middle.id, object: top.id, object_type: 'group', capacity: 'parent' },
      sys,
    )
    const list = await t.ok('organization_list_for_user', {}, user)
    expect(list.map((o: any) => o.id).sort()).toEqual([top.id, middle.id, bottom.id].sort())
    expect((await t.ok('organization_show', { id: bottom.id })).groups).toEqual([
      { capacity: 'parent', name: middle.name },
    ])
    expect(await t.ok('member_list', { id: bottom.id, object_type: 'group' })).toEqual([
      [middle.id, 'group', 'parent'],
    ])
    await t.ok('member_delete', { id: bottom.id, object: middle.id, object_type: 'group' }, sys)
    const after = await t.ok('organization_list_for_user', {}, user)
    expect(after.map((o: any) => o.id).sort()).toEqual([top.id, middle.id].sort())
  })

  it('looks up another user by id and counts datasets on request', async () => {
    const { org, editor, admin } = await staffedOrg()
    await t.make.dataset(admin, { owner_org: org.id })
    const list = await t.ok(
      'organization_list_for_user',
      { id: editor.name, include_dataset_count: true },
      sys,
    )
    expect(list).toMatchObject([{ id: org.id, capacity: 'editor', package_count: 1 }])
    expect((await t.call('organization_list_for_user', { id: 'no-such-user' })).status).toBe(404)
  })

  it('gives sysadmins every organization as admin and anonymous callers nothing', async () => {
    const all = await t.ok('organization_list_for_user', {}, sys)
    expect(all.length).toBe((await t.ok('organization_list')).length)
    expect(all.every((o: any) => o.capacity === 'admin')).toBe(true)
    expect(await t.ok('organization_list_for_user')).toEqual([])
  })
})
