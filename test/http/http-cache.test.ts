// Issue 19, HTTP caching of reads: a GET of a read action carries a strong ETag and Cache-Control;
// If-None-Match answers 304 without running the action; a write changes the ETag; authenticated
// and JSONP answers are never public.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let member: { apikey: string; name: string }

const get = (path: string, headers: Record<string, string> = {}) => t.app.request(path, { headers })

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  const org = await t.make.organization(sys, { name: 'cache-org' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
  await t.ok('package_create', { name: 'cache-public', owner_org: org.id, notes: 'first' }, sys)
  await t.ok('package_create', { name: 'cache-private', owner_org: org.id, private: true }, sys)
})
afterAll(() => t?.client.close())

describe('validators on GET of read actions', () => {
  it('answers 304 to If-None-Match without running the action', async () => {
    const first = await get('/api/3/action/package_show?id=cache-public')
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(first.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=60')
    const action = registry.get('package_show')!
    const run = action.run
    let runs = 0
    action.run = (...args) => {
      runs++
      return run(...args)
    }
    // every database read the app could make (the log-head probe, a prepared statement of the
    // change feed, is the one thing a 304 asks the database)
    let queries = 0
    const read = t.deps.read
    const execute = t.client.execute.bind(t.client)
    const counted = Object.assign((...args: Parameters<typeof read>) => (queries++, read(...args)), { many: read.many && ((...a: Parameters<NonNullable<typeof read.many>>) => (queries++, read.many!(...a))) })
    t.deps.read = counted
    t.client.execute = ((...args: Parameters<typeof execute>) => (queries++, execute(...args))) as typeof t.client.execute
    try {
      const again = await get('/api/3/action/package_show?id=cache-public', { 'if-none-match': etag })
      expect(again.status).toBe(304)
      expect(queries).toBe(0)
      // the counter sees the app's reads: the same GET unconditional, its dict no longer cached
      t.deps.caches.packages.clear()
      expect(runs).toBe(0)
      expect((await get('/api/3/action/package_show?id=cache-public')).status).toBe(200)
      expect(queries).toBeGreaterThan(0)
      runs = 0
      t.deps.read = read
      t.client.execute = execute
      expect(again.headers.get('etag')).toBe(etag)
      expect(await again.text()).toBe('')
      // the same parameters in another order are the same answer; another id is not
      expect((await get('/api/3/action/package_show?id=cache-public&use_default_schema=false', { 'if-none-match': etag })).status).toBe(200)
      expect(runs).toBe(1)
    } finally {
      action.run = run
      t.deps.read = read
      t.client.execute = execute
    }
  })

  it('changes the ETag when the catalogue changes', async () => {
    const before = (await get('/api/3/action/package_show?id=cache-public')).headers.get('etag')!
    await t.ok('package_patch', { id: 'cache-public', notes: 'second' }, sys)
    const after = await get('/api/3/action/package_show?id=cache-public', { 'if-none-match': before })
    expect(after.status).toBe(200)
    expect((await after.json()).result.notes).toBe('second')
    expect(after.headers.get('etag')).not.toBe(before)
  })

  it('never makes an authenticated or JSONP answer public, and keeps callers apart', async () => {
    const mine = await get('/api/3/action/package_show?id=cache-private', { authorization: member.apikey })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect(mine.headers.get('vary')).toMatch(/Authorization/)
    // another caller presenting that ETag gets the answer it is due, not a 304
    const anon = await get('/api/3/action/package_show?id=cache-private', { 'if-none-match': mine.headers.get('etag')! })
    expect(anon.status).toBe(403)
    const other = await get('/api/3/action/package_show?id=cache-public', { authorization: sys.apikey, 'if-none-match': (await get('/api/3/action/package_show?id=cache-public')).headers.get('etag')! })
    expect(other.status).toBe(200)
    const jsonp = await get('/api/3/action/package_show?id=cache-public&callback=cb')
    expect(jsonp.headers.get('cache-control')).toMatch(/^private/)
    expect(await jsonp.text()).toMatch(/^cb\(/)
    const search = await get('/api/3/action/package_search?q=cache')
    expect(search.headers.get('cache-control')).toMatch(/^public/)
  })

  it('leaves out answers the change log does not cover, errors and POSTs', async () => {
    expect((await get('/api/3/action/datastore_search?resource_id=nothing')).headers.get('etag')).toBeNull()
    expect((await get('/api/3/action/package_show?id=no-such')).headers.get('etag')).toBeNull()
    const post = await t.app.request('/api/3/action/package_show', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"cache-public"}' })
    expect(post.headers.get('etag')).toBeNull()
  })
})
