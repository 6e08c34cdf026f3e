// Issue 19, HTTP caching of every read: answers holding followers, activity and dashboards (whose
// writes now move the change log too), DataStore reads and dumps (their tables' own versions), and
// what must never be revalidated (date math relative to NOW, a private table's ETag offered by
// someone else).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string; name: string; id: string }
let member: { apikey: string; name: string; id: string }
let org: { id: string; name: string }
let pubTable: string
let privTable: string

const get = (path: string, headers: Record<string, string> = {}) => t.app.request(path, { headers })
const tagOf = async (path: string, headers: Record<string, string> = {}) => {
  const res = await get(path, headers)
  expect(res.status).toBe(200)
  return res.headers.get('etag')!
}
const head = async () => Number((await t.client.execute('SELECT max(seq) AS s FROM change_log')).rows[0]!.s)

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  org = await t.make.organization(sys, { name: 'cover-org' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
  const pub = await t.ok('package_create', { name: 'cover-public', owner_org: org.id }, sys)
  const priv = await t.ok('package_create', { name: 'cover-private', owner_org: org.id, private: true }, sys)
  const fields = [{ id: 'n', type: 'int' }, { id: 'word', type: 'text' }]
  pubTable = (await t.ok('datastore_create', { resource: { package_id: pub.id }, fields, records: [{ n: 1, word: 'one' }] }, sys)).resource_id
  privTable = (await t.ok('datastore_create', { resource: { package_id: priv.id }, fields, records: [{ n: 1, word: 'secret' }] }, sys)).resource_id
})
afterAll(() => t?.client.close())

describe('every write moves the change log', () => {
  it('logs a row for writes that log nothing themselves, which the feed and caches ignore', async () => {
    const before = await head()
    await t.ok('follow_group', { id: org.id }, member)
    const afterFollow = await head()
    expect(afterFollow).toBeGreaterThan(before)
    await t.ok('dashboard_mark_activities_old', {}, member)
    expect(await head()).toBeGreaterThan(afterFollow)
    // changes_list reports none of them
    const feed = await t.ok('changes_list', { since: undefined, limit: 1000 }, sys)
    expect(feed.changes.every((c: { type: string }) => ['dataset', 'resource', 'organization', 'group', 'user', 'datastore'].includes(c.type))).toBe(true)
  })
})

describe('answers holding followers, activity and dashboards', () => {
  it('organization_show, user_show and follower counts change their ETag when a follow does', async () => {
    const paths = [
      `/api/3/action/organization_show?id=${org.name}`,
      `/api/3/action/organization_follower_count?id=${org.name}`,
      `/api/3/action/user_show?id=${sys.name}`,
      `/api/3/action/user_follower_count?id=${sys.name}`,
    ]
    const before = await Promise.all(paths.map((p) => tagOf(p)))
    for (const [i, p] of paths.entries()) expect((await get(p, { 'if-none-match': before[i]! })).status).toBe(304)
    await t.ok('follow_user', { id: sys.id }, member)
    for (const [i, p] of paths.entries()) {
      const res = await get(p, { 'if-none-match': before[i]! })
      expect(res.status).toBe(200)
      expect(res.headers.get('etag')).not.toBe(before[i])
    }
    expect((await (await get(`/api/3/action/user_follower_count?id=${sys.name}`)).json()).result).toBe(1)
  })

  it('dashboard_new_activities_count is private to its caller and moves with mark-as-old', async () => {
    const path = '/api/3/action/dashboard_new_activities_count'
    const res = await get(path, { authorization: member.apikey })
    expect(res.headers.get('cache-control')).toMatch(/^private/)
    const etag = res.headers.get('etag')!
    expect((await get(path, { authorization: member.apikey, 'if-none-match': etag })).status).toBe(304)
    await t.ok('dashboard_mark_activities_old', {}, member)
    expect((await get(path, { authorization: member.apikey, 'if-none-match': etag })).status).toBe(200)
  })

  it('keeps answers the log does not cover uncached: tokens, jobs, SQL', async () => {
    expect((await get('/api/3/action/api_token_list?user_id=' + sys.name, { authorization: sys.apikey })).headers.get('etag')).toBeNull()
    expect((await get('/api/3/action/job_list', { authorization: sys.apikey })).headers.get('etag')).toBeNull()
    const sql = await get(`/api/3/action/datastore_search_sql?sql=${encodeURIComponent(`SELECT * FROM "${pubTable}"`)}`)
    expect(sql.status).toBe(200)
    expect(sql.headers.get('etag')).toBeNull()
  })

  it('never revalidates date math relative to NOW', async () => {
    const path = `/api/3/action/package_search?fq=${encodeURIComponent('metadata_modified:[NOW-1DAY TO NOW]')}`
    const etag = await tagOf(path)
    await new Promise((r) => setTimeout(r, 5))
    expect((await get(path, { 'if-none-match': etag })).status).toBe(200)
  })
})

