// Activity stream lists: user, package, group, organization and recently changed, and what records them.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Awaited<ReturnType<TestEnv['make']['sysadmin']>>

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

/** An organization with an admin and a member (plain users). */
async function staffedOrg(env: TestEnv = t) {
  const admin = await env.make.user()
  const member = await env.make.user()
  const org = await env.ok(
    'organization_create',
    { name: uniq('org'), users: [{ name: member.name, capacity: 'member' }] },
    admin,
  )
  return { org, admin, member }
}

const types = (list: { activity_type: string }[]) => list.map((a) => a.activity_type)

/** Every stored activity type about an object, oldest first. */
async function storedTypes(objectId: string) {
  const rs = await t.client.execute({
    sql: 'SELECT activity_type FROM activity WHERE object_id = ? ORDER BY timestamp, rowid',
    args: [objectId],
  })
  return rs.rows.map((r) => r.activity_type)
}

describe('stored activity data', () => {
  it('is deflated when long, read back whole, and rows stored as text before still read', async () => {
    const ds = await t.make.dataset(sys, { notes: 'Water quality of rivers. '.repeat(200), tags: [{ name: 'water' }] })
    const [act] = await t.ok('package_activity_list', { id: ds.id })
    const rs = await t.client.execute({
      sql: 'SELECT typeof(data) AS type, length(data) AS bytes FROM activity WHERE id = ?',
      args: [act.id],
    })
    expect(rs.rows[0]!.type).toBe('blob')
    const data = await t.ok('activity_data_show', { id: act.id }, sys)
    expect(Number(rs.rows[0]!.bytes)).toBeLessThan(JSON.stringify(data).length / 4)
    expect(data.package).toEqual(await t.ok('package_show', { id: ds.id }, sys))
    // a row as stored before: JSON text
    await t.client.execute({
      sql: 'UPDATE activity SET data = ? WHERE id = ?',
      args: [JSON.stringify({ package: { ...data.package, title: 'As text' } }), act.id],
    })
    expect((await t.ok('activity_data_show', { id: act.id }, sys)).package.title).toBe('As text')
    // short data stays text
    const other = await t.make.user()
    const [short] = await t.ok('user_activity_list', { id: other.id })
    const st = await t.client.execute({ sql: 'SELECT typeof(data) AS type FROM activity WHERE id = ?', args: [short.id] })
    expect(st.rows[0]!.type).toBe('text')
  })
})

describe('activity dicts', () => {
  it('gives id, timestamp, user_id, object_id, revision_id, activity_type and title-only data', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id, title: 'Rivers' })
    const [act] = await t.ok('package_activity_list', { id: ds.id })
    expect(Object.keys(act).sort()).toEqual(
      ['activity_type', 'data', 'id', 'object_id', 'revision_id', 'timestamp', 'user_id'].sort(),
    )
    expect(act).toMatchObject({
      user_id: admin.id,
      object_id: ds.id,
      revision_id: null,
      activity_type: 'new package',
      data: { package: { title: 'Rivers' } },
    })
    // ckan: without include_data the actor and the rest of the dataset are dropped
    expect(act.data).toEqual({ package: { title: 'Rivers' } })
    expect(act.timestamp).toMatch(TIMESTAMP)
    expect(act.id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('reduces group data to the title and gives user activities an empty dict', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u, { title: 'Lakes' })
    const [groupAct] = await t.ok('group_activity_list', { id: g.id })
    expect(groupAct.data).toEqual({ group: { title: 'Lakes' } })
    const [userAct] = await t
      .ok('user_activity_list', { id: u.id, limit: 100 })
      .then((l) => l.filter((a: any) => a.object_id === u.id))
    expect(userAct).toMatchObject({ activity_type: 'new user', user_id: u.id, data: {} })
  })
})

