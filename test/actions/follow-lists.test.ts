// Follower and followee counts and lists: who may see them, what they hold, and private datasets.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
type Who = Caller & { id: string; name: string }
let sys: Who

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

function expectInvalid(r: CallResult, errors: Record<string, unknown>) {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...errors })
}

function expectDenied(r: CallResult, message: string) {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message })
}

/** A user with `n` followers, named so that their order by name is known. */
async function followed(n: number) {
  const target = await t.make.user()
  const fans: Who[] = []
  for (let i = 0; i < n; i++) fans.push(await t.make.user())
  for (const f of fans) await t.ok('follow_user', { id: target.id }, f)
  return { target, fans }
}

/**
 * A dataset of an organization, followed by `fan` while public and then made private: `member`
 * (of the organization) may still read it, `fan` may not.
 */
async function datasetGonePrivate() {
  const admin = await t.make.user()
  const member = await t.make.user()
  const fan = await t.make.user()
  const org = await t.make.organization(admin)
  await t.ok(
    'organization_member_create',
    { id: org.id, username: member.name, role: 'member' },
    admin,
  )
  const ds = await t.make.dataset(admin, { owner_org: org.id, title: 'Secret stuff' })
  for (const u of [fan, member]) await t.ok('follow_dataset', { id: ds.id }, u)
  await t.ok('package_patch', { id: ds.id, private: true }, admin)
  return { admin, member, fan, org, ds }
}

describe('*_follower_count (user, dataset, group, organization)', () => {
  it('counts followers for anyone, also over GET', async () => {
    const { target } = await followed(2)
    expect(await t.ok('user_follower_count', { id: target.name })).toBe(2)
    const r = await t.get(`/api/3/action/user_follower_count?id=${target.id}`)
    expect(r.body).toMatchObject({ success: true, result: 2 })
  })

  it('counts dataset, group and organization followers', async () => {
    const [a, b] = [await t.make.user(), await t.make.user()]
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    for (const u of [a, b]) {
      await t.ok('follow_dataset', { id: ds.id }, u)
      await t.ok('follow_group', { id: o.id }, u)
    }
    await t.ok('follow_group', { id: g.id }, a)
    expect(await t.ok('dataset_follower_count', { id: ds.name })).toBe(2)
    expect(await t.ok('group_follower_count', { id: g.name })).toBe(1)
    expect(await t.ok('organization_follower_count', { id: o.name })).toBe(2)
    await t.ok('unfollow_group', { id: o.id }, b)
    expect(await t.ok('organization_follower_count', { id: o.id })).toBe(1)
  })

  it('leaves out deleted followers, and counts none for a deleted object', async () => {
    const { target, fans } = await followed(2)
    await t.ok('user_delete', { id: fans[0]!.id }, sys)
    expect(await t.ok('user_follower_count', { id: target.id })).toBe(1)
    const g = await t.make.group(sys)
    await t.ok('follow_group', { id: g.id }, fans[1]!)
    await t.ok('group_delete', { id: g.id }, sys)
    expect(await t.ok('group_follower_count', { id: g.id })).toBe(0)
  })

  it('answers Missing value and Not found per kind', async () => {
    expectInvalid(await t.call('user_follower_count', {}), { id: ['Missing value'] })
    expectInvalid(await t.call('user_follower_count', { id: 'nobody-here' }), {
      id: ['Not found: User'],
    })
    expectInvalid(await t.call('dataset_follower_count', { id: 'nothing-here' }), {
      id: ['Not found: Dataset'],
    })
    expectInvalid(await t.call('group_follower_count', { id: 'nothing-here' }), {
      id: ['Not found: Group'],
    })
    expectInvalid(await t.call('organization_follower_count', { id: 'nothing-here' }), {
      id: ['Not found: Group'],
    })
  })

  it('treats a private dataset as unknown to those who may not read it', async () => {
    const { ds, member, fan, admin } = await datasetGonePrivate()
    for (const who of [null, fan])
      expectInvalid(await t.call('dataset_follower_count', { id: ds.id }, who), {
        id: ['Not found: Dataset'],
      })
    expect(await t.ok('dataset_follower_count', { id: ds.id }, member)).toBe(2)
    expect(await t.ok('dataset_follower_count', { id: ds.name }, admin)).toBe(2)
    expect(await t.ok('dataset_follower_count', { id: ds.id }, sys)).toBe(2)
  })
})

