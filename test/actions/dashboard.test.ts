// The dashboard: dashboard_activity_list, dashboard_new_activities_count, dashboard_mark_activities_old.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'
import { systemContext } from '../../src/context'
import { dashboardActivitiesSince } from '../../src/model/dashboard'

let t: TestEnv
let sys: Awaited<ReturnType<TestEnv['make']['sysadmin']>>
const tick = () => new Promise((r) => setTimeout(r, 5))

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

/** Follows directly in the database (the follow actions are not what is tested here). */
async function follow(
  env: TestEnv,
  who: { id: string },
  objectId: string,
  type: 'user' | 'dataset' | 'group',
) {
  await env.client.execute({
    sql: 'INSERT INTO follower (follower_id, object_id, object_type, datetime) VALUES (?, ?, ?, ?)',
    args: [who.id, objectId, type, new Date().toISOString().replace('Z', '000')],
  })
}

const dashboard = (as: Caller | null, params: object = {}) =>
  t.ok('dashboard_activity_list', params, as)
const count = (as: Caller, params: object = {}) =>
  t.ok('dashboard_new_activities_count', params, as)
const summary = (list: any[]) => list.map((a) => [a.activity_type, a.is_new])

describe('dashboard_activity_list', () => {
  it("shows the user's own activities, never as new", async () => {
    const u = await t.make.user()
    expect(summary(await dashboard(u))).toEqual([['new user', false]])
    const ds = await t.make.dataset(u, { title: 'Mine' })
    await t.make.group(u)
    const list = await dashboard(u)
    expect(summary(list)).toEqual([
      ['new group', false],
      ['new package', false],
      ['new user', false],
    ])
    expect(list[1]).toMatchObject({
      user_id: u.id,
      object_id: ds.id,
      data: { package: { title: 'Mine' } },
    })
    expect(await count(u)).toBe(0)
  })

  it('shows what followed users do and what is done to them, as new', async () => {
    const u = await t.make.user()
    const other = await t.make.user()
    await follow(t, u, other.id, 'user')
    await tick()
    const ds = await t.make.dataset(other)
    await t.ok('package_patch', { id: ds.id, title: 'Changed' }, other)
    await t.ok('package_delete', { id: ds.id }, other)
    const g = await t.make.group(other)
    await t.ok('group_delete', { id: g.id }, other)
    const list = await dashboard(u)
    expect(summary(list)).toEqual([
      ['deleted group', true],
      ['new group', true],
      ['deleted package', true],
      ['changed package', true],
      ['new package', true],
      ['new user', true], // the followed user joined after u
      ['new user', false],
    ])
    expect(list[5]).toMatchObject({ user_id: other.id, object_id: other.id })
    expect(await count(u)).toBe(6)
  })

  it('shows activities of followed datasets, older ones included', async () => {
    const u = await t.make.user()
    await tick()
    const ds = await t.make.dataset(sys)
    await follow(t, u, ds.id, 'dataset')
    await t.ok('package_patch', { id: ds.id, title: 'Changed' }, sys)
    const list = (await dashboard(u)).filter((a: any) => a.object_id === ds.id)
    // ckan: the "new package" from before the follow shows as new too (by design)
    expect(summary(list)).toEqual([
      ['changed package', true],
      ['new package', true],
    ])
    expect(await count(u)).toBe(2)
  })

  it('shows a followed group with its datasets, and an organization with the datasets it owns', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    const org = await t.make.organization(u)
    await follow(t, u, g.id, 'group')
    await follow(t, u, org.id, 'group')
    await tick()
    await t.ok('group_patch', { id: g.id, title: 'Renamed' }, sys)
    const inGroup = await t.make.dataset(sys, { groups: [{ id: g.id }] })
    const inOrg = await t.make.dataset(sys, { owner_org: org.id })
    const list = await dashboard(u)
    expect(list.map((a: any) => [a.activity_type, a.object_id, a.is_new])).toEqual([
      ['new package', inOrg.id, true],
      ['new package', inGroup.id, true],
      ['changed group', g.id, true],
      ['new organization', org.id, false],
      ['new group', g.id, false],
      ['new user', u.id, false],
    ])
    expect(await count(u)).toBe(3)
  })

  it('leaves out activities of things not followed', async () => {
    const u = await t.make.user()
    const g = await t.make.group(sys)
    await t.make.dataset(sys, { groups: [{ id: g.id }] })
    await t.make.user()
    expect(summary(await dashboard(u))).toEqual([['new user', false]])
  })

  it('leaves out hidden activity (the site user)', async () => {
    const u = await t.make.user()
    const site: Caller = await t.ok('get_site_user', {}, sys)
    const ds = await t.make.dataset(sys)
    await follow(t, u, ds.id, 'dataset')
    await t.ok('package_patch', { id: ds.id, notes: 'harvested' }, site)
    const list = (await dashboard(u)).filter((a: any) => a.object_id === ds.id)
    expect(summary(list)).toEqual([['new package', true]])
  })

  it('pages with offset and limit, and checks them', async () => {
    const u = await t.make.user()
    for (let i = 0; i < 5; i++) await t.make.dataset(u, { title: `T${i}` })
    const all = await dashboard(u)
    expect(all).toHaveLength(6)
    expect(await dashboard(u, { offset: 2, limit: 2 })).toEqual(all.slice(2, 4))
    const bad = await t.call('dashboard_activity_list', { limit: 'lots', offset: -1 }, u)
    expect(bad.status).toBe(409)
    expect(bad.body.error).toEqual({
      __type: 'Validation Error',
      limit: ['Invalid integer', 'Please enter an integer value'],
      offset: ['Must be a natural number'],
    })
  })

  it('refuses anonymous callers', async () => {
    const r = await t.call('dashboard_activity_list', {})
    expect(r.status).toBe(403)
    expect(r.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: You must be logged in to access your dashboard.',
    })
  })

  it('is readable with GET', async () => {
    const u = await t.make.user()
    const r = await t.get('/api/3/action/dashboard_activity_list?limit=1', u)
    expect(summary(r.body.result)).toEqual([['new user', false]])
  })
})

