// rating_create: one rating per user and dataset, the average and count, CKAN's messages, privacy.
import { beforeAll, describe, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { ratings } from '../../src/db/schema'
import { setup, type CallResult, type Caller, type TestEnv } from '../helpers/setup'
import { registry } from '../../src/actions'
import { invoke } from '../../src/actions/invoke'
import { systemContext } from '../../src/context'

type Who = Caller & { id: string; name: string }

let t: TestEnv
let sys: Who
let admin: Who // admin of org
let member: Who // member of org
let outsider: Who
let org: { id: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  admin = await t.make.user()
  member = await t.make.user()
  outsider = await t.make.user()
  org = await t.make.organization(admin)
  await t.ok(
    'organization_member_create',
    { id: org.id, username: member.name, role: 'member' },
    admin,
  )
})

function expectMessage(r: CallResult, message: string) {
  expect(r.status).toBe(409)
  expect(r.body.success).toBe(false)
  expect(r.body.error).toEqual({ __type: 'Validation Error', message })
}

const rowsOf = (packageId: string) =>
  t.db.select().from(ratings).where(eq(ratings.package_id, packageId))

describe('rating_create', () => {
  it('returns the average and the count of the dataset', async () => {
    const ds = await t.make.dataset(admin)
    const a = await t.make.user()
    const b = await t.make.user()
    const r = await t.call('rating_create', { package: ds.name, rating: 4 }, a)
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual({ 'rating average': 4, 'rating count': 1 })
    expect(await t.ok('rating_create', { package: ds.id, rating: 1 }, b)).toEqual({
      'rating average': 2.5,
      'rating count': 2,
    })
    const rows = await rowsOf(ds.id)
    expect(rows.map((x) => [x.user_id, x.rating]).sort()).toEqual(
      [
        [a.id, 4],
        [b.id, 1],
      ].sort(),
    )
  })

  it("replaces the user's earlier rating of the dataset", async () => {
    const ds = await t.make.dataset(admin)
    const a = await t.make.user()
    await t.ok('rating_create', { package: ds.id, rating: 5 }, a)
    await t.ok('rating_create', { package: ds.id, rating: 2 }, sys)
    expect(await t.ok('rating_create', { package: ds.id, rating: 3 }, a)).toEqual({
      'rating average': 2.5,
      'rating count': 2,
    })
    expect(await rowsOf(ds.id)).toHaveLength(2)
  })

  it('accepts a rating sent as text, and truncates a fraction as CKAN does', async () => {
    const ds = await t.make.dataset(admin)
    expect(await t.ok('rating_create', { package: ds.id, rating: '5' }, outsider)).toEqual({
      'rating average': 5,
      'rating count': 1,
    })
    expect(await t.ok('rating_create', { package: ds.id, rating: 4.9 }, outsider)).toEqual({
      'rating average': 4,
      'rating count': 1,
    })
  })

  it('leaves package_show as CKAN 2.9 has it: no rating keys', async () => {
    const ds = await t.make.dataset(admin)
    await t.ok('rating_create', { package: ds.id, rating: 3 }, outsider)
    const shown = await t.ok('package_show', { id: ds.id })
    expect(Object.keys(shown).filter((k) => k.includes('rating'))).toEqual([])
  })

  it("answers each of CKAN's messages", async () => {
    const ds = await t.make.dataset(admin)
    const cases: [Record<string, unknown>, string][] = [
      [{ rating: 3 }, 'You must supply a package id or name (parameter "package").'],
      [{ package: '', rating: 3 }, 'You must supply a package id or name (parameter "package").'],
      [{ package: ds.id }, 'You must supply a rating (parameter "rating").'],
      [{ package: ds.id, rating: 0 }, 'You must supply a rating (parameter "rating").'],
      [{ package: ds.id, rating: null }, 'You must supply a rating (parameter "rating").'],
      [{ package: ds.id, rating: 'three' }, 'Rating must be an integer value.'],
      [{ package: ds.id, rating: '2.5' }, 'Rating must be an integer value.'],
      [{ package: ds.id, rating: [3] }, 'Rating must be an integer value.'],
      [{ package: ds.id, rating: 6 }, 'Rating must be between 1 and 5.'],
      [{ package: ds.id, rating: -1 }, 'Rating must be between 1 and 5.'],
      [{ package: ds.id, rating: 5.5 }, 'Rating must be between 1 and 5.'],
      [{ package: ds.id, rating: '9' }, 'Rating must be between 1 and 5.'],
      [{ package: 'no-such-dataset', rating: 3 }, "Not found: 'no-such-dataset'"],
      // ckan checks the range before looking the dataset up
      [{ package: 'no-such-dataset', rating: 7 }, 'Rating must be between 1 and 5.'],
    ]
    for (const [params, message] of cases) {
      expectMessage(await t.call('rating_create', params, outsider), message)
    }
    expect(await rowsOf(ds.id)).toEqual([])
  })

  it('answers a private dataset the caller cannot read like an unknown one', async () => {
    const ds = await t.make.dataset(admin, { owner_org: org.id, private: true })
    expectMessage(
      await t.call('rating_create', { package: ds.name, rating: 3 }, outsider),
      `Not found: '${ds.name}'`,
    )
    expect(await rowsOf(ds.id)).toEqual([])
    for (const who of [member, admin, sys])
      expect((await t.call('rating_create', { package: ds.name, rating: 3 }, who)).status).toBe(200)
    expect(await rowsOf(ds.id)).toHaveLength(3)
  })

  it('refuses anonymous callers', async () => {
    const ds = await t.make.dataset(admin)
    const r = await t.call('rating_create', { package: ds.id, rating: 3 })
    expect(r.status).toBe(403)
    expect(r.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Action rating_create requires an authenticated user',
    })
    expect(await rowsOf(ds.id)).toEqual([])
  })

  it('refuses an anonymous caller with the same message where auth is skipped', async () => {
    const ds = await t.make.dataset(admin)
    const skipped = { ...systemContext(t.deps), ignoreAuth: true }
    await expect(
      invoke(skipped, registry.get('rating_create')!, { package: ds.id, rating: 3 }),
    ).rejects.toMatchObject({
      type: 'Authorization Error',
      message: 'Access denied: Action rating_create requires an authenticated user',
    })
    expect(await rowsOf(ds.id)).toEqual([])
  })

  it('is not callable with GET', async () => {
    const ds = await t.make.dataset(admin)
    const r = await t.get(`/api/3/action/rating_create?package=${ds.id}&rating=3`, outsider)
    expect(r.status).toBe(400)
    expect(await rowsOf(ds.id)).toEqual([])
  })
})