describe('num_followers in group_show and user_show', () => {
  it('follows follows and unfollows, without deleted followers', async () => {
    const [a, b] = [await t.make.user(), await t.make.user()]
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    const u = await t.make.user()
    for (const f of [a, b]) {
      await t.ok('follow_group', { id: g.id }, f)
      await t.ok('follow_group', { id: o.id }, f)
      await t.ok('follow_user', { id: u.id }, f)
    }
    expect((await t.ok('group_show', { id: g.id })).num_followers).toBe(2)
    expect((await t.ok('organization_show', { id: o.id })).num_followers).toBe(2)
    const show = () => t.ok('user_show', { id: u.id, include_num_followers: true })
    expect((await show()).num_followers).toBe(2)
    await t.ok('unfollow_group', { id: g.id }, a)
    await t.ok('unfollow_user', { id: u.id }, a)
    expect((await t.ok('group_show', { id: g.id })).num_followers).toBe(1)
    expect((await show()).num_followers).toBe(1)
    await t.ok('user_delete', { id: b.id }, sys)
    expect((await t.ok('organization_show', { id: o.id })).num_followers).toBe(1)
    expect((await t.ok('group_show', { id: g.id })).num_followers).toBe(0)
    expect((await show()).num_followers).toBe(0)
  })
})

describe('*_follower_list (user, dataset, group, organization)', () => {
  it('gives sysadmins public user dicts sorted by name', async () => {
    const { target, fans } = await followed(3)
    const list = await t.ok('user_follower_list', { id: target.id }, sys)
    expect(list.map((u: { name: string }) => u.name)).toEqual(fans.map((f) => f.name).sort())
    for (const u of list) {
      expect(u).not.toHaveProperty('email')
      expect(u).not.toHaveProperty('apikey')
      expect(u).toHaveProperty('display_name')
    }
  })

  it('lists dataset, group and organization followers, without deleted users', async () => {
    const [a, b] = [await t.make.user(), await t.make.user()]
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    for (const u of [a, b]) {
      await t.ok('follow_dataset', { id: ds.id }, u)
      await t.ok('follow_group', { id: g.id }, u)
      await t.ok('follow_group', { id: o.id }, u)
    }
    await t.ok('user_delete', { id: b.id }, sys)
    const names = async (action: string, id: string) =>
      (await t.ok(action, { id }, sys)).map((u: { name: string }) => u.name)
    expect(await names('dataset_follower_list', ds.name)).toEqual([a.name])
    expect(await names('group_follower_list', g.name)).toEqual([a.name])
    expect(await names('organization_follower_list', o.name)).toEqual([a.name])
  })

  it('refuses everyone but sysadmins with "Not authorized"', async () => {
    const { target, fans } = await followed(1)
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    for (const [action, id] of [
      ['user_follower_list', target.id],
      ['dataset_follower_list', ds.id],
      ['group_follower_list', g.id],
      ['organization_follower_list', o.id],
    ] as const)
      for (const who of [null, target, fans[0]!])
        expectDenied(await t.call(action, { id }, who), 'Access denied: Not authorized')
  })

  it('answers Missing value and Not found to sysadmins', async () => {
    expectInvalid(await t.call('user_follower_list', {}, sys), { id: ['Missing value'] })
    for (const [action, label] of [
      ['user_follower_list', 'User'],
      ['dataset_follower_list', 'Dataset'],
      ['group_follower_list', 'Group'],
      ['organization_follower_list', 'Group'],
    ] as const)
      expectInvalid(await t.call(action, { id: 'nothing-here' }, sys), {
        id: [`Not found: ${label}`],
      })
  })

  it('is callable with GET', async () => {
    const { target } = await followed(1)
    const r = await t.get(`/api/3/action/user_follower_list?id=${target.id}`, sys)
    expect(r.status).toBe(200)
    expect(r.body.result).toHaveLength(1)
  })
})

