// service.api_compat: the behaviours where CKAN 2.9, 2.10 and 2.11 differ, under 2.9 and 2.11.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }
let v29: TestEnv
let v211: TestEnv
let sys29: Who
let sys211: Who

beforeAll(async () => {
  v29 = await setup({ 'service.api_compat': '2.9' })
  v211 = await setup({ 'ckan.api_compat': '2.11' })
  sys29 = await v29.make.sysadmin()
  sys211 = await v211.make.sysadmin()
})

const each = () =>
  [
    ['2.9', () => ({ t: v29, sys: sys29 })],
    ['2.11', () => ({ t: v211, sys: sys211 })],
  ] as const

/** A user who follows two groups and one organization (and one deleted organization). */
async function groupFollower(t: TestEnv, sys: Who) {
  const fan = await t.make.user()
  const g1 = await t.make.group(sys)
  const g2 = await t.make.group(sys)
  const org = await t.make.organization(sys)
  const gone = await t.make.organization(sys)
  for (const g of [g1, g2, org, gone]) await t.ok('follow_group', { id: g.id }, fan)
  await t.ok('organization_delete', { id: gone.id }, sys)
  return fan
}

describe('organization_followee_count', () => {
  for (const [version, env] of each())
    it(`counts the live organizations a user follows (api_compat ${version})`, async () => {
      const { t, sys } = env()
      const fan = await groupFollower(t, sys)
      expect(await t.ok('organization_followee_count', { id: fan.name })).toBe(1)
      const res = await t.app.request(`/api/3/action/organization_followee_count?id=${fan.id}`)
      expect((await res.json()).result).toBe(1)
    })

  it('refuses an unknown user as the other followee counts do', async () => {
    const r = await v211.call('organization_followee_count', { id: 'nobody-here' })
    const same = await v211.call('group_followee_count', { id: 'nobody-here' })
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual(same.body.error)
    expect(r.body.error.__type).toBe('Validation Error')
  })
})

describe('group_followee_count', () => {
  it('counts organizations too under 2.9', async () => {
    const fan = await groupFollower(v29, sys29)
    expect(await v29.ok('group_followee_count', { id: fan.id })).toBe(3)
  })

  it('counts only groups under 2.11, as 2.10 split the count', async () => {
    const fan = await groupFollower(v211, sys211)
    expect(await v211.ok('group_followee_count', { id: fan.id })).toBe(2)
  })
})

describe('follow_dataset, follow_user, follow_group repeated', () => {
  async function targets(t: TestEnv, sys: Who) {
    const fan = await t.make.user()
    const other = await t.make.user()
    const ds = await t.make.dataset(sys)
    const group = await t.make.group(sys)
    return {
      fan,
      list: [
        ['follow_dataset', ds, ds.title],
        ['follow_user', other, other.name],
        ['follow_group', group, group.title],
      ] as const,
    }
  }

  it('refuses a second follow under 2.9 with CKAN 2.9 message', async () => {
    const { fan, list } = await targets(v29, sys29)
    for (const [action, obj, display] of list) {
      await v29.ok(action, { id: obj.id }, fan)
      const again = await v29.call(action, { id: obj.name }, fan)
      expect(again.status, action).toBe(409)
      expect(again.body.error, action).toEqual({
        __type: 'Validation Error',
        message: `You are already following ${display}`,
      })
    }
  })

  it('answers the existing follower dict to a second follow under 2.11', async () => {
    const { fan, list } = await targets(v211, sys211)
    for (const [action, obj] of list) {
      const first = await v211.ok(action, { id: obj.id }, fan)
      const again = await v211.call(action, { id: obj.name }, fan)
      expect(again.status, action).toBe(200)
      expect(again.body.result, action).toEqual(first)
      expect(first).toMatchObject({ follower_id: fan.id, object_id: obj.id })
    }
  })

  it('still refuses following yourself under 2.11', async () => {
    const fan = await v211.make.user()
    const r = await v211.call('follow_user', { id: fan.id }, fan)
    expect(r.body.error).toEqual({ __type: 'Validation Error', message: 'You cannot follow yourself' })
  })
})

describe('unfollow_* without following', () => {
  it('answers Not found under 2.9', async () => {
    const fan = await v29.make.user()
    const ds = await v29.make.dataset(sys29)
    const r = await v29.call('unfollow_dataset', { id: ds.name }, fan)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe(`Not found: You are not following ${ds.name}.`)
  })

  it('is no error under 2.11', async () => {
    const fan = await v211.make.user()
    const ds = await v211.make.dataset(sys211)
    const group = await v211.make.group(sys211)
    const other = await v211.make.user()
    for (const [action, id] of [
      ['unfollow_dataset', ds.id],
      ['unfollow_group', group.id],
      ['unfollow_user', other.id],
    ] as const) {
      const r = await v211.call(action, { id }, fan)
      expect(r.body, action).toMatchObject({ success: true, result: null })
    }
  })
})