describe('recording activities', () => {
  it('records new/changed/deleted package for public datasets, once deleted', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('package_update', { ...ds, title: 'Renamed' }, admin)
    await t.ok('package_patch', { id: ds.id, notes: 'more' }, admin)
    await t.ok('package_delete', { id: ds.id }, admin)
    await t.ok('package_delete', { id: ds.id }, sys)
    expect(await storedTypes(ds.id)).toEqual([
      'new package',
      'changed package',
      'changed package',
      'deleted package',
    ])
  })

  it('records nothing for private datasets', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id, private: true })
    await t.ok('package_patch', { id: ds.id, notes: 'x' }, admin)
    await t.ok('resource_create', { package_id: ds.id, url: 'http://x/1.csv' }, admin)
    await t.ok('package_delete', { id: ds.id }, admin)
    expect(await storedTypes(ds.id)).toEqual([])
  })

  it('records resource create, update and delete as "changed package"', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    const res = await t.ok('resource_create', { package_id: ds.id, url: 'http://x/1.csv' }, admin)
    await t.ok('resource_update', { id: res.id, url: 'http://x/2.csv' }, admin)
    await t.ok('resource_delete', { id: res.id }, admin)
    expect(await storedTypes(ds.id)).toEqual([
      'new package',
      'changed package',
      'changed package',
      'changed package',
    ])
  })

  it('records bulk updates: public ones changed, deleted ones once, none when made private', async () => {
    const { org, admin } = await staffedOrg()
    const a = await t.make.dataset(admin, { owner_org: org.id, private: true })
    const b = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('bulk_update_public', { datasets: [a.id], org_id: org.id }, admin)
    expect(await storedTypes(a.id)).toEqual(['changed package'])
    const [made] = await t.ok('package_activity_list', { id: a.id, limit: 1 }, admin)
    expect(made).toMatchObject({ user_id: admin.id, activity_type: 'changed package' })
    await t.ok('bulk_update_private', { datasets: [a.id], org_id: org.id }, admin)
    expect(await storedTypes(a.id)).toEqual(['changed package'])
    await t.ok('bulk_update_delete', { datasets: [b.id], org_id: org.id }, admin)
    await t.ok('bulk_update_delete', { datasets: [b.id], org_id: org.id }, admin)
    expect(await storedTypes(b.id)).toEqual(['new package', 'deleted package'])
    const data = await t.ok(
      'activity_data_show',
      {
        id: (await t.ok('package_activity_list', { id: b.id }, admin))[0].id,
        object_type: 'package',
      },
      admin,
    )
    expect(data).toMatchObject({ id: b.id, state: 'deleted' })
  })

  it('records group and organization create, update and delete, "deleted" once', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    await t.ok('group_patch', { id: g.id, title: 'New title' }, u)
    await t.ok('group_delete', { id: g.id }, u)
    await t.ok('group_delete', { id: g.id }, sys)
    expect(await storedTypes(g.id)).toEqual(['new group', 'changed group', 'deleted group'])
    const { org, admin } = await staffedOrg()
    await t.ok('organization_patch', { id: org.id, title: 'Other' }, admin)
    await t.ok('organization_delete', { id: org.id }, admin)
    await t.ok('organization_delete', { id: org.id }, sys)
    expect(await storedTypes(org.id)).toEqual([
      'new organization',
      'changed organization',
      'deleted organization',
    ])
  })

  it('records new user and changed user', async () => {
    const u = await t.make.user()
    await t.ok('user_patch', { id: u.id, fullname: 'Some One' }, u)
    expect(await storedTypes(u.id)).toEqual(['new user', 'changed user'])
  })
})

describe('user_activity_list', () => {
  it('lists what the user did and what was done to them, newest first', async () => {
    const u = await t.make.user()
    const ds = await t.make.dataset(u)
    await t.ok('user_patch', { id: u.id, about: 'me' }, sys)
    const list = await t.ok('user_activity_list', { id: u.name })
    expect(types(list)).toEqual(['changed user', 'new package', 'new user'])
    // ckan: a user's changes are recorded as done by that user, whoever made them
    expect(list[0]).toMatchObject({ user_id: u.id, object_id: u.id })
    expect(list[1]).toMatchObject({ user_id: u.id, object_id: ds.id })
  })

  it('pages with offset and limit', async () => {
    const u = await t.make.user()
    for (let i = 0; i < 4; i++) await t.make.dataset(u, { title: `D${i}` })
    const all = await t.ok('user_activity_list', { id: u.id })
    expect(all.map((a: any) => a.data.package?.title ?? 'user')).toEqual([
      'D3',
      'D2',
      'D1',
      'D0',
      'user',
    ])
    const page = await t.ok('user_activity_list', { id: u.id, offset: '1', limit: '2' })
    expect(page.map((a: any) => a.id)).toEqual(all.slice(1, 3).map((a: any) => a.id))
  })

  it('leaves out activities on datasets made private for those who cannot read them', async () => {
    const { org, admin, member } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    const objects = async (who: Caller | null) =>
      (await t.ok('user_activity_list', { id: admin.id }, who)).map((a: any) => a.object_id)
    expect(await objects(null)).not.toContain(ds.id)
    expect(await objects(await t.make.user())).not.toContain(ds.id)
    expect(await objects(member)).toContain(ds.id)
    expect(await objects(admin)).toContain(ds.id)
    expect(await objects(sys)).toContain(ds.id)
  })

  it('is refused to anonymous callers when user details are not public', async () => {
    const env = await setup({ 'service.auth.public_user_details': 'false' })
    const u = await env.make.user()
    const r = await env.call('user_activity_list', { id: u.id })
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe('Access denied')
    expect(await env.ok('user_activity_list', { id: u.id }, u)).toHaveLength(1)
  })

  it('answers an unknown user with Not Found and a missing id with Missing value', async () => {
    const r = await t.call('user_activity_list', { id: 'nobody-here' })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    const m = await t.call('user_activity_list', {})
    expect(m.status).toBe(409)
    expect(m.body.error).toMatchObject({ __type: 'Validation Error', id: ['Missing value'] })
  })

  it('is readable with GET', async () => {
    const u = await t.make.user()
    const r = await t.get(`/api/3/action/user_activity_list?id=${u.name}&limit=1`)
    expect(r.status).toBe(200)
    expect(types(r.body.result)).toEqual(['new user'])
  })
})

