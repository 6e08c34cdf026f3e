// group_* actions: create, show, list, update, patch, delete, purge, list_authz, package_show.
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

describe('group_create', () => {
  it('creates a group and makes the creator its admin', async () => {
    const user = await t.make.user()
    const name = uniq('grp')
    const g = await t.ok(
      'group_create',
      { name, title: 'Climate', description: 'About climate' },
      user,
    )
    expect(g).toMatchObject({
      name,
      title: 'Climate',
      description: 'About climate',
      display_name: 'Climate',
      type: 'group',
      is_organization: false,
      state: 'active',
      approval_status: 'approved',
      image_url: '',
      image_display_url: '',
      package_count: 0,
      num_followers: 0,
      extras: [],
      groups: [],
      tags: [],
    })
    expect(g.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(g.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/)
    expect(g.users).toHaveLength(1)
    expect(g.users[0]).toMatchObject({ name: user.name, capacity: 'admin', sysadmin: false })
    expect(g.users[0]).not.toHaveProperty('email')
    expect(g.users[0]).not.toHaveProperty('apikey')
  })

  it('stores extras sorted by key with all five keys', async () => {
    const g = await t.ok(
      'group_create',
      {
        name: uniq('grp'),
        extras: [
          { key: 'zeta', value: 'z' },
          { key: 'alpha', value: 'a' },
        ],
      },
      sys,
    )
    expect(g.extras.map((e: any) => e.key)).toEqual(['alpha', 'zeta'])
    expect(Object.keys(g.extras[0]).sort()).toEqual(['group_id', 'id', 'key', 'state', 'value'])
    expect(g.extras[0]).toMatchObject({ group_id: g.id, state: 'active', value: 'a' })
  })

  it('adds listed users with their capacities (default "public")', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const g = await t.ok(
      'group_create',
      { name: uniq('grp'), users: [{ name: a.name, capacity: 'member' }, { name: b.id }] },
      sys,
    )
    const caps = Object.fromEntries(g.users.map((u: any) => [u.name, u.capacity]))
    expect(caps).toEqual({ [a.name]: 'member', [b.name]: 'public', [sys.name]: 'admin' })
  })

  it('adds datasets given by id or name', async () => {
    const d1 = await t.make.dataset(sys)
    const d2 = await t.make.dataset(sys)
    const g = await t.ok(
      'group_create',
      { name: uniq('grp'), packages: [{ id: d1.id }, { name: d2.name }] },
      sys,
    )
    expect(g.package_count).toBe(2)
    const shown = await t.ok('package_show', { id: d1.id })
    expect(shown.groups.map((x: any) => x.name)).toEqual([g.name])
  })

  it('makes the group a child of the groups listed in groups', async () => {
    const parent = await t.make.group(sys)
    const child = await t.ok(
      'group_create',
      { name: uniq('grp'), groups: [{ name: parent.name }] },
      sys,
    )
    expect(child.groups).toEqual([{ capacity: 'parent', name: parent.name }])
    // ckan: a group's group members are its parents (the row names the child in group_id)
    expect(await t.ok('member_list', { id: parent.id, object_type: 'group' })).toEqual([])
    const members = await t.ok('member_list', { id: child.id, object_type: 'group' })
    expect(members).toEqual([[parent.id, 'group', 'parent']])
  })

  it('honours state only for sysadmins', async () => {
    const user = await t.make.user()
    const g1 = await t.ok('group_create', { name: uniq('grp'), state: 'deleted' }, user)
    expect(g1.state).toBe('active')
    const g2 = await t.ok('group_create', { name: uniq('grp'), state: 'deleted' }, sys)
    expect(g2.state).toBe('deleted')
  })

  it('rejects a missing or badly formed name', async () => {
    const r1 = await t.call('group_create', { title: 'x' }, sys)
    expect(r1.status).toBe(409)
    expect(r1.body.error).toEqual({ __type: 'Validation Error', name: ['Missing value'] })
    const r2 = await t.call('group_create', { name: 'Bad Name' }, sys)
    expect(r2.body.error.name).toEqual([
      'Must be purely lowercase alphanumeric (ascii) characters and these symbols: -_',
    ])
    const r3 = await t.call('group_create', { name: 'x' }, sys)
    expect(r3.body.error.name).toEqual(['Must be at least 2 characters long'])
  })

  it('rejects a name already used by a group or organization', async () => {
    const org = await t.make.organization(sys)
    const r = await t.call('group_create', { name: org.name }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.name).toEqual(['Group name already exists in database'])
  })

  it('reports bad list items in parallel lists', async () => {
    const r = await t.call(
      'group_create',
      {
        name: uniq('grp'),
        extras: [{ key: 'a', value: '1' }, { value: '2' }],
        packages: [{ title: 'x' }],
      },
      sys,
    )
    expect(r.status).toBe(409)
    expect(r.body.error.extras).toEqual([{}, { key: ['Missing value'] }])
    expect(r.body.error.packages).toEqual([{ id: ['Missing value'] }])
  })

  it('reports unknown datasets', async () => {
    const r = await t.call(
      'group_create',
      { name: uniq('grp'), packages: [{ id: 'no-such-dataset' }] },
      sys,
    )
    expect(r.body.error.packages).toEqual([{ id: ['Not found: Dataset'] }])
  })

  it('answers an Integrity Error when a list holds non-objects', async () => {
    const r = await t.call('group_create', { name: uniq('grp'), users: ['joe'] }, sys)
    expect(r.status).toBe(400)
    expect(r.body.error.__type).toBe('Integrity Error')
    expect(r.body.error.message).toBe(
      "Only lists of dicts can be placed against subschema ('users',), not <class 'list'>",
    )
  })

  it('refuses the organization type', async () => {
    const r = await t.call('group_create', { name: uniq('grp'), type: 'organization' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.type).toBeDefined()
  })

  it('refuses anonymous callers', async () => {
    const r = await t.call('group_create', { name: uniq('grp') })
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      'Access denied: Action group_create requires an authenticated user',
    )
  })

  it('refuses users when user_create_groups is off', async () => {
    const t2 = await setup({ 'service.auth.user_create_groups': 'false' })
    const admin = await t2.make.sysadmin()
    const user = await t2.make.user()
    const r = await t2.call('group_create', { name: uniq('grp') }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${user.name} not authorized to create groups`,
    )
    expect((await t2.call('group_create', { name: uniq('grp') }, admin)).status).toBe(200)
  })

  it('records a "new group" activity', async () => {
    const g = await t.make.group(sys)
    const rows = await t.client.execute({
      sql: 'select activity_type, data from activity where object_id = ?',
      args: [g.id],
    })
    expect(rows.rows.map((r) => r.activity_type)).toEqual(['new group'])
    expect(JSON.parse(String(rows.rows[0]!.data)).group).toMatchObject({ id: g.id, name: g.name })
  })
})

describe('group_show', () => {
  it('returns the group without users by default', async () => {
    const g = await t.make.group(sys)
    const shown = await t.ok('group_show', { id: g.name })
    expect(shown.id).toBe(g.id)
    expect(shown).not.toHaveProperty('users')
    expect(shown).not.toHaveProperty('packages')
    expect(shown.package_count).toBe(0)
  })

  it('includes users, datasets and leaves parts out on request', async () => {
    const g = await t.make.group(sys)
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const shown = await t.ok('group_show', {
      id: g.id,
      include_users: true,
      include_datasets: true,
      include_extras: false,
      include_groups: 'false',
      include_tags: 0,
    })
    expect(shown.users.map((u: any) => u.name)).toEqual([sys.name])
    expect(shown.packages.map((p: any) => p.id)).toEqual([ds.id])
    expect(shown.package_count).toBe(1)
    expect(shown).not.toHaveProperty('extras')
    expect(shown).not.toHaveProperty('groups')
    expect(shown).not.toHaveProperty('tags')
  })

  it('leaves package_count out when both dataset flags are false', async () => {
    const g = await t.make.group(sys)
    const shown = await t.ok('group_show', { id: g.id, include_dataset_count: false })
    expect(shown).not.toHaveProperty('package_count')
  })

  it('counts only active public datasets', async () => {
    const org = await t.make.organization(sys)
    const g = await t.make.group(sys)
    await t.make.dataset(sys, { groups: [{ id: g.id }] })
    await t.make.dataset(sys, { owner_org: org.id, private: true, groups: [{ id: g.id }] })
    const gone = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    await t.ok('package_delete', { id: gone.id }, sys)
    expect((await t.ok('group_show', { id: g.id }, sys)).package_count).toBe(1)
  })

  it('rejects non-boolean flags', async () => {
    const g = await t.make.group(sys)
    const r = await t.call('group_show', { id: g.id, include_users: 'maybe' })
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: 'Parameter is not an bool',
    })
  })

  it('requires an id', async () => {
    const r = await t.call('group_show', {})
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual(['Missing value'])
  })

  it('answers Not found for unknown groups and for organizations', async () => {
    const org = await t.make.organization(sys)
    for (const id of ['no-such-group', org.id]) {
      const r = await t.call('group_show', { id })
      expect(r.status).toBe(404)
      expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    }
  })

  it('shows deleted groups to sysadmins only', async () => {
    const user = await t.make.user()
    const g = await t.make.group(user)
    await t.ok('group_delete', { id: g.id }, user)
    const anon = await t.call('group_show', { id: g.id })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      `Access denied: User  not authorized to read group ${g.id}`,
    )
    expect((await t.call('group_show', { id: g.id }, user)).status).toBe(403)
    expect((await t.ok('group_show', { id: g.id }, sys)).state).toBe('deleted')
  })

  it('counts followers', async () => {
    const g = await t.make.group(sys)
    await t.client.execute({
      sql: "insert into follower (follower_id, object_id, object_type, datetime) values (?, ?, 'group', '2020-01-01T00:00:00')",
      args: [sys.id, g.id],
    })
    expect((await t.ok('group_show', { id: g.id })).num_followers).toBe(1)
    expect((await t.ok('group_show', { id: g.id, include_followers: false })).num_followers).toBe(0)
  })
})

describe('group_list', () => {
  let env: TestEnv
  let admin: Awaited<ReturnType<TestEnv['make']['sysadmin']>>
  beforeAll(async () => {
    env = await setup()
    admin = await env.make.sysadmin()
    await env.ok(
      'group_create',
      { name: 'bravo', title: 'alpha title', description: 'has wombats' },
      admin,
    )
    await env.ok('group_create', { name: 'alpha', title: 'Charlie title' }, admin)
    await env.ok('group_create', { name: 'charlie', title: 'Bravo title' }, admin)
    await env.ok('organization_create', { name: 'org-one' }, admin)
    const gone = await env.ok('group_create', { name: 'deleted-one', title: 'Aardvark' }, admin)
    await env.ok('group_delete', { id: gone.id }, admin)
    const d1 = await env.make.dataset(admin, { groups: [{ name: 'charlie' }, { name: 'alpha' }] })
    await env.make.dataset(admin, { groups: [{ name: 'charlie' }] })
    expect(d1.groups).toHaveLength(2)
  })

  it('lists active group names sorted by title', async () => {
    expect(await env.ok('group_list')).toEqual(['bravo', 'charlie', 'alpha'])
  })

  it('sorts by name in either direction', async () => {
    expect(await env.ok('group_list', { sort: 'name' })).toEqual(['alpha', 'bravo', 'charlie'])
    expect(await env.ok('group_list', { sort: 'name desc' })).toEqual(['charlie', 'bravo', 'alpha'])
    expect(await env.ok('group_list', { order_by: 'name' })).toEqual(['alpha', 'bravo', 'charlie'])
  })

  it('sorts by package_count descending, leaving out groups without datasets', async () => {
    expect(await env.ok('group_list', { sort: 'package_count' })).toEqual(['charlie', 'alpha'])
    expect(await env.ok('group_list', { order_by: 'packages' })).toEqual(['charlie', 'alpha'])
    expect(await env.ok('group_list', { sort: 'package_count asc' })).toEqual(['alpha', 'charlie'])
  })

  it('filters by q, names, and pages with limit and offset', async () => {
    expect(await env.ok('group_list', { q: 'WOMBAT' })).toEqual(['bravo'])
    expect(await env.ok('group_list', { groups: ['alpha', 'charlie'], sort: 'name' })).toEqual([
      'alpha',
      'charlie',
    ])
    expect(await env.ok('group_list', { sort: 'name', limit: 1, offset: 1 })).toEqual(['bravo'])
  })

  it('returns show dicts without users, extras, tags or groups with all_fields', async () => {
    const all = await env.ok('group_list', { all_fields: true, sort: 'name' })
    expect(all.map((g: any) => g.name)).toEqual(['alpha', 'bravo', 'charlie'])
    expect(all[2]).toMatchObject({ name: 'charlie', package_count: 2, num_followers: 0 })
    for (const k of ['users', 'extras', 'tags', 'groups']) expect(all[0]).not.toHaveProperty(k)
    const withExtras = await env.ok('group_list', {
      all_fields: true,
      include_extras: true,
      limit: 1,
    })
    expect(withExtras[0].extras).toEqual([])
  })

  it('caps all_fields at the configured maximum', async () => {
    const e = await setup({ 'service.group_and_organization_list_all_fields_max': '2' })
    const a = await e.make.sysadmin()
    for (let i = 0; i < 3; i++) await e.make.group(a)
    expect(await e.ok('group_list', { all_fields: true, limit: 10 })).toHaveLength(2)
    expect(await e.ok('group_list')).toHaveLength(3)
  })

  it('rejects bad sort and paging values', async () => {
    const bad = async (params: object) => (await env.call('group_list', params)).body.error
    expect(await bad({ sort: 'id' })).toEqual({
      __type: 'Validation Error',
      message: 'Cannot sort by field `id`',
    })
    expect((await bad({ sort: 'name up' })).message).toBe('Invalid sort direction `up`')
    expect((await bad({ sort: 'name, title' })).message).toBe(
      'Too many sort criteria provided only 1 allowed',
    )
    expect((await bad({ limit: -1 })).limit).toEqual(['Must be a natural number'])
    expect((await bad({ offset: 'x' })).offset).toEqual(['Invalid integer'])
  })

  it('accepts GET with query parameters', async () => {
    const r = await env.get('/api/3/action/group_list?sort=name&limit=2')
    expect(r.body.result).toEqual(['alpha', 'bravo'])
  })
})

describe('group_update', () => {
  it('replaces fields and members; omitted users are removed', async () => {
    const user = await t.make.user()
    const other = await t.make.user()
    const g = await t.ok(
      'group_create',
      { name: uniq('grp'), title: 'Old', users: [{ name: other.name, capacity: 'member' }] },
      user,
    )
    const up = await t.ok('group_update', { id: g.id, title: 'New', description: 'd' }, user)
    expect(up).toMatchObject({ id: g.id, name: g.name, title: 'New', description: 'd', users: [] })
    expect(up).not.toHaveProperty('num_followers')
    expect(up.packages).toEqual([])
    expect(await t.ok('member_list', { id: g.id, object_type: 'user' })).toEqual([])
  })

  it('keeps extras unless a non-empty list is given, then replaces them', async () => {
    const g = await t.ok(
      'group_create',
      {
        name: uniq('grp'),
        extras: [
          { key: 'a', value: '1' },
          { key: 'b', value: '2' },
        ],
      },
      sys,
    )
    const kept = await t.ok('group_update', { id: g.id, extras: [] }, sys)
    expect(kept.extras.map((e: any) => e.key)).toEqual(['a', 'b'])
    const replaced = await t.ok(
      'group_update',
      {
        id: g.id,
        extras: [
          { key: 'b', value: '3' },
          { key: 'c', value: '4' },
        ],
      },
      sys,
    )
    expect(replaced.extras.map((e: any) => [e.key, e.value])).toEqual([
      ['b', '3'],
      ['c', '4'],
    ])
    const removed = await t.ok(
      'group_update',
      {
        id: g.id,
        extras: [
          { key: 'b', value: '', deleted: true },
          { key: 'c', value: '4' },
        ],
      },
      sys,
    )
    expect(removed.extras.map((e: any) => e.key)).toEqual(['c'])
  })

  it('replaces datasets only when packages is given', async () => {
    const d1 = await t.make.dataset(sys)
    const d2 = await t.make.dataset(sys)
    const g = await t.ok('group_create', { name: uniq('grp'), packages: [{ id: d1.id }] }, sys)
    const same = await t.ok(
      'group_update',
      { id: g.id, users: [{ name: sys.name, capacity: 'admin' }] },
      sys,
    )
    expect(same.packages.map((p: any) => p.id)).toEqual([d1.id])
    const swapped = await t.ok('group_update', { id: g.id, packages: [{ id: d2.name }] }, sys)
    expect(swapped.packages.map((p: any) => p.id)).toEqual([d2.id])
    expect((await t.ok('package_show', { id: d1.id })).groups).toEqual([])
    expect((await t.ok('package_show', { id: d2.id })).groups.map((x: any) => x.id)).toEqual([g.id])
  })

  it('shows a renamed group in its datasets', async () => {
    const g = await t.make.group(sys)
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const name = uniq('renamed')
    await t.ok('group_update', { id: g.id, name, title: 'Renamed', packages: [{ id: ds.id }] }, sys)
    const shown = await t.ok('package_show', { id: ds.id })
    expect(shown.groups[0]).toMatchObject({ name, title: 'Renamed', display_name: 'Renamed' })
  })

  it('rejects parents that would create a loop', async () => {
    const a = await t.make.group(sys)
    const b = await t.ok('group_create', { name: uniq('grp'), groups: [{ name: a.name }] }, sys)
    const c = await t.ok('group_create', { name: uniq('grp'), groups: [{ name: b.name }] }, sys)
    const loop = await t.call('group_update', { id: a.id, groups: [{ name: c.name }] }, sys)
    expect(loop.status).toBe(409)
    expect(loop.body.error.groups).toEqual([
      { name: ['This parent would create a loop in the hierarchy'] },
    ])
    const self = await t.call('group_update', { id: a.id, groups: [{ name: a.name }] }, sys)
    expect(self.body.error.groups).toEqual([
      { name: ['This parent would create a loop in the hierarchy'] },
    ])
    const up = await t.ok('group_update', { id: c.id, groups: [{ name: a.name }] }, sys)
    expect(up.groups).toMatchObject([{ name: a.name, capacity: 'parent', id: a.id }])
  })

  it('rejects a name taken by another group', async () => {
    const a = await t.make.group(sys)
    const b = await t.make.group(sys)
    const r = await t.call('group_update', { id: b.id, name: a.name }, sys)
    expect(r.body.error.name).toEqual(['Group name already exists in database'])
  })

  it('answers Not found for unknown groups', async () => {
    const r = await t.call('group_update', { id: 'nope', name: 'whatever' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Group was not found.')
  })

  it('allows admins only', async () => {
    const admin = await t.make.user()
    const member = await t.make.user()
    const g = await t.ok(
      'group_create',
      { name: uniq('grp'), users: [{ name: member.name, capacity: 'member' }] },
      admin,
    )
    const r = await t.call('group_update', { id: g.id, title: 'x' }, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${member.name} not authorized to edit group ${g.id}`,
    )
    expect((await t.call('group_update', { id: g.id, title: 'x' })).body.error.message).toBe(
      'Access denied: Action group_update requires an authenticated user',
    )
    expect(
      (
        await t.call(
          'group_update',
          { id: g.id, title: 'x', users: [{ name: admin.name, capacity: 'admin' }] },
          admin,
        )
      ).status,
    ).toBe(200)
  })

  it('records a "changed group" activity, or "deleted group" when the state becomes deleted', async () => {
    const g = await t.make.group(sys)
    await t.ok('group_update', { id: g.id, title: 'Changed' }, sys)
    await t.ok('group_update', { id: g.id, state: 'deleted' }, sys)
    const rows = await t.client.execute({
      sql: 'select activity_type from activity where object_id = ? order by timestamp, rowid',
      args: [g.id],
    })
    expect(rows.rows.map((r) => r.activity_type)).toEqual([
      'new group',
      'changed group',
      'deleted group',
    ])
  })
})

