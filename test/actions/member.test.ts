// member_* actions and the group/organization member shortcuts.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Awaited<ReturnType<TestEnv['make']['sysadmin']>>

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

async function staffed(kind: 'group' | 'organization') {
  const admin = await t.make.user()
  const editor = await t.make.user()
  const member = await t.make.user()
  const users = [
    { name: member.name, capacity: 'member' },
    { name: editor.name, capacity: 'editor' },
  ]
  const g = await t.ok(`${kind}_create`, { name: uniq(kind.slice(0, 3)), users }, admin)
  return { g, admin, editor, member }
}

describe('member_create', () => {
  it('adds a user to an organization and returns the membership', async () => {
    const { g, admin } = await staffed('organization')
    const user = await t.make.user()
    const m = await t.ok(
      'member_create',
      { id: g.name, object: user.name, object_type: 'user', capacity: 'editor' },
      admin,
    )
    expect(m).toMatchObject({
      capacity: 'editor',
      group_id: g.id,
      table_id: user.id,
      table_name: 'user',
      state: 'active',
    })
    expect(Object.keys(m).sort()).toEqual([
      'capacity',
      'group_id',
      'id',
      'state',
      'table_id',
      'table_name',
    ])
    const ds = await t.make.dataset(user, { owner_org: g.id })
    expect(ds.owner_org).toBe(g.id)
  })

  it('updates the capacity of an existing membership', async () => {
    const { g, admin, member } = await staffed('organization')
    const m = await t.ok(
      'member_create',
      { id: g.id, object: member.id, object_type: 'user', capacity: 'admin' },
      admin,
    )
    expect(m.capacity).toBe('admin')
    const list = await t.ok('member_list', { id: g.id, object_type: 'user', capacity: 'admin' })
    expect(list.map((x: any) => x[0]).sort()).toEqual([admin.id, member.id].sort())
  })

  it('lets group members add datasets to the group, but not users', async () => {
    const { g, member } = await staffed('group')
    const ds = await t.make.dataset(sys)
    await t.ok(
      'member_create',
      { id: g.id, object: ds.name, object_type: 'package', capacity: 'public' },
      member,
    )
    expect((await t.ok('package_show', { id: ds.id })).groups.map((x: any) => x.id)).toEqual([g.id])
    const other = await t.make.user()
    const r = await t.call(
      'member_create',
      { id: g.id, object: other.id, object_type: 'user', capacity: 'member' },
      member,
    )
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${member.name} not authorized to edit group ${g.id}`,
    )
  })

  it('refuses organization editors adding users, and outsiders', async () => {
    const { g, editor } = await staffed('organization')
    const other = await t.make.user()
    const params = { id: g.id, object: other.id, object_type: 'user', capacity: 'member' }
    expect((await t.call('member_create', params, editor)).status).toBe(403)
    expect((await t.call('member_create', params, other)).status).toBe(403)
    const anon = await t.call('member_create', params)
    expect(anon.body.error.message).toBe(
      'Access denied: Action member_create requires an authenticated user',
    )
  })

  it('does not let an admin lower their own role', async () => {
    const { g, admin } = await staffed('organization')
    const r = await t.call(
      'member_create',
      { id: g.id, object: admin.name, object_type: 'user', capacity: 'member' },
      admin,
    )
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      'Access denied: Administrators cannot revoke their own admin status',
    )
  })

  it('requires every parameter', async () => {
    const r = await t.call('member_create', { id: 'x' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      object: ['Missing value'],
      object_type: ['Missing value'],
      capacity: ['Missing value'],
    })
  })

  it('answers Not found for unknown groups and objects, and rejects unknown types', async () => {
    const { g, admin } = await staffed('group')
    const unknownGroup = await t.call(
      'member_create',
      { id: 'nope', object: 'x', object_type: 'user', capacity: 'member' },
      admin,
    )
    expect(unknownGroup.status).toBe(404)
    expect(unknownGroup.body.error.message).toBe('Not found: Group was not found.')
    const unknownObj = await t.call(
      'member_create',
      { id: g.id, object: 'nope', object_type: 'package', capacity: 'public' },
      admin,
    )
    expect(unknownObj.body.error.message).toBe('Not found: Package was not found.')
    const badType = await t.call(
      'member_create',
      { id: g.id, object: 'x', object_type: 'rating', capacity: 'x' },
      admin,
    )
    expect(badType.status).toBe(409)
    expect(badType.body.error.message).toBe("Rating isn't a valid model")
  })
})

describe('member_delete', () => {
  it('removes a dataset from a group (any member may)', async () => {
    const { g, member } = await staffed('group')
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const r = await t.call(
      'member_delete',
      { id: g.id, object: ds.id, object_type: 'package' },
      member,
    )
    expect(r.body).toMatchObject({ success: true, result: null })
    expect((await t.ok('package_show', { id: ds.id })).groups).toEqual([])
  })

  it('removes a user (admins only)', async () => {
    const { g, admin, editor } = await staffed('organization')
    const refused = await t.call(
      'member_delete',
      { id: g.id, object: editor.id, object_type: 'user' },
      editor,
    )
    expect(refused.status).toBe(403)
    await t.ok('member_delete', { id: g.id, object: editor.name, object_type: 'user' }, admin)
    const users = await t.ok('member_list', { id: g.id, object_type: 'user' })
    expect(users.map((x: any) => x[0])).not.toContain(editor.id)
    const r = await t.call('package_create', { name: uniq('ds'), owner_org: g.id }, editor)
    expect(r.status).not.toBe(200)
  })

  it('reports missing values and unknown groups', async () => {
    expect((await t.call('member_delete', { id: 'x' }, sys)).body.error).toEqual({
      __type: 'Validation Error',
      object: ['Missing value'],
      object_type: ['Missing value'],
    })
    const r = await t.call(
      'member_delete',
      { id: 'nope', object: sys.id, object_type: 'user' },
      sys,
    )
    expect(r.status).toBe(404)
  })
})

describe('member_list', () => {
  it('lists members as [id, type, capacity] with capitalised roles', async () => {
    const { g, admin, editor, member } = await staffed('organization')
    const ds = await t.make.dataset(admin, { owner_org: g.id })
    const list = await t.ok('member_list', { id: g.name })
    expect(list).toEqual(
      expect.arrayContaining([
        [admin.id, 'user', 'Admin'],
        [editor.id, 'user', 'Editor'],
        [member.id, 'user', 'Member'],
        [ds.id, 'package', 'organization'],
      ]),
    )
    expect(list).toHaveLength(4)
    expect(await t.ok('member_list', { id: g.id, object_type: 'package' })).toEqual([
      [ds.id, 'package', 'organization'],
    ])
    expect(await t.ok('member_list', { id: g.id, capacity: 'editor' })).toEqual([
      [editor.id, 'user', 'Editor'],
    ])
  })

  it('shows group datasets as "public" and leaves deleted datasets out', async () => {
    const { g } = await staffed('group')
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    expect(await t.ok('member_list', { id: g.id, object_type: 'package' })).toEqual([
      [ds.id, 'package', 'public'],
    ])
    await t.ok('package_delete', { id: ds.id }, sys)
    expect(await t.ok('member_list', { id: g.id, object_type: 'package' })).toEqual([])
  })

  it('answers Not found for unknown groups and needs an id', async () => {
    expect((await t.call('member_list', { id: 'nope' })).body.error).toEqual({
      __type: 'Not Found Error',
      message: 'Not found',
    })
    expect((await t.call('member_list', {})).body.error.id).toEqual(['Missing value'])
  })
})

describe('member_roles_list', () => {
  it('lists organization roles, and omits editor for groups', async () => {
    expect(await t.ok('member_roles_list')).toEqual([
      { text: 'Admin', value: 'admin' },
      { text: 'Editor', value: 'editor' },
      { text: 'Member', value: 'member' },
    ])
    expect(await t.ok('member_roles_list', { group_type: 'group' })).toEqual([
      { text: 'Admin', value: 'admin' },
      { text: 'Member', value: 'member' },
    ])
  })
})

describe('organization_member_create', () => {
  it('adds or changes a user role', async () => {
    const { g, admin } = await staffed('organization')
    const user = await t.make.user()
    const m = await t.ok(
      'organization_member_create',
      { id: g.id, username: user.name, role: 'editor' },
      admin,
    )
    expect(m).toMatchObject({
      group_id: g.id,
      table_id: user.id,
      table_name: 'user',
      capacity: 'editor',
    })
    const again = await t.ok(
      'organization_member_create',
      { id: g.name, username: user.id, role: 'member' },
      admin,
    )
    expect(again.id).toBe(m.id)
    expect(again.capacity).toBe('member')
  })

  it('reports schema errors', async () => {
    const r = await t.call(
      'organization_member_create',
      { id: 'nope', username: 'nobody', role: 'boss' },
      sys,
    )
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      id: ['That group name or ID does not exist.'],
      username: ['Not found: User'],
      role: ['role does not exist.'],
    })
    const missing = await t.call(
      'organization_member_create',
      { username: 'x', role: 'member' },
      sys,
    )
    expect(missing.body.error.id).toEqual(['Missing value'])
    const noId = await t.call(
      'organization_member_create',
      { username: 'x', role: 'member' },
      await t.make.user(),
    )
    expect(noId.status).toBe(409)
  })

  it('allows admins only', async () => {
    const { g, editor } = await staffed('organization')
    const r = await t.call(
      'organization_member_create',
      { id: g.id, username: editor.name, role: 'admin' },
      editor,
    )
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${editor.name} not authorized to add members`,
    )
  })

  it('does not let an admin demote themself', async () => {
    const { g, admin } = await staffed('organization')
    const r = await t.call(
      'organization_member_create',
      { id: g.id, username: admin.name, role: 'editor' },
      admin,
    )
    expect(r.body.error.message).toBe(
      'Access denied: Administrators cannot revoke their own admin status',
    )
  })
})