describe('activity list parameters', () => {
  it('rejects bad offsets and limits with CKAN messages', async () => {
    const u = await t.make.user()
    const bad = async (params: object) =>
      (await t.call('user_activity_list', { id: u.id, ...params })).body.error
    expect(await bad({ limit: 'abc' })).toMatchObject({
      limit: ['Invalid integer', 'Please enter an integer value'],
    })
    expect(await bad({ limit: -1 })).toMatchObject({ limit: ['Must be a natural number'] })
    expect(await bad({ offset: 'x' })).toMatchObject({ offset: ['Invalid integer'] })
    expect(await bad({ offset: -2 })).toMatchObject({ offset: ['Must be a natural number'] })
    const r = await t.call('recently_changed_packages_activity_list', { limit: 'many' })
    expect(r.status).toBe(409)
  })

  it('defaults to 31 and caps at 100', async () => {
    const u = await t.make.user()
    const ds = await t.make.dataset(u)
    const rows = Array.from({ length: 120 }, (_, i) => ({
      sql: `INSERT INTO activity (id, timestamp, user_id, object_id, activity_type, data)
        VALUES (?, ?, ?, ?, 'changed package', '{}')`,
      args: [
        crypto.randomUUID(),
        `2000-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(6, '0')}`,
        u.id,
        ds.id,
      ],
    }))
    await t.client.batch(rows, 'write')
    expect(await t.ok('package_activity_list', { id: ds.id })).toHaveLength(31)
    expect(await t.ok('package_activity_list', { id: ds.id, limit: 500 })).toHaveLength(100)
    // ckan: 0 means "no limit" there; here it is the largest page
    expect(await t.ok('package_activity_list', { id: ds.id, limit: 0 })).toHaveLength(100)
    expect(await t.ok('package_activity_list', { id: ds.id, offset: 115 })).toHaveLength(6)
  })

  it('takes the default and the cap from service.activity_list_limit[_max]', async () => {
    const env = await setup({
      'service.activity_list_limit': '5',
      'service.activity_list_limit_max': '7',
    })
    const u = await env.make.user()
    for (let i = 0; i < 9; i++) await env.make.dataset(u)
    expect(await env.ok('recently_changed_packages_activity_list')).toHaveLength(5)
    expect(await env.ok('recently_changed_packages_activity_list', { limit: '9' })).toHaveLength(7)
    expect(await env.ok('user_activity_list', { id: u.id, limit: 9 })).toHaveLength(7)
  })
})