describe('group_patch', () => {
  it('changes only the given fields and keeps members, parents and datasets', async () => {
    const member = await t.make.user()
    const parent = await t.make.group(sys)
    const ds = await t.make.dataset(sys)
    const g = await t.ok(
      'group_create',
      {
        name: uniq('grp'),
        title: 'T',
        description: 'D',
        users: [{ name: member.name, capacity: 'member' }],
        groups: [{ name: parent.name }],
        packages: [{ id: ds.id }],
        extras: [{ key: 'k', value: 'v' }],
      },
      sys,
    )
    const p = await t.ok('group_patch', { id: g.name, title: 'T2' }, sys)
    expect(p).toMatchObject({ title: 'T2', description: 'D', package_count: 1 })
    expect(p.users.map((u: any) => u.name).sort()).toEqual([member.name, sys.name].sort())
    expect(p.groups.map((x: any) => x.name)).toEqual([parent.name])
    expect(p.extras.map((e: any) => e.key)).toEqual(['k'])
  })

  it('refuses non-admins and answers Not found for unknown groups', async () => {
    const user = await t.make.user()
    const g = await t.make.group(sys)
    expect((await t.call('group_patch', { id: g.id, title: 'x' }, user)).status).toBe(403)
    expect((await t.call('group_patch', { id: 'nope' }, sys)).status).toBe(404)
  })
})