describe('dashboard privacy', () => {
  async function orgWithFollower() {
    const admin = await t.make.user()
    const member = await t.make.user()
    const outsider = await t.make.user()
    const org = await t.ok(
      'organization_create',
      { name: uniq('org'), users: [{ name: member.name, capacity: 'member' }] },
      admin,
    )
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    for (const who of [member, outsider]) await follow(t, who, ds.id, 'dataset')
    await t.ok('package_patch', { id: ds.id, notes: 'still public' }, admin)
    return { admin, member, outsider, org, ds }
  }
  const about = async (who: Caller, id: string) =>
    (await dashboard(who)).filter((a: any) => a.object_id === id)

  it('drops the earlier activities of a dataset made private for followers who cannot read it', async () => {
    const { admin, member, outsider, ds } = await orgWithFollower()
    expect(await about(outsider, ds.id)).toHaveLength(2)
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    expect(await about(outsider, ds.id)).toEqual([])
    expect(await count(outsider)).toBe(0)
    expect(summary(await about(member, ds.id))).toEqual([
      ['changed package', true],
      ['new package', true],
    ])
  })

  it('does the same after bulk_update_private, and for followed users and organizations', async () => {
    const { admin, outsider, org, ds } = await orgWithFollower()
    const fan = await t.make.user()
    await follow(t, fan, admin.id, 'user')
    await follow(t, fan, org.id, 'group')
    expect(await about(fan, ds.id)).toHaveLength(2)
    await t.ok('bulk_update_private', { datasets: [ds.id], org_id: org.id }, admin)
    expect(await about(outsider, ds.id)).toEqual([])
    expect(await about(fan, ds.id)).toEqual([])
    expect((await dashboard(fan)).map((a: any) => a.object_id)).toContain(org.id)
    // the dataset's own stream is closed to them as well
    expect((await t.call('package_activity_list', { id: ds.id }, outsider)).status).toBe(403)
  })
})

