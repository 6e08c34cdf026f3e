// API tokens as credentials: every API key header, refusals like a wrong key, revocation across processes, expiry, last_access.
import { eq } from 'drizzle-orm'
import { decode, sign } from 'hono/jwt'
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { apiTokens, changeLog, siteSecrets } from '../../src/db/schema'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { setup, TEST_PROFILE, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
beforeAll(async () => {
  t = await setup({ apikey_header_name: 'X-Non-Standard-CKAN-API-Key' })
})

/** Another server process on the same database file (its own caches and change-log position). */
async function secondProcess(file: string, overrides: Record<string, string> = {}) {
  const opened = await openCatalogDb(`file:${file}`)
  const deps = buildDeps(loadConfig({ ...TEST_PROFILE, ...overrides }), opened.db, {
    headProbe: opened.headProbe,
    writeExecutor: opened.writeExecutor,
    readExecutor: opened.readExecutor,
  })
  await warmUp(deps)
  const app = createApp(deps)
  const call = async (name: string, params: object, key?: string) => {
    const res = await app.request(`/api/3/action/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : {}) },
      body: JSON.stringify(params),
    })
    return { status: res.status, body: await res.json() }
  }
  return { deps, call }
}

const newToken = async (user: { name: string }, as: Caller, extra: object = {}): Promise<string> =>
  (await t.ok('api_token_create', { user: user.name, name: 'auth', ...extra }, as)).token
const jtiOf = (tok: string) => decode(tok).payload.jti as string
const rowOf = async (jti: string) =>
  (await t.db.select().from(apiTokens).where(eq(apiTokens.id, jti)))[0]

/** An action only its owner may call: success means the token authenticated as `user`. */
const listAs = (user: { name: string }, headers: Record<string, string>) =>
  t.app.request('/api/3/action/api_token_list', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ user: user.name }),
  })

/** What a wrong API key gets for the same call: the anonymous refusal. */
async function wrongKeyAnswer(user: { name: string }) {
  const res = await listAs(user, { authorization: 'not-a-key' })
  return { status: res.status, body: await res.json() }
}

describe('API token authentication', () => {
  it('accepts a token in every header an API key may come in', async () => {
    const user = await t.make.user()
    const tok = await newToken(user, user)
    const spellings: Record<string, string>[] = [
      { authorization: tok },
      { authorization: `Bearer ${tok}` },
      { 'X-CKAN-API-Key': tok },
      { 'X-SERVICE-API-Key': tok },
      { 'X-Non-Standard-CKAN-API-Key': tok },
    ]
    for (const headers of spellings) {
      const res = await listAs(user, headers)
      expect(res.status, JSON.stringify(Object.keys(headers))).toBe(200)
    }
  })

  it('refuses a badly signed token exactly like a wrong API key', async () => {
    const user = await t.make.user()
    const tok = await newToken(user, user)
    const expected = await wrongKeyAnswer(user)
    expect(expected.status).toBe(403)
    const [head, body, sig] = tok.split('.')
    const flipped = sig!.slice(0, -2) + (sig!.endsWith('AA') ? 'BB' : 'AA')
    const forged = await sign(decode(tok).payload, 'some other key', 'HS256')
    const none = `${btoa('{"alg":"none","typ":"JWT"}').replace(/=+$/, '')}.${body}.`
    for (const bad of [`${head}.${body}.${flipped}`, forged, none, `${head}.${body}`]) {
      const res = await listAs(user, { authorization: bad })
      expect({ status: res.status, body: await res.json() }, bad).toEqual(expected)
    }
  })

  it("refuses a deleted user's token like a wrong API key, even after it was cached", async () => {
    const admin = await t.make.sysadmin()
    const user = await t.make.user()
    const tok = await newToken(user, user)
    expect((await listAs(user, { authorization: tok })).status).toBe(200)
    await t.ok('user_delete', { id: user.id }, admin)
    const res = await listAs(user, { authorization: tok })
    expect({ status: res.status, body: await res.json() }).toEqual(await wrongKeyAnswer(user))
  })

  it('refuses a revoked token in another process that had it cached (the change log clears it)', async () => {
    const user = await t.make.user()
    const tok = await newToken(user, user)
    const other = await secondProcess(t.file)
    // The other process verifies the token with the key the first one generated, and caches it.
    expect((await other.call('api_token_list', { user: user.name }, tok)).status).toBe(200)
    expect((await other.call('api_token_list', { user: user.name }, tok)).status).toBe(200)
    await t.ok('api_token_revoke', { token: tok }, user)
    const after = await other.call('api_token_list', { user: user.name }, tok)
    expect(after.status).toBe(403)
    expect(after.body.error.message).toBe(
      'Access denied: Action api_token_list requires an authenticated user',
    )
  })

  it('accepts in another process a token it had looked up before it existed', async () => {
    const user = await t.make.user()
    const other = await secondProcess(t.file)
    const tok = await newToken(user, user)
    // Simulate a lookup that raced ahead of the insert (a lagging replica): cached as unknown.
    other.deps.caches.usersByKey.set(tok, null)
    await t.ok('api_token_create', { user: user.name, name: 'another' }, user)
    expect((await other.call('api_token_list', { user: user.name }, tok)).status).toBe(200)
  })

  it('does not make cached dataset dicts stale when tokens change', async () => {
    const user = await t.make.user()
    const before = t.deps.caches.packageGeneration
    const tok = await newToken(user, user)
    await t.ok('api_token_revoke', { token: tok }, user)
    await t.ok('site_read')
    expect(t.deps.caches.packageGeneration).toBe(before)
  })

  it('refuses an expired token, also once cached', async () => {
    const user = await t.make.user()
    const soon = await newToken(user, user, { expires_in: 1 })
    await new Promise((r) => setTimeout(r, 1100))
    const expected = await wrongKeyAnswer(user)
    const res = await listAs(user, { authorization: soon })
    expect({ status: res.status, body: await res.json() }).toEqual(expected)

    const realNow = t.deps.now
    try {
      const hour = await newToken(user, user, { expires_in: 1, unit: 'hours' })
      expect((await listAs(user, { authorization: hour })).status).toBe(200) // now cached
      const later = new Date(Date.now() + 3601_000).toISOString().slice(0, 23) + '000'
      t.deps.now = () => later
      const r = await listAs(user, { authorization: hour })
      expect({ status: r.status, body: await r.json() }).toEqual(expected)
    } finally {
      t.deps.now = realNow
    }
  })

  it('refuses a token whose row says it expired, whatever its claims', async () => {
    const user = await t.make.user()
    const tok = await newToken(user, user)
    await t.db
      .update(apiTokens)
      .set({ expires_at: '2000-01-01T00:00:00.000000' })
      .where(eq(apiTokens.id, jtiOf(tok)))
    const res = await listAs(user, { authorization: tok })
    expect({ status: res.status, body: await res.json() }).toEqual(await wrongKeyAnswer(user))
  })
})

describe('last_access', () => {
  const logSize = async () => (await t.db.select().from(changeLog)).length

  it('is written on use at most once a minute, without change-log entries', async () => {
    const user = await t.make.user()
    const tok = await newToken(user, user)
    const jti = jtiOf(tok)
    const realNow = t.deps.now
    const base = Date.now()
    const at = (ms: number) => new Date(base + ms).toISOString().slice(0, 23) + '000'
    const log = await logSize()
    try {
      t.deps.now = () => at(0)
      expect((await listAs(user, { authorization: tok })).status).toBe(200)
      expect((await rowOf(jti))!.last_access).toBe(at(0))
      t.deps.now = () => at(30_000)
      await listAs(user, { authorization: tok })
      expect((await rowOf(jti))!.last_access).toBe(at(0))
      // Another process has not written it, but the stored value is less than a minute old.
      const other = await secondProcess(t.file)
      other.deps.now = () => at(45_000)
      expect((await other.call('api_token_list', { user: user.name }, tok)).status).toBe(200)
      expect((await rowOf(jti))!.last_access).toBe(at(0))
      t.deps.now = () => at(61_000)
      await listAs(user, { authorization: tok })
      expect((await rowOf(jti))!.last_access).toBe(at(61_000))
      expect(await logSize()).toBe(log)
    } finally {
      t.deps.now = realNow
    }
  })
})

describe('token signing key', () => {
  it('is generated once per site, kept in site_secret, and agreed on by every process', async () => {
    const e = await setup()
    const user = await e.make.user()
    const [a, b] = await Promise.all([secondProcess(e.file), secondProcess(e.file)])
    const tok = (await e.ok('api_token_create', { user: user.name, name: 'x' }, user)).token
    const secrets = await e.db.select().from(siteSecrets)
    expect(secrets).toHaveLength(1)
    expect(secrets[0]!.value).toMatch(/^[0-9a-f]{64}$/)
    for (const p of [a, b])
      expect((await p.call('api_token_list', { user: user.name }, tok)).status).toBe(200)
  })

  it('comes from api_token.jwt.encode.secret when set ("string:" prefix accepted), never shown', async () => {
    const e = await setup({ 'api_token.jwt.encode.secret': 'string:s3cret-of-the-site' })
    const admin = await e.make.sysadmin()
    const user = await e.make.user()
    const tok = (await e.ok('api_token_create', { user: user.name, name: 'x' }, user)).token
    const again = await sign(decode(tok).payload, 's3cret-of-the-site', 'HS256')
    expect(again).toBe(tok)
    expect(await e.db.select().from(siteSecrets)).toEqual([])
    expect((await e.call('api_token_list', { user: user.name }, { apikey: tok })).status).toBe(200)
    expect(await e.ok('config_option_list', {}, admin)).not.toContain('api_token.jwt.encode.secret')
    const shown = await e.call('config_option_show', { key: 'api_token.jwt.encode.secret' }, admin)
    expect(shown.status).toBe(409)
    expect(JSON.stringify(shown.body)).not.toContain('s3cret')
  })

  it('verifies with api_token.jwt.decode.secret', async () => {
    const e = await setup({
      'api_token.jwt.encode.secret': 'string:one',
      'api_token.jwt.decode.secret': 'string:two',
    })
    const user = await e.make.user()
    const tok = (await e.ok('api_token_create', { user: user.name, name: 'x' }, user)).token
    expect((await e.call('api_token_list', { user: user.name }, { apikey: tok })).status).toBe(403)
  })
})