describe('DataStore reads', () => {
  it('datastore_search and datastore_info: 304 without searching, a new ETag after a write to the table', async () => {
    const path = `/api/3/action/datastore_search?resource_id=${pubTable}`
    const etag = await tagOf(path)
    const info = await tagOf(`/api/3/action/datastore_info?id=${pubTable}`)
    const action = registry.get('datastore_search')!
    const run = action.run
    let runs = 0
    action.run = (...args) => {
      runs++
      return run(...args)
    }
    try {
      expect((await get(path, { 'if-none-match': etag })).status).toBe(304)
      expect(runs).toBe(0)
    } finally {
      action.run = run
    }
    // a write to the rows alone (the catalogue's log may stay where it was)
    await t.ok('datastore_upsert', { resource_id: pubTable, method: 'insert', records: [{ n: 2, word: 'two' }] }, sys)
    const after = await get(path, { 'if-none-match': etag })
    expect(after.status).toBe(200)
    expect((await after.json()).result.total).toBe(2)
    expect((await get(`/api/3/action/datastore_info?id=${pubTable}`, { 'if-none-match': info })).status).toBe(200)
  })

  it('a private table answers its readers privately, and its ETag gets no one else a 304', async () => {
    const path = `/api/3/action/datastore_search?resource_id=${privTable}`
    const mine = await get(path, { authorization: member.apikey })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect((await get(path, { 'if-none-match': mine.headers.get('etag')! })).status).toBe(403)
  })
})

describe('DataStore dumps', () => {
  it('carry an ETag, answer 304 to it without reading rows, and change with the table', async () => {
    const path = `/datastore/dump/${pubTable}?format=csv`
    const first = await get(path)
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(first.headers.get('cache-control')).toMatch(/^public/)
    const stream = t.deps.datastore!.stream
    let streams = 0
    t.deps.datastore!.stream = (...args) => {
      streams++
      return stream.apply(t.deps.datastore, args)
    }
    try {
      const again = await get(path, { 'if-none-match': etag })
      expect(again.status).toBe(304)
      expect(again.headers.get('etag')).toBe(etag)
      expect(streams).toBe(0)
      // other parameters are another answer
      expect((await get(`/datastore/dump/${pubTable}?format=json`, { 'if-none-match': etag })).status).toBe(200)
    } finally {
      t.deps.datastore!.stream = stream
    }
    await t.ok('datastore_upsert', { resource_id: pubTable, method: 'insert', records: [{ n: 3, word: 'three' }] }, sys)
    const after = await get(path, { 'if-none-match': etag })
    expect(after.status).toBe(200)
    expect(await after.text()).toContain('three')
  })

  it('a private table is never a 304 for someone who may not read it, and its owner gets a private answer', async () => {
    const path = `/datastore/dump/${privTable}`
    const mine = await get(path, { authorization: member.apikey })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    const etag = mine.headers.get('etag')!
    expect((await get(path, { 'if-none-match': etag })).status).toBe(403)
    expect((await get(path, { authorization: member.apikey, 'if-none-match': etag })).status).toBe(304)
  })
})
