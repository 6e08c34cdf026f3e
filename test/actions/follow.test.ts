// follow_*, unfollow_*, am_following_*: who may follow what, CKAN's messages, private datasets.
import { and, count, desc, eq, like } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { activities, changeLog, followers } from '../../src/db/schema'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'
import { registry } from '../../src/actions'
import { invoke } from '../../src/actions/invoke'
import { systemContext } from '../../src/context'

let t: TestEnv
type Who = Caller & { id: string; name: string }
let sys: Who

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/

function expectInvalid(r: CallResult, errors: Record<string, unknown>) {
  expect(r.status).toBe(409)
  expect(r.body.success).toBe(false)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...errors })
}

function expectDenied(r: CallResult, message: string) {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message })
}

/** An organization administered by `admin` with one private dataset; `member` may read it. */
async function privateDataset() {
  const admin = await t.make.user()
  const member = await t.make.user()
  const org = await t.make.organization(admin)
  await t.ok(
    'organization_member_create',
    { id: org.id, username: member.name, role: 'member' },
    admin,
  )
  const ds = await t.make.dataset(admin, { owner_org: org.id, private: true })
  return { admin, member, org, ds }
}

async function followerRows(objectId: string) {
  const [r] = await t.db
    .select({ n: count() })
    .from(followers)
    .where(eq(followers.object_id, objectId))
  return r!.n
}

describe('follow_user', () => {
  it('returns the follower dict and starts following', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const r = await t.call('follow_user', { id: b.name }, a)
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.result).sort()).toEqual(['datetime', 'follower_id', 'object_id'])
    expect(r.body.result).toMatchObject({ follower_id: a.id, object_id: b.id })
    expect(r.body.result.datetime).toMatch(ISO)
    expect(await t.ok('am_following_user', { id: b.id }, a)).toBe(true)
    expect(await t.ok('user_follower_count', { id: b.id })).toBe(1)
  })

  it('lets a sysadmin follow a user', async () => {
    const b = await t.make.user()
    expect(await t.ok('follow_user', { id: b.id }, sys)).toMatchObject({ follower_id: sys.id })
  })

  it('records no activity, and logs only what moves ETags (a row no listener acts on)', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const before = await t.db.select({ n: count() }).from(changeLog)
    await t.ok('follow_user', { id: b.id }, a)
    await t.ok('unfollow_user', { id: b.id }, a)
    const after = await t.db.select({ n: count() }).from(changeLog)
    expect(after[0]!.n).toBe(before[0]!.n + 2)
    const added = await t.db.select().from(changeLog).orderBy(desc(changeLog.seq)).limit(2)
    expect(added.map((r) => [r.entity_type, r.op])).toEqual([['other', 'touch'], ['other', 'touch']])
    const acts = await t.db
      .select({ n: count() })
      .from(activities)
      .where(and(eq(activities.user_id, a.id), like(activities.activity_type, 'follow%')))
    expect(acts[0]!.n).toBe(0)
  })

  it('refuses an anonymous caller with CKAN message', async () => {
    const b = await t.make.user()
    expectDenied(
      await t.call('follow_user', { id: b.id }),
      'Access denied: You must be logged in to follow users',
    )
  })

  it('refuses a deleted user', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    await t.ok('user_delete', { id: a.id }, sys)
    expectDenied(await t.call('follow_user', { id: b.id }, a), 'Access denied')
  })

  it('answers Missing value without an id', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('follow_user', {}, a), { id: ['Missing value'] })
    expectInvalid(await t.call('follow_user', { id: '' }, a), { id: ['Missing value'] })
    expectInvalid(await t.call('follow_user', { id: null }, a), { id: ['Missing value'] })
  })

  it('answers Not found: User for an unknown or deleted user', async () => {
    const a = await t.make.user()
    const gone = await t.make.user()
    await t.ok('user_delete', { id: gone.id }, sys)
    for (const id of ['no-such-user', { x: 1 }, gone.id])
      expectInvalid(await t.call('follow_user', { id }, a), { id: ['Not found: User'] })
  })

  it('refuses to follow yourself', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('follow_user', { id: a.name }, a), {
      message: 'You cannot follow yourself',
    })
    expectInvalid(await t.call('follow_user', { id: sys.id }, sys), {
      message: 'You cannot follow yourself',
    })
  })

  it('refuses to follow twice, naming the display name', async () => {
    const a = await t.make.user()
    const full = await t.make.user({ fullname: 'Joe Bloggs' })
    const plain = await t.make.user()
    await t.ok('follow_user', { id: full.id }, a)
    await t.ok('follow_user', { id: plain.id }, a)
    expectInvalid(await t.call('follow_user', { id: full.name }, a), {
      message: 'You are already following Joe Bloggs',
    })
    expectInvalid(await t.call('follow_user', { id: plain.id }, a), {
      message: `You are already following ${plain.name}`,
    })
    expect(await followerRows(full.id)).toBe(1)
  })

  it('keeps one row when two follows race', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const [r1, r2] = await Promise.all([
      t.call('follow_user', { id: b.id }, a),
      t.call('follow_user', { id: b.id }, a),
    ])
    expect([r1.status, r2.status].sort()).toEqual([200, 409])
    const lost = r1.status === 409 ? r1 : r2
    expect(lost.body.error.message).toBe(`You are already following ${b.name}`)
    expect(await followerRows(b.id)).toBe(1)
  })

  it('is not callable with GET', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const r = await t.get(`/api/3/action/follow_user?id=${b.id}`, a)
    expect(r.status).toBe(400)
    expect(await followerRows(b.id)).toBe(0)
  })
})

