// api_token_create / api_token_list / api_token_revoke: results, validation, refusals, and CKAN 2.9's token-only flow.
import { eq } from 'drizzle-orm'
import { decode } from 'hono/jwt'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiTokens } from '../../src/db/schema'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
beforeAll(async () => {
  t = await setup()
})

const token = async (user: { name: string }, as: Caller, extra: object = {}): Promise<string> =>
  (await t.ok('api_token_create', { user: user.name, name: 'a token', ...extra }, as)).token
const asToken = (tok: string): Caller => ({ apikey: tok })
const rowOf = async (jti: string) =>
  (await t.db.select().from(apiTokens).where(eq(apiTokens.id, jti)))[0]
const jtiOf = (tok: string) => decode(tok).payload.jti as string

describe('api_token_create', () => {
  it('returns a signed JWT whose jti names the stored row, and stores nothing else of it', async () => {
    const user = await t.make.user()
    const res = await t.call('api_token_create', { user: user.name, name: 'laptop' }, user)
    expect(res.status).toBe(200)
    expect(Object.keys(res.body.result)).toEqual(['token'])
    const tok: string = res.body.result.token
    const { header, payload } = decode(tok)
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(Object.keys(payload).sort()).toEqual(['iat', 'jti'])
    // ckan: the id is token_urlsafe(32)
    expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const row = await rowOf(payload.jti as string)
    expect(row).toMatchObject({
      name: 'laptop',
      user_id: user.id,
      last_access: null,
      expires_at: null,
    })
    expect(payload.iat).toBe(Math.floor(Date.parse(row!.created_at + 'Z') / 1000))
    expect(JSON.stringify(row)).not.toContain(tok.split('.')[2])
  })

  it('accepts the user by id and lets a sysadmin create tokens for anyone', async () => {
    const admin = await t.make.sysadmin()
    const user = await t.make.user()
    const res = await t.call('api_token_create', { user: user.id, name: 'for you' }, admin)
    expect(res.body.success).toBe(true)
    expect((await rowOf(jtiOf(res.body.result.token)))!.user_id).toBe(user.id)
  })

  it('puts an expiry in the claims and the row: expires_in times unit, as a number or a word', async () => {
    const user = await t.make.user()
    for (const [unit, seconds] of [
      [undefined, 90],
      [60, 90 * 60],
      ['hours', 90 * 3600],
      ['day', 90 * 86400],
      ['86400', 90 * 86400],
    ] as const) {
      const tok = await token(user, user, { expires_in: 90, ...(unit !== undefined && { unit }) })
      const { payload } = decode(tok)
      expect(payload.exp! - payload.iat!, String(unit)).toBe(seconds)
      const row = await rowOf(payload.jti as string)
      expect(Date.parse(row!.expires_at! + 'Z')).toBe(payload.exp! * 1000)
    }
  })

  it('reports missing parameters as CKAN does, before looking at the caller', async () => {
    const user = await t.make.user()
    const admin = await t.make.sysadmin()
    for (const as of [user, admin, null]) {
      const r = await t.call('api_token_create', {}, as)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({
        __type: 'Validation Error',
        user: ['Missing value'],
        name: ['Missing value'],
      })
    }
    const empty = await t.call('api_token_create', { user: user.name, name: '' }, user)
    expect(empty.body.error).toEqual({ __type: 'Validation Error', name: ['Missing value'] })
  })

  it('answers Not found for an unknown user', async () => {
    const user = await t.make.user()
    for (const ref of ['no-such-user', '']) {
      const r = await t.call('api_token_create', { user: ref, name: 'x' }, user)
      expect(r.status).toBe(404)
      expect(r.body.error).toEqual({
        __type: 'Not Found Error',
        message: 'Not found: User not found',
      })
    }
    const admin = await t.make.sysadmin()
    const r = await t.call('api_token_create', { user: 'no-such-user', name: 'x' }, admin)
    expect(r.body.error.message).toBe('Not found: User not found')
  })

  it('answers a user that is a dict whose toString is not a function without a 500', async () => {
    // found by the fuzzer: String() of {"toString": {...}} threw
    const user = await t.make.user()
    const odd = { toString: { a: 1 } }
    for (const name of ['api_token_create', 'api_token_list']) {
      const r = await t.call(name, { user: odd, name: 'x' }, user)
      expect(r.status, name).toBeLessThan(500)
      expect(r.body.success, name).toBe(false)
    }
  })

  it('validates expires_in and unit', async () => {
    const user = await t.make.user()
    const create = (extra: object) =>
      t.call('api_token_create', { user: user.name, name: 'x', ...extra }, user)
    const cases: [object, object][] = [
      [{ expires_in: 'soon' }, { expires_in: ['Invalid integer'] }],
      [{ expires_in: 0 }, { expires_in: ['Must be a postive integer'] }],
      [{ expires_in: -5 }, { expires_in: ['Must be a postive integer'] }],
      [
        { expires_in: 1, unit: 'fortnights' },
        { unit: ['Must be a positive number of seconds or one of seconds, minutes, hours, days'] },
      ],
      [
        { expires_in: 1, unit: 0 },
        { unit: ['Must be a positive number of seconds or one of seconds, minutes, hours, days'] },
      ],
      [{ unit: 'days' }, { expires_in: ['Missing value'] }],
      [
        { expires_in: 9_000_000, unit: 'days' },
        { expires_in: ['The token would expire after the year 9999'] },
      ],
    ]
    for (const [params, errors] of cases) {
      const r = await create(params)
      expect(r.status, JSON.stringify(params)).toBe(409)
      expect(r.body.error, JSON.stringify(params)).toEqual({
        __type: 'Validation Error',
        ...errors,
      })
    }
  })

  it('refuses anonymous callers and other users', async () => {
    const user = await t.make.user()
    const other = await t.make.user()
    const anon = await t.call('api_token_create', { user: user.name, name: 'x' })
    expect(anon.status).toBe(403)
    expect(anon.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Action api_token_create requires an authenticated user',
    })
    const r = await t.call('api_token_create', { user: user.id, name: 'x' }, other)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to create API tokens for user ${user.name}`,
    )
    const rows = await t.db.select().from(apiTokens).where(eq(apiTokens.user_id, user.id))
    expect(rows).toEqual([])
  })
})

describe('api_token_list', () => {
  it('lists the tokens of a user, oldest first, without the tokens themselves', async () => {
    const user = await t.make.user()
    const first = await token(user, user, { name: 'first' })
    const second = await token(user, user, { name: 'second', expires_in: 1, unit: 'days' })
    const list = await t.ok('api_token_list', { user: user.name }, user)
    expect(list.map((x: { name: string }) => x.name)).toEqual(['first', 'second'])
    expect(list[0]).toEqual({
      id: jtiOf(first),
      name: 'first',
      user_id: user.id,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/),
      last_access: null,
      expires_at: null,
    })
    expect(list[1].id).toBe(jtiOf(second))
    expect(list[1].expires_at).toMatch(/^\d{4}-/)
    expect(JSON.stringify(list)).not.toContain(first)
  })

  it('accepts user_id (CKAN 2.9) and GET', async () => {
    const user = await t.make.user()
    await token(user, user)
    expect(await t.ok('api_token_list', { user_id: user.id }, user)).toHaveLength(1)
    const got = await t.get(`/api/3/action/api_token_list?user=${user.name}`, user)
    expect(got.status).toBe(200)
    expect(got.body.result).toHaveLength(1)
  })

  it('lets a sysadmin list anyone, and answers Not found for an unknown user to them', async () => {
    const admin = await t.make.sysadmin()
    const user = await t.make.user()
    await token(user, user)
    expect(await t.ok('api_token_list', { user: user.name }, admin)).toHaveLength(1)
    const r = await t.call('api_token_list', { user: 'no-such-user' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: User not found')
  })

  it('requires user', async () => {
    for (const as of [await t.make.user(), await t.make.sysadmin(), null]) {
      const r = await t.call('api_token_list', {}, as)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({ __type: 'Validation Error', user: ['Missing value'] })
    }
  })

  it('refuses anonymous callers, other users, and unknown users alike', async () => {
    const user = await t.make.user()
    const other = await t.make.user()
    const anon = await t.call('api_token_list', { user: user.name })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action api_token_list requires an authenticated user',
    )
    const r = await t.call('api_token_list', { user: user.name }, other)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to list API tokens of user ${user.name}`,
    )
    // ckan: the caller is checked before the lookup, so nobody learns which users exist here
    const unknown = await t.call('api_token_list', { user: 'no-such-user' }, other)
    expect(unknown.status).toBe(403)
    expect(unknown.body.error.message).toBe(
      `Access denied: User ${other.name} not authorized to list API tokens of user no-such-user`,
    )
  })
})

