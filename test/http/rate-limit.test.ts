// Rate limits (issue 35): per API token, per user and per anonymous address, by class of request,
// answered with 429, CKAN's error envelope, the IETF RateLimit/RateLimit-Policy headers and
// Retry-After; sysadmins exempt unless configured; the API, MCP, downloads and dumps alike.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { uniq } from '../helpers/make'
import { listen } from '../helpers/server'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { browser, signIn } from '../helpers/web-browser'

const LIMITS = {
  'service.ratelimit.enabled': 'true',
  'service.ratelimit.window_seconds': '3600',
  'service.ratelimit.client_address_header': 'X-Forwarded-For',
  'service.ratelimit.anonymous.reads': '3',
  'service.ratelimit.anonymous.searches': '2',
  'service.ratelimit.anonymous.datastore_sql': '1',
  'service.ratelimit.reads': '4',
  'service.ratelimit.writes': '2',
  'service.ratelimit.uploads': '1',
  'service.ratelimit.searches': '0',
  'service.ratelimit.datastore_sql': '2',
}

let t: TestEnv
let sys: Caller & { name: string }
let user: Caller & { name: string; id: string }
let dataset: { id: string; name: string; resources: { id: string }[] }

/** A GET of an action from an address, with optional headers. */
const getFrom = (address: string, path: string, headers: Record<string, string> = {}) =>
  t.app.request(path, { headers: { 'x-forwarded-for': `10.9.9.9, ${address}`, ...headers } })

const policy = (r: Response) => [r.headers.get('ratelimit-policy'), r.headers.get('ratelimit')]

beforeAll(async () => {
  t = await setup(LIMITS)
  sys = await t.make.sysadmin()
  user = await t.make.user()
  dataset = await t.ok('package_create', { name: uniq('limited'), resources: [{ url: 'http://example.com/a.csv', name: 'a' }] }, sys)
  await t.ok('datastore_create', { resource_id: dataset.resources[0]!.id, force: true, fields: [{ id: 'a', type: 'int' }], records: [{ a: 1 }] }, sys)
})