describe('dashboard_new_activities_count', () => {
  it('counts only within the first page (service.activity_list_limit)', async () => {
    const env = await setup({ 'service.activity_list_limit': '5' })
    const u = await env.make.user()
    const admin = await env.make.sysadmin()
    const ds = await env.make.dataset(admin)
    await follow(env, u, ds.id, 'dataset')
    for (let i = 0; i < 8; i++) await env.ok('package_patch', { id: ds.id, notes: `n${i}` }, admin)
    expect(await env.ok('dashboard_new_activities_count', {}, u)).toBe(5)
    // ckan: the parameters go on to dashboard_activity_list
    expect(await env.ok('dashboard_new_activities_count', { limit: 2 }, u)).toBe(2)
  })

  it('refuses anonymous callers', async () => {
    const r = await t.call('dashboard_new_activities_count', {})
    expect(r.body.error.message).toBe(
      'Access denied: You must be logged in to access your dashboard.',
    )
  })
})

describe('dashboard_mark_activities_old', () => {
  it('resets the count; later activities are new again', async () => {
    const u = await t.make.user()
    await tick()
    const ds = await t.make.dataset(sys)
    await follow(t, u, ds.id, 'dataset')
    expect(await count(u)).toBe(1)
    const r = await t.call('dashboard_mark_activities_old', {}, u)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect(await count(u)).toBe(0)
    expect(summary(await dashboard(u))).toEqual([
      ['new package', false],
      ['new user', false],
    ])
    await tick()
    await t.ok('package_patch', { id: ds.id, title: 'Again' }, sys)
    expect(await count(u)).toBe(1)
    await t.ok('dashboard_mark_activities_old', {}, u)
    expect(await count(u)).toBe(0)
    const rows = await t.client.execute({
      sql: 'SELECT count(*) AS n FROM dashboard WHERE user_id = ?',
      args: [u.id],
    })
    expect(Number(rows.rows[0]!.n)).toBe(1)
  })

  it('refuses anonymous callers and GET', async () => {
    const r = await t.call('dashboard_mark_activities_old', {})
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      'Access denied: Action dashboard_mark_activities_old requires an authenticated user',
    )
    const u = await t.make.user()
    expect((await t.get('/api/3/action/dashboard_mark_activities_old', u)).status).toBe(400)
  })
})

describe('dashboardActivitiesSince', () => {
  it("gives a user's unseen dashboard activities by others, newest first, as that user may see them", async () => {
    const u = await t.make.user()
    const admin = await t.make.user()
    const org = await t.make.organization(admin)
    const pub = await t.make.dataset(admin, { owner_org: org.id })
    const hidden = await t.make.dataset(admin, { owner_org: org.id })
    await follow(t, u, admin.id, 'user')
    const mine = await t.make.dataset(u)
    await follow(t, u, mine.id, 'dataset')
    await tick()
    const since = new Date().toISOString().replace('Z', '000')
    await tick()
    await t.ok('package_patch', { id: pub.id, title: 'P1' }, admin)
    await t.ok('package_patch', { id: mine.id, title: 'M1' }, u)
    await t.ok('package_patch', { id: hidden.id, title: 'H1' }, admin)
    await t.ok('package_patch', { id: hidden.id, private: true }, admin)
    await t.ok('package_patch', { id: pub.id, title: 'P2' }, admin)
    const ctx = systemContext(t.deps)
    const user = { id: u.id, sysadmin: false }
    const got = await dashboardActivitiesSince(ctx, user, since, 10)
    expect(got.map((a) => a.data.package)).toEqual([{ title: 'P2' }, { title: 'P1' }])
    expect(got.every((a) => a.timestamp > since && a.user_id === admin.id)).toBe(true)
    expect(await dashboardActivitiesSince(ctx, user, since, 1)).toEqual(got.slice(0, 1))
  })
})