describe('package_activity_list', () => {
  it('lists the dataset activities newest first', async () => {
    const u = await t.make.user()
    const ds = await t.make.dataset(u)
    await t.ok('package_patch', { id: ds.name, title: 'Second' }, u)
    const list = await t.ok('package_activity_list', { id: ds.name })
    expect(types(list)).toEqual(['changed package', 'new package'])
    expect(list[0].data).toEqual({ package: { title: 'Second' } })
    // the dataset_ spelling works too
    expect(await t.ok('dataset_activity_list', { id: ds.id })).toEqual(list)
  })

  it('answers an unknown dataset with Not Found', async () => {
    const r = await t.call('package_activity_list', { id: 'no-such-dataset' })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found')
  })

  it('refuses a private dataset to outsiders but not to members and sysadmins', async () => {
    const { org, admin, member } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    const outsider = await t.make.user()
    const r = await t.call('package_activity_list', { id: ds.id }, outsider)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${outsider.name} not authorized to read package ${ds.id}`,
    )
    const anon = await t.call('package_activity_list', { id: ds.id })
    expect(anon.body.error.message).toBe(
      `Access denied: User  not authorized to read package ${ds.id}`,
    )
    // the activity recorded while public is still there for those who may read it
    expect(types(await t.ok('package_activity_list', { id: ds.id }, member))).toEqual([
      'new package',
    ])
    expect(types(await t.ok('package_activity_list', { id: ds.id }, sys))).toEqual(['new package'])
  })
})

describe('hidden activity', () => {
  it("hides the site user's activity unless a sysadmin asks for it", async () => {
    const site: Caller = await t.ok('get_site_user', {}, sys)
    const u = await t.make.user()
    const ds = await t.make.dataset(u)
    await t.ok('package_patch', { id: ds.id, notes: 'harvested' }, site)
    expect(types(await t.ok('package_activity_list', { id: ds.id }))).toEqual(['new package'])
    // silently ignored for others
    const asUser = await t.ok(
      'package_activity_list',
      { id: ds.id, include_hidden_activity: true },
      u,
    )
    expect(types(asUser)).toEqual(['new package'])
    const asSys = await t.ok(
      'package_activity_list',
      { id: ds.id, include_hidden_activity: 'true' },
      sys,
    )
    expect(types(asSys)).toEqual(['changed package', 'new package'])
    const recent = await t.ok('recently_changed_packages_activity_list', { limit: 100 }, sys)
    expect(recent.filter((a: any) => a.object_id === ds.id)).toHaveLength(1)
  })

  it('hides the users named in service.hide_activity_from_users (and then not the site user)', async () => {
    const env = await setup({ 'service.hide_activity_from_users': 'quiet-bot' })
    const admin = await env.make.sysadmin()
    const bot = await env.ok(
      'user_create',
      { name: 'quiet-bot', email: 'bot@example.com', password: 'password123' },
      admin,
    )
    const site: Caller = await env.ok('get_site_user', {}, admin)
    const u = await env.make.user()
    const ds = await env.make.dataset(u)
    await env.ok('package_patch', { id: ds.id, notes: 'by bot' }, { apikey: bot.apikey })
    await env.ok('package_patch', { id: ds.id, notes: 'by site' }, site)
    const list = await env.ok('package_activity_list', { id: ds.id })
    expect(list.map((a: any) => a.user_id)).not.toContain(bot.id)
    expect(types(list)).toEqual(['changed package', 'new package'])
    expect(await env.ok('user_activity_list', { id: 'quiet-bot' })).toEqual([])
    const all = await env.ok('group_activity_list', { id: (await env.make.group(u)).id })
    expect(types(all)).toEqual(['new group'])
  })
})

describe('group_activity_list', () => {
  it('lists the group and its datasets, not datasets taken out of it', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    const inside = await t.make.dataset(sys, { groups: [{ id: g.id }], title: 'Inside' })
    const gone = await t.make.dataset(sys, { groups: [{ id: g.id }], title: 'Gone' })
    const outside = await t.make.dataset(sys, { title: 'Outside' })
    await t.ok('member_delete', { id: g.id, object: gone.id, object_type: 'package' }, sys)
    const list = await t.ok('group_activity_list', { id: g.name })
    expect(list.map((a: any) => a.object_id)).toEqual([inside.id, g.id])
    expect(list.map((a: any) => a.object_id)).not.toContain(outside.id)
  })

  it('keeps the activities of a dataset deleted while in the group', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    const ds = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    await t.ok('package_delete', { id: ds.id }, sys)
    expect(types(await t.ok('group_activity_list', { id: g.id }))).toEqual([
      'deleted package',
      'new package',
      'new group',
    ])
  })

  it('shows a dataset made private only to those who may read it', async () => {
    const { org, admin, member } = await staffedOrg()
    const g = await t.make.group(admin)
    const ds = await t.make.dataset(admin, { owner_org: org.id, groups: [{ id: g.id }] })
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    const outsider = await t.make.user()
    for (const who of [null, outsider])
      expect(
        (await t.ok('group_activity_list', { id: g.id }, who)).map((a: any) => a.object_id),
      ).toEqual([g.id])
    for (const who of [member, sys])
      expect(
        (await t.ok('group_activity_list', { id: g.id }, who)).map((a: any) => a.object_id),
      ).toEqual([ds.id, g.id])
  })

  it('answers an organization or an unknown id with Not Found', async () => {
    const { org } = await staffedOrg()
    for (const id of [org.id, 'no-such-group']) {
      const r = await t.call('group_activity_list', { id })
      expect(r.status).toBe(404)
      expect(r.body.error.message).toBe('Not found')
    }
  })

  it('refuses a deleted group to non-members', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    await t.ok('group_delete', { id: g.id }, u)
    const r = await t.call('group_activity_list', { id: g.id })
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(`Access denied: User  not authorized to read group ${g.id}`)
    expect(types(await t.ok('group_activity_list', { id: g.id }, sys))).toEqual([
      'deleted group',
      'new group',
    ])
  })
})

describe('organization_activity_list', () => {
  it('lists the organization and the datasets it owns', async () => {
    const { org, admin } = await staffedOrg()
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('package_patch', { id: ds.id, notes: 'n' }, admin)
    await t.make.dataset(admin)
    const list = await t.ok('organization_activity_list', { id: org.name })
    expect(list.map((a: any) => [a.activity_type, a.object_id])).toEqual([
      ['changed package', ds.id],
      ['new package', ds.id],
      ['new organization', org.id],
    ])
  })

  it('shows datasets made private to members and sysadmins only', async () => {
    const { org, admin, member } = await staffedOrg()
    const pub = await t.make.dataset(admin, { owner_org: org.id })
    const later = await t.make.dataset(admin, { owner_org: org.id })
    await t.ok('bulk_update_private', { datasets: [later.id], org_id: org.id }, admin)
    const ids = async (who: Caller | null) =>
      new Set(
        (await t.ok('organization_activity_list', { id: org.id }, who)).map(
          (a: any) => a.object_id,
        ),
      )
    expect(await ids(null)).toEqual(new Set([pub.id, org.id]))
    expect(await ids(await t.make.user())).toEqual(new Set([pub.id, org.id]))
    expect(await ids(member)).toEqual(new Set([pub.id, later.id, org.id]))
    expect(await ids(sys)).toEqual(new Set([pub.id, later.id, org.id]))
  })

  it('answers a group id with Not Found and a missing id with Missing value', async () => {
    const g = await t.make.group(sys)
    expect((await t.call('organization_activity_list', { id: g.id })).status).toBe(404)
    const m = await t.call('organization_activity_list', {})
    expect(m.body.error).toMatchObject({ __type: 'Validation Error', id: ['Missing value'] })
  })
})

describe('recently_changed_packages_activity_list', () => {
  it('lists dataset activities only, newest first, paged', async () => {
    const env = await setup()
    const u = await env.make.user()
    const a = await env.make.dataset(u)
    await env.make.group(u)
    const b = await env.make.dataset(u)
    await env.ok('package_patch', { id: a.id, notes: 'x' }, u)
    const list = await env.ok('recently_changed_packages_activity_list')
    expect(list.map((x: any) => [x.activity_type, x.object_id])).toEqual([
      ['changed package', a.id],
      ['new package', b.id],
      ['new package', a.id],
    ])
    const page = await env.ok('recently_changed_packages_activity_list', { offset: 1, limit: 1 })
    expect(page).toEqual([list[1]])
  })

  it('leaves out datasets made private for those who cannot read them', async () => {
    const env = await setup()
    const admin = await env.make.user()
    const member = await env.make.user()
    const org = await env.ok(
      'organization_create',
      { name: uniq('org'), users: [{ name: member.name, capacity: 'member' }] },
      admin,
    )
    const ds = await env.make.dataset(admin, { owner_org: org.id })
    const other = await env.make.dataset(admin)
    await env.ok('package_patch', { id: ds.id, private: true }, admin)
    const seen = async (who: Caller | null) =>
      (await env.ok('recently_changed_packages_activity_list', {}, who)).map(
        (a: any) => a.object_id,
      )
    expect(await seen(null)).toEqual([other.id])
    expect(await seen(await env.make.user())).toEqual([other.id])
    expect(await seen(member)).toEqual([other.id, ds.id])
    expect(await seen(await env.make.sysadmin())).toEqual([other.id, ds.id])
  })

  it('fills a page past the activities it may not show', async () => {
    const env = await setup()
    const admin = await env.make.user()
    const org = await env.make.organization(admin)
    const pub = await env.make.dataset(admin)
    const priv = await env.make.dataset(admin, { owner_org: org.id })
    for (let i = 0; i < 40; i++)
      await env.ok('package_patch', { id: priv.id, notes: `n${i}` }, admin)
    await env.ok('package_patch', { id: priv.id, private: true }, admin)
    const list = await env.ok('recently_changed_packages_activity_list', { limit: 1 })
    expect(list.map((a: any) => a.object_id)).toEqual([pub.id])
  })
})