describe('user_create with_apitoken', () => {
  for (const [version, env] of each()) {
    it(`returns a working token named default (api_compat ${version})`, async () => {
      const { t, sys } = env()
      const name = `tok-${version.replace('.', '')}-${Date.now().toString(36)}`
      const r = await t.call(
        'user_create',
        { name, email: `${name}@example.com`, password: 'password123', with_apitoken: true },
        sys,
      )
      expect(r.status).toBe(200)
      const token = r.body.result.token
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
      const me = await t.ok('api_token_list', { user_id: name }, { apikey: token })
      expect(me.map((x: { name: string }) => x.name)).toEqual(['default'])
    })

    it(`adds no token without with_apitoken or with it false (api_compat ${version})`, async () => {
      const { t, sys } = env()
      for (const flag of [{}, { with_apitoken: 'false' }]) {
        const name = `notok-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`
        const u = await t.ok('user_create', { name, email: `${name}@example.com`, password: 'password123', ...flag }, sys)
        expect(u).not.toHaveProperty('token')
      }
    })
  }
})

describe('id on package_create, group_create, organization_create', () => {
  const UUID = () => crypto.randomUUID()
  const creates = [
    ['package_create', 'dataset'],
    ['group_create', 'group'],
    ['organization_create', 'org'],
  ] as const
  const body = (prefix: string, id: unknown) => ({
    name: `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`,
    id,
  })

  it('lets anyone set a group or organization id under 2.9, any text, datasets only for sysadmins', async () => {
    const user = await v29.make.user()
    for (const [action, prefix] of creates) {
      const id = `my-own-${prefix}-${Math.random().toString(36).slice(2, 8)}`
      const r = await v29.call(action, body(prefix, id), user)
      if (action === 'package_create')
        expect(r.body.error).toEqual({ __type: 'Validation Error', id: ['The input field id was not expected.'] })
      else expect(r.body.result.id, action).toBe(id)
      const bySys = await v29.ok(action, body(prefix, `${id}-sys`), sys29)
      expect(bySys.id, action).toBe(`${id}-sys`)
    }
  })

  it('keeps 2.9 wording for a group id in use under 2.9', async () => {
    const g = await v29.make.group(sys29)
    const r = await v29.call('group_create', body('group', g.id), sys29)
    expect(r.body.error).toEqual({ __type: 'Validation Error', id: ['Group id already exists'] })
  })

  it('refuses an id from a non-sysadmin under 2.11', async () => {
    const user = await v211.make.user()
    for (const [action, prefix] of creates) {
      const r = await v211.call(action, body(prefix, UUID()), user)
      expect(r.status, action).toBe(409)
      expect(r.body.error, action).toEqual({
        __type: 'Validation Error',
        id: ['The input field id was not expected.'],
      })
    }
  })

  it('refuses an id that is not a UUID, even from a sysadmin, under 2.11', async () => {
    for (const [action, prefix] of creates) {
      const r = await v211.call(action, body(prefix, `not-a-uuid-${prefix}`), sys211)
      expect(r.body.error, action).toEqual({ __type: 'Validation Error', id: ['Invalid id provided'] })
    }
  })

  it("takes a sysadmin's UUID under 2.11, and refuses one in use with 2.11's words", async () => {
    for (const [action, prefix] of creates) {
      const id = UUID()
      const made = await v211.ok(action, body(prefix, id), sys211)
      expect(made.id, action).toBe(id)
      const again = await v211.call(action, body(prefix, id), sys211)
      const words = action === 'package_create' ? 'Dataset id already exists' : 'Id already exists'
      expect(again.body.error, action).toEqual({ __type: 'Validation Error', id: [words] })
    }
  })

  it('reports the id beside the other fields under 2.11', async () => {
    const taken = await v211.make.group(sys211)
    const g = await v211.call('group_create', { name: taken.name, id: 'nope' }, sys211)
    expect(g.body.error).toEqual({
      __type: 'Validation Error',
      id: ['Invalid id provided'],
      name: ['Group name already exists in database'],
    })
    const d = await v211.call('package_create', { name: 'x', id: 'nope' }, sys211)
    expect(d.body.error.id).toEqual(['Invalid id provided'])
    expect(d.body.error.name).toBeDefined()
  })
})