describe('anonymous callers, by address', () => {
  it('counts reads per address and answers the one past the limit 429 with the envelope and headers', async () => {
    const path = `/api/3/action/package_show?id=${dataset.id}`
    const seen: (string | null)[][] = []
    for (let i = 0; i < 3; i++) {
      const r = await getFrom('192.0.2.1', path)
      expect(r.status).toBe(200)
      seen.push(policy(r))
    }
    expect(seen.map((p) => p[0])).toEqual(Array(3).fill('"reads";q=3;w=3600'))
    expect(seen.map((p) => /r=(\d+)/.exec(p[1]!)![1])).toEqual(['2', '1', '0'])
    const refused = await getFrom('192.0.2.1', path)
    expect(refused.status).toBe(429)
    const body = await refused.json()
    expect(body.success).toBe(false)
    expect(body.help).toMatch(/help_show\?name=package_show$/)
    expect(body.error.__type).toBe('Too Many Requests')
    expect(body.error.message).toMatch(/^Rate limit exceeded: at most 3 reads every 3600 seconds for this address\. Try again in \d+ seconds\.$/)
    const [pol, rl] = policy(refused)
    expect(pol).toBe('"reads";q=3;w=3600')
    const m = /^"reads";r=0;t=(\d+)$/.exec(rl!)
    expect(m).not.toBeNull()
    const retry = Number(refused.headers.get('retry-after'))
    expect(retry).toBe(Number(m![1]))
    expect(retry).toBeGreaterThan(0)
    expect(retry).toBeLessThanOrEqual(3600)
    // another address has its own count; the same address stays refused
    expect((await getFrom('192.0.2.2', path)).status).toBe(200)
    expect((await getFrom('192.0.2.1', path)).status).toBe(429)
  })

  it('counts each class apart: searches and DataStore SQL have their own limits', async () => {
    const a = '192.0.2.10'
    for (let i = 0; i < 3; i++) expect((await getFrom(a, `/api/3/action/package_show?id=${dataset.id}`)).status).toBe(200)
    const s1 = await getFrom(a, '/api/3/action/package_search?q=x')
    expect(s1.status).toBe(200)
    expect(policy(s1)).toEqual(['"searches";q=2;w=3600', expect.stringMatching(/^"searches";r=1;t=\d+$/)])
    expect((await getFrom(a, '/api/3/action/package_search')).status).toBe(200)
    expect((await getFrom(a, '/api/3/action/package_search')).status).toBe(429)
    const sql = `/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT * FROM "${dataset.resources[0]!.id}"`)}`
    expect((await getFrom(a, sql)).status).toBe(200)
    const refused = await getFrom(a, sql)
    expect(refused.status).toBe(429)
    expect((await refused.json()).error.message).toMatch(/at most 1 datastore_search_sql calls every/)
  })

  it('counts a conditional GET answered 304, and an answer whose action failed', async () => {
    const a = '192.0.2.20'
    const first = await getFrom(a, `/api/3/action/package_show?id=${dataset.id}`)
    const etag = first.headers.get('etag')!
    const again = await getFrom(a, `/api/3/action/package_show?id=${dataset.id}`, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.headers.get('ratelimit')).toMatch(/^"reads";r=1;/)
    const missing = await getFrom(a, '/api/3/action/package_show?id=no-such-dataset')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('ratelimit')).toMatch(/^"reads";r=0;/)
    expect((await getFrom(a, `/api/3/action/package_show?id=${dataset.id}`)).status).toBe(429)
  })

  it('runs a JSONP call anonymously, so it counts against the address, not a token', async () => {
    const a = '192.0.2.30'
    for (let i = 0; i < 3; i++)
      expect((await getFrom(a, `/api/3/action/package_show?id=${dataset.id}&callback=cb`, { authorization: user.apikey })).status).toBe(200)
    expect((await getFrom(a, `/api/3/action/package_show?id=${dataset.id}&callback=cb`, { authorization: user.apikey })).status).toBe(429)
    // the token's own count is untouched
    const byToken = await getFrom(a, `/api/3/action/package_show?id=${dataset.id}`, { authorization: user.apikey })
    expect(byToken.status).toBe(200)
  })

  it('counts downloads and DataStore dumps as reads, refused as plain 429s with the headers', async () => {
    const a = '192.0.2.40'
    const dump = `/datastore/dump/${dataset.resources[0]!.id}`
    const r1 = await getFrom(a, dump)
    expect(r1.status).toBe(200)
    expect(r1.headers.get('ratelimit-policy')).toBe('"reads";q=3;w=3600')
    const dl = await getFrom(a, `/dataset/${dataset.id}/resource/${dataset.resources[0]!.id}/download`)
    expect(dl.status).toBe(302) // a linked file: a redirect to its URL
    expect(dl.headers.get('ratelimit')).toMatch(/^"reads";r=1;/)
    expect((await getFrom(a, dump)).status).toBe(200)
    const refused = await getFrom(a, `/dataset/${dataset.id}/resource/${dataset.resources[0]!.id}/download`)
    expect(refused.status).toBe(429)
    expect(await refused.text()).toMatch(/^429 Too Many Requests: Rate limit exceeded/)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await getFrom(a, dump)).status).toBe(429)
  })
})

describe('signed-in callers', () => {
  it('counts each API token apart (not by address), writes apart from reads', async () => {
    const tok = async () => ({ apikey: (await t.ok('api_token_create', { user: user.name, name: uniq('t') }, user)).token })
    const one = await tok()
    const two = await tok()
    for (let i = 0; i < 4; i++) expect((await getFrom(`198.51.100.${i}`, `/api/3/action/package_show?id=${dataset.id}`, { authorization: one.apikey })).status).toBe(200)
    const refused = await getFrom('198.51.100.9', `/api/3/action/package_show?id=${dataset.id}`, { authorization: one.apikey })
    expect(refused.status).toBe(429)
    expect((await refused.json()).error.message).toMatch(/at most 4 reads every 3600 seconds for this API token/)
    expect((await getFrom('198.51.100.9', `/api/3/action/package_show?id=${dataset.id}`, { authorization: two.apikey })).status).toBe(200)
    // writes: their own class; the refused write stores nothing
    const w1 = await t.call('package_create', { name: uniq('w') }, two)
    expect(w1.status).toBe(200)
    expect((await t.call('package_create', { name: uniq('w') }, two)).status).toBe(200)
    const name = uniq('w')
    const w3 = await t.call('package_create', { name }, two)
    expect(w3.status).toBe(429)
    expect(w3.body.error.__type).toBe('Too Many Requests')
    expect((await t.call('package_show', { id: name }, sys)).status).toBe(404)
  })

  it('counts a multipart write with a file as an upload, not as a write', async () => {
    const owner = await t.make.user()
    const ds = await t.make.dataset(owner)
    const form = () => {
      const f = new FormData()
      f.set('package_id', ds.id)
      f.set('name', 'file')
      f.set('upload', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'data.csv')
      return f
    }
    const post = () => t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: owner.apikey }, body: form() })
    const first = await post()
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-policy')).toBe('"uploads";q=1;w=3600')
    const second = await post()
    expect(second.status).toBe(429)
    const shown = await t.ok('package_show', { id: ds.id }, owner)
    expect(shown.resources).toHaveLength(1)
    // plain writes still go
    expect((await t.call('package_patch', { id: ds.id, notes: 'x' }, owner)).status).toBe(200)
  })

  it('leaves a class with limit 0 unlimited, without headers', async () => {
    const r = await t.app.request('/api/3/action/package_search', { headers: { authorization: user.apikey } })
    expect(r.status).toBe(200)
    expect(r.headers.get('ratelimit')).toBeNull()
  })

  it('exempts sysadmins unless service.ratelimit.sysadmins is set', async () => {
    for (let i = 0; i < 6; i++) expect((await t.call('package_show', { id: dataset.id }, sys)).status).toBe(200)
    const strict = await setup({ ...LIMITS, 'service.ratelimit.sysadmins': 'true' })
    const boss = await strict.make.sysadmin()
    for (let i = 0; i < 4; i++) expect((await strict.call('site_read', {}, boss)).status).toBe(200)
    expect((await strict.call('site_read', {}, boss)).status).toBe(429)
  })

  it('counts MCP tool calls as the API calls they make', async () => {
    const caller = await t.make.user()
    const server = await listen(t.app)
    try {
      const client = new Client({ name: 'rate-test', version: '1' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: caller.apikey } } }))
      const outcomes: boolean[] = []
      for (let i = 0; i < 5; i++) {
        const r = (await client.callTool({ name: 'package_show', arguments: { id: dataset.id } })) as { isError?: boolean; content: { text: string }[] }
        outcomes.push(!r.isError)
        if (r.isError) expect(r.content[0]!.text).toMatch(/Too Many Requests.*Rate limit exceeded: at most 4 reads/)
      }
      expect(outcomes).toEqual([true, true, true, true, false])
      await client.close()
    } finally {
      await server.close()
    }
  })
})

describe('signed in with the session cookie (api_compat 2.10)', () => {
  it('counts the user, whatever address they come from, apart from their tokens', async () => {
    const site = await setup({ ...LIMITS, 'service.api_compat': '2.10' })
    const me = await site.make.user({ password: 'correct horse' })
    const b = browser((path, init) => site.app.request(path, init))
    await signIn(b, me.name, 'correct horse')
    const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ')
    const read = (address: string, headers: Record<string, string> = { cookie }) =>
      site.app.request('/api/3/action/site_read', { headers: { 'x-forwarded-for': address, ...headers } })
    for (let i = 0; i < 4; i++) expect((await read(`198.51.100.${50 + i}`)).status).toBe(200)
    const refused = await read('198.51.100.60')
    expect(refused.status).toBe(429)
    expect((await refused.json()).error.message).toMatch(/at most 4 reads every 3600 seconds for this user\./)
    // the same user's token counts apart; the address alone counts as anonymous
    expect((await read('198.51.100.60', { authorization: me.apikey })).status).toBe(200)
    expect((await read('198.51.100.60', {})).status).toBe(200)
  })
})

describe('off', () => {
  it('adds no headers and refuses nothing when service.ratelimit.enabled is false (the default)', async () => {
    const off = await setup({ ...LIMITS, 'service.ratelimit.enabled': 'false' })
    for (let i = 0; i < 6; i++) {
      const r = await off.app.request('/api/3/action/site_read', { headers: { 'x-forwarded-for': '192.0.2.99' } })
      expect(r.status).toBe(200)
      expect(r.headers.get('ratelimit')).toBeNull()
    }
  })
})

describe('windows', () => {
  it('opens again when the window ends, after the Retry-After it gave', async () => {
    const short = await setup({ ...LIMITS, 'service.ratelimit.window_seconds': '1', 'service.ratelimit.anonymous.reads': '1' })
    const go = () => short.app.request('/api/3/action/site_read', { headers: { 'x-forwarded-for': '192.0.2.77' } })
    // start at the beginning of a window so that two calls fall in it
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20))
    expect((await go()).status).toBe(200)
    const refused = await go()
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    await new Promise((r) => setTimeout(r, 1000))
    expect((await go()).status).toBe(200)
  })
})