describe('group_member_create', () => {
  it('adds a member to a group, giving them manage rights', async () => {
    const { g, admin } = await staffed('group')
    const user = await t.make.user()
    await t.ok('group_member_create', { id: g.id, username: user.name, role: 'member' }, admin)
    const mine = await t.ok('group_list_authz', {}, user)
    expect(mine.map((x: any) => x.id)).toEqual([g.id])
  })

  it('refuses members and anonymous callers', async () => {
    const { g, member } = await staffed('group')
    expect(
      (
        await t.call(
          'group_member_create',
          { id: g.id, username: member.name, role: 'admin' },
          member,
        )
      ).status,
    ).toBe(403)
    expect(
      (await t.call('group_member_create', { id: g.id, username: member.name, role: 'admin' }))
        .status,
    ).toBe(403)
  })
})

describe('organization_member_delete', () => {
  it('removes a user by username or user_id', async () => {
    const { g, admin, editor, member } = await staffed('organization')
    expect(
      (await t.call('organization_member_delete', { id: g.id, username: editor.name }, admin)).body
        .result,
    ).toBeNull()
    await t.ok('organization_member_delete', { id: g.id, user_id: member.id }, admin)
    expect(await t.ok('member_list', { id: g.id, object_type: 'user' })).toEqual([
      [admin.id, 'user', 'Admin'],
    ])
    expect(await t.ok('organization_list_for_user', {}, editor)).toEqual([])
  })

  it('allows admins only and reports unknown users', async () => {
    const { g, admin, editor } = await staffed('organization')
    const r = await t.call('organization_member_delete', { id: g.id, username: admin.name }, editor)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${editor.name} not authorized to add members`,
    )
    const unknown = await t.call(
      'organization_member_delete',
      { id: g.id, username: 'nobody' },
      admin,
    )
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.message).toBe('Not found: User was not found.')
    const none = await t.call('organization_member_delete', { id: g.id }, admin)
    expect(none.body.error.username).toEqual(['Missing value'])
  })
})

describe('group_member_delete', () => {
  it('removes a user from a group', async () => {
    const { g, admin, member } = await staffed('group')
    await t.ok('group_member_delete', { id: g.id, username: member.name }, admin)
    expect(await t.ok('group_list_authz', {}, member)).toEqual([])
  })

  it('answers Not found for unknown groups (sysadmin) and refuses others', async () => {
    expect(
      (await t.call('group_member_delete', { id: 'nope', username: sys.name }, sys)).status,
    ).toBe(404)
    const user = await t.make.user()
    expect(
      (await t.call('group_member_delete', { id: 'nope', username: sys.name }, user)).status,
    ).toBe(403)
  })
})
