// API keys and tokens by api_compat: 2.9 takes legacy keys and tokens, 2.10 and 2.11 tokens only
// (user_generate_apikey gone); the header names; pages authenticated by header, CSRF exemption.
import { beforeAll, describe, expect, it } from 'vitest'
import { callAction } from '../../src/actions/call'
import { contextFor } from '../../src/http/request-context'
import { addSysadmin } from '../../src/model/sysadmin'
import { uniq } from '../helpers/make'
import { browser, signIn } from '../helpers/web-browser'
import { setup, type TestEnv } from '../helpers/setup'

interface Who {
  id: string
  name: string
  apikey: string
  token: string
}

/** A sysadmin (as the CLI makes one) with a legacy key and a token. */
async function sysadmin(t: TestEnv): Promise<Who> {
  const row = await addSysadmin(t.deps, uniq('sysadmin'), { password: 'password123' })
  const { token } = await callAction<{ token: string }>(contextFor(t.deps, row), 'api_token_create', { user: row.name, name: 'test' })
  return { id: row.id, name: row.name, apikey: row.apikey!, token }
}

/** A plain user made through user_create with_apitoken, as a 2.11 client would. */
async function user(t: TestEnv, admin: Who): Promise<Who> {
  const name = uniq('user')
  const res = await t.app.request('/api/3/action/user_create', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: admin.token },
    body: JSON.stringify({ name, email: `${name}@example.com`, password: 'password123', with_apitoken: true }),
  })
  const { result } = await res.json()
  return { id: result.id, name, apikey: result.apikey, token: result.token }
}