describe('follow_dataset', () => {
  it('follows a public dataset by name', async () => {
    const a = await t.make.user()
    const ds = await t.make.dataset(sys)
    const res = await t.ok('follow_dataset', { id: ds.name }, a)
    expect(res).toEqual({
      follower_id: a.id,
      object_id: ds.id,
      datetime: expect.stringMatching(ISO),
    })
    expect(await t.ok('am_following_dataset', { id: ds.id }, a)).toBe(true)
  })

  it('refuses an anonymous caller with CKAN message', async () => {
    const ds = await t.make.dataset(sys)
    expectDenied(
      await t.call('follow_dataset', { id: ds.id }),
      'Access denied: You must be logged in to follow a dataset.',
    )
  })

  it('answers Missing value and Not found: Dataset', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('follow_dataset', {}, a), { id: ['Missing value'] })
    expectInvalid(await t.call('follow_dataset', { id: 'no-such-dataset' }, a), {
      id: ['Not found: Dataset'],
    })
  })

  it('names the title, else the name, when already following', async () => {
    const a = await t.make.user()
    const titled = await t.make.dataset(sys, { title: 'War and Peace' })
    const bare = await t.make.dataset(sys, { title: '' })
    for (const ds of [titled, bare]) await t.ok('follow_dataset', { id: ds.id }, a)
    expectInvalid(await t.call('follow_dataset', { id: titled.id }, a), {
      message: 'You are already following War and Peace',
    })
    expectInvalid(await t.call('follow_dataset', { id: bare.name }, a), {
      message: `You are already following ${bare.name}`,
    })
  })

  it('treats a private dataset as unknown to those who may not read it', async () => {
    const { ds } = await privateDataset()
    const outsider = await t.make.user()
    for (const id of [ds.id, ds.name])
      expectInvalid(await t.call('follow_dataset', { id }, outsider), {
        id: ['Not found: Dataset'],
      })
    expect(await followerRows(ds.id)).toBe(0)
  })

  it('lets members and sysadmins follow a private dataset', async () => {
    const { ds, member } = await privateDataset()
    await t.ok('follow_dataset', { id: ds.id }, member)
    await t.ok('follow_dataset', { id: ds.id }, sys)
    expect(await followerRows(ds.id)).toBe(2)
  })

  it('answers Not found: Dataset for a deleted dataset, even to sysadmins', async () => {
    const ds = await t.make.dataset(sys)
    await t.ok('package_delete', { id: ds.id }, sys)
    expectInvalid(await t.call('follow_dataset', { id: ds.id }, sys), {
      id: ['Not found: Dataset'],
    })
  })
})

describe('follow_group', () => {
  it('follows groups and organizations', async () => {
    const a = await t.make.user()
    const g = await t.make.group(sys)
    const o = await t.make.organization(sys)
    expect(await t.ok('follow_group', { id: g.name }, a)).toMatchObject({ object_id: g.id })
    expect(await t.ok('follow_group', { id: o.name }, a)).toMatchObject({ object_id: o.id })
    expect(await t.ok('am_following_group', { id: o.id }, a)).toBe(true)
  })

  it('refuses an anonymous caller with CKAN message', async () => {
    const g = await t.make.group(sys)
    expectDenied(
      await t.call('follow_group', { id: g.id }),
      'Access denied: You must be logged in to follow a group.',
    )
  })

  it('answers Missing value and Not found: Group', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('follow_group', { id: '' }, a), { id: ['Missing value'] })
    expectInvalid(await t.call('follow_group', { id: 'no-such-group' }, a), {
      id: ['Not found: Group'],
    })
  })

  it('names the display name when already following', async () => {
    const a = await t.make.user()
    const g = await t.make.group(sys, { title: 'Climate' })
    await t.ok('follow_group', { id: g.id }, a)
    expectInvalid(await t.call('follow_group', { id: g.id }, a), {
      message: 'You are already following Climate',
    })
  })

  it('answers Not found: Group for a deleted group', async () => {
    const a = await t.make.user()
    const g = await t.make.group(sys)
    await t.ok('group_delete', { id: g.id }, sys)
    expectInvalid(await t.call('follow_group', { id: g.id }, a), { id: ['Not found: Group'] })
  })
})