describe('group_delete', () => {
  it('marks the group deleted, hides it from lists and ends its memberships', async () => {
    const admin = await t.make.user()
    const g = await t.make.group(admin)
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const del = await t.call('group_delete', { id: g.name }, admin)
    expect(del.body).toMatchObject({ success: true, result: null })
    expect(await t.ok('group_list')).not.toContain(g.name)
    expect((await t.ok('package_show', { id: ds.id })).groups).toEqual([])
    expect(await t.ok('member_list', { id: g.id }, sys)).toEqual([])
    const rows = await t.client.execute({
      sql: "select count(*) as n from activity where object_id = ? and activity_type = 'deleted group'",
      args: [g.id],
    })
    expect(Number(rows.rows[0]!.n)).toBe(1)
  })

  it('refuses members and, with user_delete_groups off, admins', async () => {
    const admin = await t.make.user()
    const member = await t.make.user()
    const g = await t.ok(
      'group_create',
      { name: uniq('grp'), users: [{ name: member.name, capacity: 'member' }] },
      admin,
    )
    const r = await t.call('group_delete', { id: g.id }, member)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${member.name} not authorized to delete group ${g.id}`,
    )

    const t2 = await setup({ 'service.auth.user_delete_groups': 'false' })
    const u = await t2.make.user()
    const g2 = await t2.make.group(u)
    const r2 = await t2.call('group_delete', { id: g2.id }, u)
    expect(r2.body.error.message).toBe(
      `Access denied: User ${u.name} not authorized to delete groups`,
    )
  })

  it('answers Not found for unknown groups', async () => {
    const r = await t.call('group_delete', { id: 'nope' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Group was not found.')
  })
})

describe('group_purge', () => {
  it('removes the group for good; its datasets remain', async () => {
    const g = await t.make.group(sys)
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    expect((await t.call('group_purge', { id: g.id }, sys)).body.result).toBeNull()
    expect((await t.call('group_show', { id: g.id }, sys)).status).toBe(404)
    const shown = await t.ok('package_show', { id: ds.id })
    expect(shown.groups).toEqual([])
    const rows = await t.client.execute({
      sql: 'select count(*) as n from member where group_id = ?',
      args: [g.id],
    })
    expect(Number(rows.rows[0]!.n)).toBe(0)
  })

  it('is for sysadmins only, even group admins are refused', async () => {
    const admin = await t.make.user()
    const g = await t.make.group(admin)
    const r = await t.call('group_purge', { id: g.id }, admin)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
  })

  it('answers Not found for unknown groups', async () => {
    const r = await t.call('group_purge', { id: 'nope' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Group was not found')
  })
})

describe('group_list_authz', () => {
  it('lists the groups where the caller has any role', async () => {
    const user = await t.make.user()
    const mine = await t.make.group(user)
    const member = await t.ok(
      'group_create',
      { name: uniq('grp'), users: [{ name: user.name, capacity: 'member' }] },
      sys,
    )
    await t.make.group(sys)
    const list = await t.ok('group_list_authz', {}, user)
    expect(list.map((g: any) => g.id).sort()).toEqual([mine.id, member.id].sort())
    expect(list[0]).toHaveProperty('package_count')
    expect(list[0]).toHaveProperty('display_name')
  })

  it('gives sysadmins every group unless am_member', async () => {
    const all = await t.ok('group_list_authz', {}, sys)
    const names = await t.ok('group_list', { limit: 1000 })
    expect(all.length).toBe(names.length)
    const own = await t.ok('group_list_authz', { am_member: true }, sys)
    expect(own.length).toBeLessThan(all.length)
  })

  it('returns nothing to anonymous callers', async () => {
    expect(await t.ok('group_list_authz')).toEqual([])
  })
})

describe('group_package_show', () => {
  it('returns the group datasets newest first, up to limit', async () => {
    const g = await t.make.group(sys)
    const a = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    await tick() // metadata_modified has millisecond resolution
    const b = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const list = await t.ok('group_package_show', { id: g.name })
    expect(list.map((d: any) => d.id)).toEqual([b.id, a.id])
    expect(
      (await t.ok('group_package_show', { id: g.id, limit: 1 })).map((d: any) => d.id),
    ).toEqual([b.id])
  })

  it('includes private organization datasets for members only', async () => {
    const member = await t.make.user()
    const org = await t.ok(
      'organization_create',
      { name: uniq('org'), users: [{ name: member.name, capacity: 'member' }] },
      sys,
    )
    const priv = await t.make.dataset(sys, { owner_org: org.id, private: true })
    expect(await t.ok('group_package_show', { id: org.id })).toEqual([])
    expect(
      (await t.ok('group_package_show', { id: org.id }, member)).map((d: any) => d.id),
    ).toEqual([priv.id])
  })

  it('rejects a bad limit and unknown groups', async () => {
    const g = await t.make.group(sys)
    const r = await t.call('group_package_show', { id: g.id, limit: -1 })
    expect(r.status).toBe(409)
    expect(r.body.error.message).toBe('Limit must be a positive integer')
    expect((await t.call('group_package_show', { id: 'nope' })).status).toBe(404)
  })

  it('refuses to show a deleted group to anonymous callers', async () => {
    const g = await t.make.group(sys)
    await t.ok('group_delete', { id: g.id }, sys)
    expect((await t.call('group_package_show', { id: g.id })).status).toBe(403)
  })
})