const post = (t: TestEnv, name: string, data: object, headers: Record<string, string> = {}) =>
  t.app.request(`/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(data),
  })

/** Who the API thinks the caller is: the name api_token_list accepts, or null (refused). */
async function callerOf(t: TestEnv, who: Who, headers: Record<string, string>): Promise<string | null> {
  const res = await post(t, 'api_token_list', { user: who.name }, headers)
  return res.status === 200 ? who.name : null
}

describe.each(['2.9', '2.10', '2.11'])('API keys and tokens under api_compat %s', (version) => {
  const modern = version !== '2.9'
  let t: TestEnv
  let admin: Who
  beforeAll(async () => {
    t = await setup({ 'service.api_compat': version, 'service.auth.create_default_api_keys': 'false' })
    admin = await sysadmin(t)
  })

  it(modern ? 'refuses a legacy API key as a credential (anonymous)' : 'accepts a legacy API key', async () => {
    expect(admin.apikey).toMatch(/^[0-9a-f-]{36}$/)
    expect(await callerOf(t, admin, { authorization: admin.apikey })).toBe(modern ? null : admin.name)
    expect(await callerOf(t, admin, { 'X-CKAN-API-Key': admin.apikey })).toBe(modern ? null : admin.name)
  })

  it('accepts an API token', async () => {
    expect(await callerOf(t, admin, { authorization: admin.token })).toBe(admin.name)
    expect(await callerOf(t, admin, { authorization: `Bearer ${admin.token}` })).toBe(admin.name)
    expect(await callerOf(t, admin, { 'X-CKAN-API-Key': admin.token })).toBe(admin.name)
  })

  it(modern ? 'answers user_generate_apikey as an unknown action' : 'offers user_generate_apikey', async () => {
    const u = await user(t, admin)
    const res = await post(t, 'user_generate_apikey', { id: u.name }, { authorization: u.token })
    if (modern) {
      expect(res.status).toBe(400)
      expect(await res.json()).toBe('Bad request - Action name not known: user_generate_apikey')
      // anonymous callers too: the action does not exist, and has no help
      const anon = await post(t, 'user_generate_apikey', { id: u.name })
      expect(anon.status).toBe(400)
      expect((await post(t, 'help_show', { name: 'user_generate_apikey' })).status).toBe(404)
    } else {
      expect(res.status).toBe(200)
      const { result } = await res.json()
      expect(result.apikey).toMatch(/^[0-9a-f-]{36}$/)
      expect(result.apikey).not.toBe(u.apikey)
      expect((await post(t, 'help_show', { name: 'user_generate_apikey' })).status).toBe(200)
    }
  })

  it('keeps apikey in the dict the user themself sees, as CKAN 2.10 and 2.11 do (null unless keys are made)', async () => {
    const u = await user(t, admin)
    const res = await post(t, 'user_show', { id: u.name }, { authorization: u.token })
    const { result } = await res.json()
    expect(result).toHaveProperty('apikey', null)
    const other = await post(t, 'user_show', { id: u.name })
    expect((await other.json()).result).not.toHaveProperty('apikey')
  })
})

describe.each(['2.9', '2.11'])('apitoken_header_name under api_compat %s', (version) => {
  let t: TestEnv
  let admin: Who
  beforeAll(async () => {
    t = await setup({ 'service.api_compat': version, apitoken_header_name: 'X-CKAN-API-TOKEN' })
    admin = await sysadmin(t)
  })

  it('reads the token from the configured header, and from the usual ones', async () => {
    expect(await callerOf(t, admin, { 'X-CKAN-API-TOKEN': admin.token })).toBe(admin.name)
    expect(await callerOf(t, admin, { authorization: admin.token })).toBe(admin.name)
    expect(await callerOf(t, admin, { 'X-CKAN-API-Key': admin.token })).toBe(admin.name)
    expect(await callerOf(t, admin, { 'X-Other': admin.token })).toBe(null)
  })

  it('still reads apikey_header_name, the name of CKAN 2.9 and 2.10', async () => {
    const t2 = await setup({ 'service.api_compat': version, apikey_header_name: 'X-Legacy-Name' })
    const a2 = await sysadmin(t2)
    expect(await callerOf(t2, a2, { 'X-Legacy-Name': a2.token })).toBe(a2.name)
  })
})

describe.each(['2.9', '2.10'])('web pages and a key in the headers under api_compat %s', (version) => {
  const modern = version !== '2.9'
  let t: TestEnv
  let admin: Who
  beforeAll(async () => {
    t = await setup({ 'service.api_compat': version })
    admin = await sysadmin(t)
    await post(t, 'package_create', { name: 'tok-private', private: true, owner_org: (await (await post(t, 'organization_create', { name: uniq('org') }, { authorization: admin.token })).json()).result.id }, { authorization: admin.token })
  })

  const page = (path: string, headers: Record<string, string> = {}) => t.app.request(path, { headers })

  it('shows a page to the caller a token names, and to the caller a legacy key names under 2.9 only', async () => {
    expect((await page('/dataset/tok-private')).status).toBe(404)
    expect((await page('/dataset/tok-private', { authorization: admin.token })).status).toBe(200)
    expect((await page('/dataset/tok-private', { 'X-CKAN-API-Key': admin.token })).status).toBe(200)
    expect((await page('/dataset/tok-private', { authorization: admin.apikey })).status).toBe(modern ? 404 : 200)
  })

  it('takes a form post authenticated by header without the CSRF token', async () => {
    await post(t, 'package_create', { name: 'tok-doomed' }, { authorization: admin.token })
    const res = await t.app.request('/dataset/delete/tok-doomed', {
      method: 'POST',
      redirect: 'manual',
      headers: { authorization: admin.token, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    })
    expect(res.status).toBe(303)
    const shown = await (await post(t, 'package_show', { id: 'tok-doomed' }, { authorization: admin.token })).json()
    expect(shown.result.state).toBe('deleted')
  })

  it('still needs the CSRF token from a browser signed in by cookie', async () => {
    await post(t, 'package_create', { name: 'tok-kept' }, { authorization: admin.token })
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, admin.name, 'password123')
    expect((await b.post('/dataset/delete/tok-kept', {})).res.status).toBe(403)
    // a wrong key in the header does not lift the check either
    expect((await b.post('/dataset/delete/tok-kept', {}, { authorization: 'not-a-key' })).res.status).toBe(403)
    const shown = await (await post(t, 'package_show', { id: 'tok-kept' }, { authorization: admin.token })).json()
    expect(shown.result.state).toBe('active')
    // the Action API reads the session cookie from 2.10 (enable_cookie_auth_in_api), and a post it
    // signs in needs the CSRF token there too; under 2.9 the cookie is not read: anonymous
    const api = await t.app.request('/api/3/action/api_token_list', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: JSON.stringify({ user: admin.name }),
    })
    expect(api.status).toBe(modern ? 400 : 403)
    const error = ((await api.json()) as any).error
    expect(error.message).toBe(
      modern ? 'The CSRF token is missing.' : 'Access denied: Action api_token_list requires an authenticated user',
    )
  })
})