describe('followee_count and *_followee_count (user, dataset, group)', () => {
  it('counts what a user follows, for anyone', async () => {
    const a = await t.make.user()
    const [u1, u2] = [await t.make.user(), await t.make.user()]
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    await t.ok('follow_user', { id: u1.id }, a)
    await t.ok('follow_user', { id: u2.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('follow_group', { id: o.id }, a)
    expect(await t.ok('user_followee_count', { id: a.name })).toBe(2)
    expect(await t.ok('dataset_followee_count', { id: a.id })).toBe(1)
    expect(await t.ok('group_followee_count', { id: a.id })).toBe(2)
    expect(await t.ok('followee_count', { id: a.id })).toBe(5)
    const r = await t.get(`/api/3/action/followee_count?id=${a.name}`)
    expect(r.body.result).toBe(5)
  })

  it('leaves out deleted objects', async () => {
    const a = await t.make.user()
    const u = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    await t.ok('follow_user', { id: u.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('user_delete', { id: u.id }, sys)
    await t.ok('package_delete', { id: ds.id }, sys)
    await t.ok('group_delete', { id: g.id }, sys)
    expect(await t.ok('followee_count', { id: a.id }, sys)).toBe(0)
    expect(await t.ok('user_followee_count', { id: a.id })).toBe(0)
    expect(await t.ok('dataset_followee_count', { id: a.id }, sys)).toBe(0)
    expect(await t.ok('group_followee_count', { id: a.id })).toBe(0)
  })

  it('counts nothing for a deleted user', async () => {
    const a = await t.make.user()
    const u = await t.make.user()
    await t.ok('follow_user', { id: u.id }, a)
    await t.ok('user_delete', { id: a.id }, sys)
    expect(await t.ok('user_followee_count', { id: a.id }, sys)).toBe(0)
  })

  it('counts only the datasets the caller may read now', async () => {
    const { fan, member } = await datasetGonePrivate()
    for (const who of [null, fan]) {
      expect(await t.ok('dataset_followee_count', { id: fan.id }, who)).toBe(0)
      expect(await t.ok('followee_count', { id: fan.id }, who)).toBe(0)
    }
    expect(await t.ok('dataset_followee_count', { id: fan.id }, sys)).toBe(1)
    expect(await t.ok('dataset_followee_count', { id: member.id }, member)).toBe(1)
    expect(await t.ok('dataset_followee_count', { id: member.id })).toBe(0)
  })

  it('answers Missing value and Not found: User', async () => {
    for (const action of [
      'followee_count',
      'user_followee_count',
      'dataset_followee_count',
      'group_followee_count',
    ]) {
      expectInvalid(await t.call(action, {}), { id: ['Missing value'] })
      expectInvalid(await t.call(action, { id: 'nobody-here' }), { id: ['Not found: User'] })
    }
  })
})

describe('*_followee_list (user, dataset, group, organization)', () => {
  it('gives the user what they follow, groups apart from organizations', async () => {
    const a = await t.make.user()
    const [u1, u2] = [await t.make.user(), await t.make.user()]
    const ds1 = await t.make.dataset(sys)
    const ds2 = await t.make.dataset(sys)
    const g = await t.make.group(sys, { title: 'Climate' })
    const o = await t.make.organization(sys, { title: 'Agency' })
    for (const u of [u2, u1]) await t.ok('follow_user', { id: u.id }, a)
    for (const d of [ds2, ds1]) await t.ok('follow_dataset', { id: d.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('follow_group', { id: o.id }, a)

    const users = await t.ok('user_followee_list', { id: a.id }, a)
    expect(users.map((u: { name: string }) => u.name)).toEqual([u1.name, u2.name])
    for (const u of users) expect(u).not.toHaveProperty('email')

    const datasets = await t.ok('dataset_followee_list', { id: a.name }, a)
    expect(datasets.map((d: { id: string }) => d.id)).toEqual([ds2.id, ds1.id])
    expect(datasets[0]).toMatchObject({ name: ds2.name, resources: [] })

    const groups = await t.ok('group_followee_list', { id: a.id }, a)
    expect(groups).toHaveLength(1)
    expect(groups[0]).toMatchObject({ id: g.id, display_name: 'Climate', num_followers: 1 })
    const orgs = await t.ok('organization_followee_list', { id: a.id }, a)
    expect(orgs).toHaveLength(1)
    expect(orgs[0]).toMatchObject({ id: o.id, is_organization: true })
  })

  it('lets sysadmins see what anyone follows, also over GET', async () => {
    const a = await t.make.user()
    const u = await t.make.user()
    await t.ok('follow_user', { id: u.id }, a)
    expect(await t.ok('user_followee_list', { id: a.id }, sys)).toHaveLength(1)
    const r = await t.get(`/api/3/action/user_followee_list?id=${a.id}`, sys)
    expect(r.body.result).toHaveLength(1)
  })

  it('refuses anonymous callers and other users with "Not authorized"', async () => {
    const a = await t.make.user()
    const other = await t.make.user()
    for (const action of [
      'user_followee_list',
      'dataset_followee_list',
      'group_followee_list',
      'organization_followee_list',
    ]) {
      for (const who of [null, other])
        expectDenied(await t.call(action, { id: a.id }, who), 'Access denied: Not authorized')
      // ckan authorizes before validating: an unknown or absent user is refused too
      expectDenied(await t.call(action, { id: 'nobody-here' }, a), 'Access denied: Not authorized')
      expectDenied(await t.call(action, {}, a), 'Access denied: Not authorized')
    }
  })

  it('answers sysadmins Missing value and Not found: User', async () => {
    expectInvalid(await t.call('dataset_followee_list', {}, sys), { id: ['Missing value'] })
    expectInvalid(await t.call('group_followee_list', { id: 'nobody-here' }, sys), {
      id: ['Not found: User'],
    })
  })

  it('never lists a dataset the caller may no longer read', async () => {
    const { fan, member, ds } = await datasetGonePrivate()
    expect(await t.ok('dataset_followee_list', { id: fan.id }, fan)).toEqual([])
    const mine = await t.ok('dataset_followee_list', { id: member.id }, member)
    expect(mine.map((d: { id: string }) => d.id)).toEqual([ds.id])
    const seen = await t.ok('dataset_followee_list', { id: fan.id }, sys)
    expect(seen.map((d: { id: string }) => d.id)).toEqual([ds.id])
  })

  it('leaves out deleted objects and lists nothing for a deleted user', async () => {
    const a = await t.make.user()
    const u = await t.make.user()
    const ds = await t.make.dataset(sys)
    const o = await t.make.organization(sys)
    await t.ok('follow_user', { id: u.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: o.id }, a)
    await t.ok('package_delete', { id: ds.id }, sys)
    await t.ok('organization_delete', { id: o.id }, sys)
    expect(await t.ok('dataset_followee_list', { id: a.id }, a)).toEqual([])
    expect(await t.ok('organization_followee_list', { id: a.id }, a)).toEqual([])
    expect(await t.ok('user_followee_list', { id: a.id }, a)).toHaveLength(1)
    await t.ok('user_delete', { id: a.id }, sys)
    expect(await t.ok('user_followee_list', { id: a.id }, sys)).toEqual([])
  })
})

describe('followee_list', () => {
  async function follower() {
    const a = await t.make.user()
    const u = await t.make.user({ fullname: 'beth Smith' })
    const ds = await t.make.dataset(sys, { title: 'Budget 2020' })
    const g = await t.make.group(sys, { title: 'Agriculture' })
    const o = await t.make.organization(sys, { title: 'bureau of stats' })
    await t.ok('follow_user', { id: u.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('follow_group', { id: o.id }, a)
    return { a, u, ds, g, o }
  }

  it('lists every kind, sorted by display name as CKAN sorts it', async () => {
    const { a, u, ds, g, o } = await follower()
    const list = await t.ok('followee_list', { id: a.name }, a)
    const pairs = list.map((i: { type: string; display_name: string }) => [i.type, i.display_name])
    expect(pairs).toEqual([
      ['group', 'Agriculture'],
      ['dataset', 'Budget 2020'],
      ['user', 'beth Smith'],
      ['organization', 'bureau of stats'],
    ])
    expect(list.map((i: { dict: { id: string } }) => i.dict.id)).toEqual([g.id, ds.id, u.id, o.id])
    expect(list[2].dict).not.toHaveProperty('email')
  })

  it('filters by a case-insensitive prefix of the display name', async () => {
    const { a } = await follower()
    const names = async (q: string) =>
      (await t.ok('followee_list', { id: a.id, q }, a)).map(
        (i: { display_name: string }) => i.display_name,
      )
    expect(await names('B')).toEqual(['Budget 2020', 'beth Smith', 'bureau of stats'])
    expect(await names('  bu ')).toEqual(['Budget 2020', 'bureau of stats'])
    expect(await names('agr')).toEqual(['Agriculture'])
    expect(await names('zzz')).toEqual([])
    expect(await names('')).toHaveLength(4)
  })

  it('lets sysadmins see what anyone follows, also over GET', async () => {
    const { a } = await follower()
    expect(await t.ok('followee_list', { id: a.id }, sys)).toHaveLength(4)
    const r = await t.get(`/api/3/action/followee_list?id=${a.name}&q=agr`, sys)
    expect(r.body.result).toHaveLength(1)
  })

  it('validates the id before refusing anyone but the user with "Not authorized"', async () => {
    const { a } = await follower()
    const other = await t.make.user()
    for (const who of [null, other])
      expectDenied(
        await t.call('followee_list', { id: a.id }, who),
        'Access denied: Not authorized',
      )
    for (const who of [null, other, sys]) {
      expectInvalid(await t.call('followee_list', {}, who), { id: ['Missing value'] })
      expectInvalid(await t.call('followee_list', { id: 'nobody-here' }, who), {
        id: ['Not found: User'],
      })
    }
  })

  it('never lists a dataset the caller may no longer read', async () => {
    const { fan, ds } = await datasetGonePrivate()
    expect(await t.ok('followee_list', { id: fan.id }, fan)).toEqual([])
    const seen = await t.ok('followee_list', { id: fan.id }, sys)
    expect(seen).toEqual([
      {
        type: 'dataset',
        display_name: 'Secret stuff',
        dict: expect.objectContaining({ id: ds.id }),
      },
    ])
  })
})