describe('api_token_revoke', () => {
  it('revokes by jti: the row goes and the token stops working', async () => {
    const user = await t.make.user()
    const tok = await token(user, user)
    expect(await t.ok('api_token_list', { user: user.name }, asToken(tok))).toHaveLength(1)
    const r = await t.call('api_token_revoke', { jti: jtiOf(tok) }, user)
    expect(r.body).toMatchObject({ success: true, result: null })
    expect(await rowOf(jtiOf(tok))).toBeUndefined()
    const after = await t.call('api_token_list', { user: user.name }, asToken(tok))
    expect(after.status).toBe(403)
  })

  it('revokes by the token itself, also with the token as the caller', async () => {
    const user = await t.make.user()
    const tok = await token(user, user)
    expect((await t.call('api_token_revoke', { token: tok }, asToken(tok))).body.success).toBe(true)
    expect(await rowOf(jtiOf(tok))).toBeUndefined()
  })

  it('revokes an expired token given as a string', async () => {
    const user = await t.make.user()
    const tok = await token(user, user, { expires_in: 1 })
    await new Promise((r) => setTimeout(r, 1100))
    expect((await t.call('api_token_revoke', { token: tok }, user)).body.success).toBe(true)
    expect(await rowOf(jtiOf(tok))).toBeUndefined()
  })

  it('lets a sysadmin revoke anyone\'s token, and do nothing for an unknown one', async () => {
    const admin = await t.make.sysadmin()
    const user = await t.make.user()
    const tok = await token(user, user)
    expect((await t.call('api_token_revoke', { jti: jtiOf(tok) }, admin)).body.result).toBeNull()
    expect(await rowOf(jtiOf(tok))).toBeUndefined()
    for (const params of [{ jti: 'no-such-token' }, { jti: 5 }, { token: 'not.a.token' }]) {
      const r = await t.call('api_token_revoke', params, admin)
      expect(r.body).toMatchObject({ success: true, result: null })
    }
  })

  it('requires token when no jti is given', async () => {
    const user = await t.make.user()
    for (const as of [user, null]) {
      const r = await t.call('api_token_revoke', {}, as)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({ __type: 'Validation Error', token: ['Missing value'] })
    }
  })

  it('refuses anonymous callers, and treats unknown tokens like other users\' tokens', async () => {
    const user = await t.make.user()
    const other = await t.make.user()
    const tok = await token(user, user)
    const anon = await t.call('api_token_revoke', { jti: jtiOf(tok) })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action api_token_revoke requires an authenticated user',
    )
    const refusal = `Access denied: User ${other.name} not authorized to revoke this API token`
    const refused = [{ jti: jtiOf(tok) }, { token: tok }, { jti: 'no-such' }, { token: 'x.y.z' }]
    for (const params of refused) {
      const r = await t.call('api_token_revoke', params, other)
      expect(r.status, JSON.stringify(params)).toBe(403)
      expect(r.body.error.message).toBe(refusal)
    }
    expect(await rowOf(jtiOf(tok))).toBeDefined()
    expect((await t.call('api_token_list', { user: user.name }, asToken(tok))).status).toBe(200)
  })
})

describe('CKAN 2.9 without default API keys', () => {
  it('works on tokens alone: a sysadmin hands one out, the user makes their own and publishes', async () => {
    const e = await setup({ 'service.auth.create_default_api_keys': 'false' })
    const admin = await e.make.sysadmin()
    const user = await e.ok(
      'user_create',
      { name: 'token-only', email: 'token-only@example.com', password: 'password123' },
      admin,
    )
    expect(user.apikey).toBeNull()
    const first = (
      await e.ok('api_token_create', { user: user.name, name: 'from admin' }, admin)
    ).token
    const second = (
      await e.ok('api_token_create', { user: user.id, name: 'my own' }, { apikey: first })
    ).token
    const ds = await e.ok(
      'package_create',
      { name: 'by-token', title: 'By token' },
      { apikey: second },
    )
    expect(ds.creator_user_id).toBe(user.id)
    const list = await e.ok('api_token_list', { user: user.name }, { apikey: second })
    expect(list.map((x: { name: string }) => x.name)).toEqual(['from admin', 'my own'])
  })
})