describe('unfollow_user / unfollow_dataset / unfollow_group', () => {
  it('stops following and returns null', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    await t.ok('follow_user', { id: b.id }, a)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    for (const [name, id] of [
      ['unfollow_user', b.name],
      ['unfollow_dataset', ds.name],
      ['unfollow_group', g.name],
    ] as const) {
      const r = await t.call(name, { id }, a)
      expect(r.status).toBe(200)
      expect(r.body.result).toBeNull()
    }
    expect(await t.ok('am_following_user', { id: b.id }, a)).toBe(false)
    expect(await t.ok('am_following_dataset', { id: ds.id }, a)).toBe(false)
    expect(await t.ok('am_following_group', { id: g.id }, a)).toBe(false)
    for (const id of [b.id, ds.id, g.id]) expect(await followerRows(id)).toBe(0)
    // and following again works
    await t.ok('follow_user', { id: b.id }, a)
    expect(await t.ok('user_follower_count', { id: b.id })).toBe(1)
  })

  it('answers 404 with the id as sent when not following', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const ds = await t.make.dataset(sys)
    const o = await t.make.organization(sys)
    for (const [name, id] of [
      ['unfollow_user', b.name],
      ['unfollow_dataset', ds.id],
      ['unfollow_group', o.name],
    ] as const) {
      const r = await t.call(name, { id }, a)
      expect(r.status).toBe(404)
      expect(r.body.error).toEqual({
        __type: 'Not Found Error',
        message: `Not found: You are not following ${id}.`,
      })
    }
  })

  it('does not remove what another user follows', async () => {
    const a = await t.make.user()
    const other = await t.make.user()
    const b = await t.make.user()
    await t.ok('follow_user', { id: b.id }, other)
    expect((await t.call('unfollow_user', { id: b.id }, a)).status).toBe(404)
    expect(await t.ok('am_following_user', { id: b.id }, other)).toBe(true)
  })

  it('refuses anonymous callers with CKAN message', async () => {
    const b = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    for (const [name, id] of [
      ['unfollow_user', b.id],
      ['unfollow_dataset', ds.id],
      ['unfollow_group', g.id],
    ] as const)
      expectDenied(
        await t.call(name, { id }),
        'Access denied: You must be logged in to unfollow something.',
      )
  })

  it('refuses a deleted user', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    await t.ok('follow_user', { id: b.id }, a)
    await t.ok('user_delete', { id: a.id }, sys)
    expectDenied(await t.call('unfollow_user', { id: b.id }, a), 'Access denied')
  })

  it('answers Missing value and Not found per kind', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('unfollow_user', {}, a), { id: ['Missing value'] })
    expectInvalid(await t.call('unfollow_user', { id: 'nobody-here' }, a), {
      id: ['Not found: User'],
    })
    expectInvalid(await t.call('unfollow_dataset', { id: 'nothing-here' }, a), {
      id: ['Not found: Dataset'],
    })
    expectInvalid(await t.call('unfollow_group', { id: 'nothing-here' }, a), {
      id: ['Not found: Group'],
    })
  })

  it('lets a follower let go of a dataset that went private; to others it stays unknown', async () => {
    const admin = await t.make.user()
    const org = await t.make.organization(admin)
    const ds = await t.make.dataset(admin, { owner_org: org.id })
    const a = await t.make.user()
    const b = await t.make.user()
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    expectInvalid(await t.call('unfollow_dataset', { id: ds.id }, b), {
      id: ['Not found: Dataset'],
    })
    expect(await t.ok('unfollow_dataset', { id: ds.id }, a)).toBeNull()
    expectInvalid(await t.call('unfollow_dataset', { id: ds.id }, a), {
      id: ['Not found: Dataset'],
    })
    await t.ok('package_patch', { id: ds.id, private: false }, admin)
    expect(await t.ok('am_following_dataset', { id: ds.id }, a)).toBe(false)
  })

  it('says "not following" for a deleted group, as CKAN', async () => {
    const a = await t.make.user()
    const g = await t.make.group(sys)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('group_delete', { id: g.id }, sys)
    const r = await t.call('unfollow_group', { id: g.id }, a)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe(`Not found: You are not following ${g.id}.`)
  })
})

describe('am_following_user / am_following_dataset / am_following_group', () => {
  it('answers true or false, also over GET', async () => {
    const a = await t.make.user()
    const b = await t.make.user()
    const c = await t.make.user()
    await t.ok('follow_user', { id: b.id }, a)
    expect(await t.ok('am_following_user', { id: b.name }, a)).toBe(true)
    expect(await t.ok('am_following_user', { id: c.id }, a)).toBe(false)
    expect(await t.ok('am_following_user', { id: a.id }, b)).toBe(false)
    const r = await t.get(`/api/3/action/am_following_user?id=${b.name}`, a)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, result: true })
  })

  it('refuses anonymous callers with a bare Access denied once the id is valid', async () => {
    const b = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    expectDenied(await t.call('am_following_user', { id: b.id }), 'Access denied')
    expectDenied(await t.call('am_following_dataset', { id: ds.id }), 'Access denied')
    expectDenied(await t.call('am_following_group', { id: g.id }), 'Access denied')
    // ckan validates the id first
    expectInvalid(await t.call('am_following_user', { id: 'nobody-here' }), {
      id: ['Not found: User'],
    })
  })

  it('answers Missing value and Not found per kind', async () => {
    const a = await t.make.user()
    expectInvalid(await t.call('am_following_user', {}, a), { id: ['Missing value'] })
    expectInvalid(await t.call('am_following_dataset', { id: 'nothing-here' }, a), {
      id: ['Not found: Dataset'],
    })
    expectInvalid(await t.call('am_following_group', { id: 'nothing-here' }, a), {
      id: ['Not found: Group'],
    })
  })

  it('treats a private dataset as unknown to a non-member, and answers members', async () => {
    const { ds, member } = await privateDataset()
    const outsider = await t.make.user()
    expectInvalid(await t.call('am_following_dataset', { id: ds.id }, outsider), {
      id: ['Not found: Dataset'],
    })
    expect(await t.ok('am_following_dataset', { id: ds.id }, member)).toBe(false)
    await t.ok('follow_dataset', { id: ds.id }, member)
    expect(await t.ok('am_following_dataset', { id: ds.id }, member)).toBe(true)
  })

  it('answers false for a deleted object that was followed', async () => {
    const a = await t.make.user()
    const ds = await t.make.dataset(sys)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('package_delete', { id: ds.id }, sys)
    expect(await t.ok('am_following_dataset', { id: ds.id }, sys)).toBe(false)
  })

  it('gives sysadmins their own answer', async () => {
    const b = await t.make.user()
    expect(await t.ok('am_following_user', { id: b.id }, sys)).toBe(false)
    await t.ok('follow_user', { id: b.id }, sys)
    expect(await t.ok('am_following_user', { id: b.id }, sys)).toBe(true)
  })

  it('refuses an anonymous caller with the same Access denied where auth is skipped', async () => {
    const b = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    const skipped = { ...systemContext(t.deps), ignoreAuth: true }
    for (const [name, id] of [['am_following_user', b.id], ['am_following_dataset', ds.id], ['am_following_group', g.id]]) {
      await expect(invoke(skipped, registry.get(name)!, { id })).rejects.toMatchObject({
        type: 'Authorization Error',
        message: 'Access denied',
      })
      // the id is still checked first
      await expect(invoke(skipped, registry.get(name)!, {})).rejects.toMatchObject({
        type: 'Validation Error',
      })
    }
  })
})

describe('follower rows left behind', () => {
  it('ignore rows whose object or follower no longer exists', async () => {
    const a = await t.make.user()
    const datetime = '2020-01-01T00:00:00.000000'
    await t.db.insert(followers).values([
      { follower_id: a.id, object_id: crypto.randomUUID(), object_type: 'dataset', datetime },
      { follower_id: crypto.randomUUID(), object_id: a.id, object_type: 'user', datetime },
      { follower_id: a.id, object_id: crypto.randomUUID(), object_type: 'group', datetime },
    ])
    expect(await t.ok('user_follower_count', { id: a.id })).toBe(0)
    expect(await t.ok('followee_count', { id: a.id })).toBe(0)
    expect(await t.ok('followee_list', { id: a.id }, a)).toEqual([])
    expect(await t.ok('user_follower_list', { id: a.id }, sys)).toEqual([])
  })

  it('are gone after a dataset or group purge, and lists still work', async () => {
    const a = await t.make.user()
    const ds = await t.make.dataset(sys)
    const g = await t.make.group(sys)
    await t.ok('follow_dataset', { id: ds.id }, a)
    await t.ok('follow_group', { id: g.id }, a)
    await t.ok('dataset_purge', { id: ds.id }, sys)
    await t.ok('group_purge', { id: g.id }, sys)
    expect(await followerRows(ds.id)).toBe(0)
    expect(await followerRows(g.id)).toBe(0)
    expect(await t.ok('followee_list', { id: a.id }, a)).toEqual([])
    expect(await t.ok('followee_count', { id: a.id }, a)).toBe(0)
  })
})
