// Usage figures (issue 35, CKAN's tracking): page views, API reads and downloads counted per
// dataset and resource in memory, flushed in batches; bots and repeat visitors of a day left out;
// no address stored; tracking_summary, the views sorts, the Popular order, counts on the pages and
// the sysadmin usage page; nothing private leaks through any of them.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { flushUsage, recentSince, UsageCounter } from '../../src/model/usage'
import { uniq } from '../helpers/make'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0'

let t: TestEnv
let sys: Caller & { name: string }
let user: Caller & { name: string }
let pub: Dict
let priv: Dict

const from = (address: string, agent: string | null = BROWSER, extra: Record<string, string> = {}) => ({
  'x-forwarded-for': address,
  ...(agent === null ? {} : { 'user-agent': agent }),
  ...extra,
})
const show = (id: string, headers: Record<string, string>) => t.app.request(`/api/3/action/package_show?id=${id}`, { headers })
const figures = async (id: string) => (await t.ok('package_show', { id, include_tracking: true }, sys)).tracking_summary

beforeAll(async () => {
  // figures for the views sorts are read again after flush_seconds: 1 s here
  t = await setup({ 'service.tracking_enabled': 'true', 'service.tracking.flush_seconds': '1', 'service.ratelimit.client_address_header': 'X-Forwarded-For' })
  sys = await t.make.sysadmin()
  user = await t.make.user()
  const org = await t.make.organization(sys)
  pub = await t.ok('package_create', { name: uniq('used'), title: 'Used data', owner_org: org.id, resources: [{ url: 'http://example.com/a.csv', name: 'a' }] }, sys)
  priv = await t.ok('package_create', { name: uniq('hidden'), title: 'Hidden data', owner_org: org.id, private: true, resources: [{ url: 'http://example.com/b.csv', name: 'b' }] }, sys)
  await t.ok('datastore_create', { resource_id: pub.resources[0].id, force: true, fields: [{ id: 'a', type: 'int' }], records: [{ a: 1 }] }, sys)
  await flushUsage(t.deps) // what setting up counted
  await t.deps.db.$client.execute('DELETE FROM usage_daily')
  await t.deps.db.$client.execute('DELETE FROM usage_total')
})

describe('counting', () => {
  it('counts API reads per visitor and day, in memory until a flush', async () => {
    for (const a of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.1']) expect((await show(pub.id, from(a))).status).toBe(200)
    // nothing reaches the database before the flush (a read never waits on a write)
    expect((await figures(pub.id)).total).toBe(0)
    expect(t.deps.usage!.size).toBeGreaterThan(0)
    expect(await flushUsage(t.deps)).toBeGreaterThan(0)
    const f = await figures(pub.id)
    expect(f).toMatchObject({ total: 3, recent: 3, api_reads: { total: 3, recent: 3 }, page_views: { total: 0, recent: 0 }, downloads: { total: 0, recent: 0 } })
  })

  it('leaves out robots and requests without a user agent', async () => {
    const before = (await figures(pub.id)).total
    await show(pub.id, from('203.0.113.50', 'Googlebot/2.1 (+http://www.google.com/bot.html)'))
    await show(pub.id, from('203.0.113.51', 'Mozilla/5.0 (compatible; AhrefsBot/7.0)'))
    await show(pub.id, from('203.0.113.52', null))
    await flushUsage(t.deps)
    expect((await figures(pub.id)).total).toBe(before)
  })

  it('counts dataset and resource page views, resource_show, downloads and dumps', async () => {
    const r = pub.resources[0]
    expect((await t.app.request(`/dataset/${pub.name}`, { headers: from('198.51.100.1') })).status).toBe(200)
    expect((await t.app.request(`/dataset/${pub.name}/resource/${r.id}`, { headers: from('198.51.100.1') })).status).toBe(200)
    expect((await t.app.request(`/api/3/action/resource_show?id=${r.id}`, { headers: from('198.51.100.1') })).status).toBe(200)
    expect((await t.app.request(`/dataset/${pub.id}/resource/${r.id}/download`, { headers: from('198.51.100.1') })).status).toBe(302)
    expect((await t.app.request(`/datastore/dump/${r.id}`, { headers: from('198.51.100.2') })).status).toBe(200)
    // a HEAD of the download is no download
    await t.app.request(`/dataset/${pub.id}/resource/${r.id}/download`, { method: 'HEAD', headers: from('198.51.100.3') })
    await flushUsage(t.deps)
    const shown = await t.ok('package_show', { id: pub.id, include_tracking: true }, sys)
    expect(shown.tracking_summary.page_views).toEqual({ total: 1, recent: 1 })
    expect(shown.resources[0].tracking_summary).toMatchObject({ total: 4, recent: 4, page_views: { total: 1 }, api_reads: { total: 1 }, downloads: { total: 2, recent: 2 } })
    const res = await t.ok('resource_show', { id: r.id, include_tracking: true }, sys)
    expect(res.tracking_summary).toEqual(shown.resources[0].tracking_summary)
  })

  it('does not count what the caller may not read, and keeps no address', async () => {
    const before = (await figures(priv.id)).total
    expect((await show(priv.id, from('192.0.2.201'))).status).toBe(403)
    expect((await t.app.request(`/dataset/${priv.name}`, { headers: from('192.0.2.201') })).status).toBe(404)
    expect((await t.app.request(`/dataset/${priv.id}/resource/${priv.resources[0].id}/download`, { headers: from('192.0.2.201') })).status).toBe(404)
    await flushUsage(t.deps)
    expect((await figures(priv.id)).total).toBe(before)
    expect((await t.ok('package_show', { id: priv.id, include_tracking: true }, sys)).resources[0].tracking_summary.total).toBe(0)
    // no address, whole or in part, in any table: the stored rows are ids, kinds, days and counts
    const rows = await t.deps.db.$client.execute('SELECT * FROM usage_daily')
    expect(Object.keys(rows.rows[0] ?? {}).sort()).toEqual(['count', 'day', 'kind', 'object_id', 'package_id'])
    await t.deps.db.$client.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    const bytes = readFileSync(t.file).toString('latin1')
    for (const a of ['203.0.113.1', '198.51.100.1', '192.0.2.201']) expect(bytes.includes(a)).toBe(false)
  })

  it('keeps the counts of a failed flush for the next one', async () => {
    const c = new UsageCounter()
    c.count('api', { id: 'x', packageId: 'x', resource: false })
    c.count('api', { id: 'x', packageId: 'x', resource: false })
    await expect(c.flush(() => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full')
    c.count('page', { id: 'x', packageId: 'x', resource: false })
    const written: unknown[][] = []
    await c.flush(async (stmts) => void written.push(...stmts.map((s) => s.args)))
    // one day row each for api (2) and page (1), and one total row with both
    expect(written[0]).toEqual(expect.arrayContaining(['x', 'api', 2]))
    expect(written.at(-1)).toEqual(['x', 'x', 0, 1, 2, 0, 3])
    expect(c.size).toBe(0)
  })

  it('writes a big flush in several transactions; one failing keeps its counts and the later ones, not the earlier', async () => {
    const c = new UsageCounter()
    for (let i = 0; i < 1200; i++) c.count('api', { id: `o${i}`, packageId: `o${i}`, resource: false })
    const calls: number[] = []
    await expect(
      c.flush(async (stmts) => {
        calls.push(stmts.length)
        if (calls.length === 2) throw new Error('busy')
      }),
    ).rejects.toThrow('busy')
    expect(calls.length).toBe(2)
    expect(c.size).toBe(700) // the first 500 written, the rest kept
    let objects = 0
    await c.flush(async (stmts) => void (objects += stmts.filter((s) => s.sql.includes('usage_total')).reduce((n, s) => n + s.args.length / 7, 0)))
    expect(objects).toBe(700)
    expect(c.size).toBe(0)
  })

  it('reports "recent" over service.tracking.recent_days, "total" over all days', async () => {
    const id = (await t.make.dataset(sys)).id
    const old = recentSince(40)
    await t.deps.db.$client.batch([
      { sql: "INSERT INTO usage_daily (object_id, kind, day, package_id, count) VALUES (?, 'page', ?, ?, 7)", args: [id, old, id] },
      { sql: "INSERT INTO usage_total (object_id, package_id, is_resource, page, total) VALUES (?, ?, 0, 7, 7)", args: [id, id] },
    ])
    await show(id, from('203.0.113.99'))
    await flushUsage(t.deps)
    expect(await figures(id)).toMatchObject({ total: 8, recent: 1, page_views: { total: 7, recent: 0 }, api_reads: { total: 1, recent: 1 } })
  })
})

describe('what shows the figures', () => {
  it('sorts package_search by views_recent and views_total, private datasets only for those who may see them', async () => {
    const a = await t.make.dataset(sys, { title: 'Sorted A' })
    const b = await t.make.dataset(sys, { title: 'Sorted B' })
    for (let i = 0; i < 3; i++) await show(b.id, from(`203.0.114.${i}`))
    await show(a.id, from('203.0.114.9'))
    for (let i = 0; i < 5; i++) await show(priv.id, { ...from(`203.0.115.${i}`), authorization: sys.apikey })
    await flushUsage(t.deps)
    const names = async (sort: string, as?: Caller) => (await t.ok('package_search', { q: 'title:sorted OR name:hidden*', sort, rows: 10 }, as)).results.map((d: Dict) => d.id)
    expect((await names('views_recent desc')).slice(0, 2)).toEqual([b.id, a.id])
    expect((await names('views_total desc')).slice(0, 2)).toEqual([b.id, a.id])
    expect(await names('views_recent desc')).not.toContain(priv.id)
    const bySys = (await t.ok('package_search', { q: 'name:hidden*', sort: 'views_recent desc', include_private: true }, sys)).results
    expect(bySys[0].id).toBe(priv.id)
    // answers holding figures carry no ETag (figures move without the change log); others do
    const plain = await t.app.request(`/api/3/action/package_show?id=${a.id}`)
    expect(plain.headers.get('etag')).toBeTruthy()
    expect((await t.app.request(`/api/3/action/package_show?id=${a.id}&include_tracking=true`)).headers.get('etag')).toBeNull()
    expect((await t.app.request('/api/3/action/package_search?sort=views_recent%20desc')).headers.get('etag')).toBeNull()
    // new counts move the order once flushed and read again (after flush_seconds)
    for (let i = 0; i < 4; i++) await show(a.id, from(`203.0.116.${i}`))
    await flushUsage(t.deps)
    await new Promise((r) => setTimeout(r, 1100))
    expect((await names('views_recent desc')).slice(0, 2)).toEqual([a.id, b.id])
    expect((await names('views_total asc')).slice(-2)).toEqual([b.id, a.id])
  })

  it('offers "Popular" on the search page and shows counts on dataset and resource pages', async () => {
    const html = await (await t.app.request('/dataset', { headers: from('203.0.117.1') })).text()
    expect(html).toContain('<option value="views_recent desc"')
    expect(html).toContain('>Popular<')
    const page = await (await t.app.request(`/dataset/${pub.name}`, { headers: from('203.0.117.2') })).text()
    expect(page).toMatch(/class="muted usage">\d+ views? \(\d+ recent\)/)
    const fr = await (await t.app.request(`/fr/dataset/${pub.name}`, { headers: from('203.0.117.3') })).text()
    expect(fr).toMatch(/consultations? \(\d+ récentes\)/)
    const resPage = await (await t.app.request(`/dataset/${pub.name}/resource/${pub.resources[0].id}`, { headers: from('203.0.117.2') })).text()
    expect(resPage).toMatch(/downloads? \(\d+ recent\)/)
  })

  it('gives sysadmins the usage page and nobody else', async () => {
    await flushUsage(t.deps)
    const res = await t.app.request('/ckan-admin/usage', { headers: { authorization: sys.apikey } })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('Most used datasets')
    expect(html).toContain(`/dataset/${pub.name}/resource/${pub.resources[0].id}`)
    expect(html).toContain('Hidden data') // sysadmins see private datasets' figures
    expect((await t.app.request('/ckan-admin/usage', { headers: { authorization: user.apikey } })).status).toBe(403)
    expect((await t.app.request('/ckan-admin/usage')).status).toBe(403)
  })
})

describe('off (the default)', () => {
  it('counts nothing, offers no Popular order, and answers zeros for include_tracking', async () => {
    const off = await setup()
    const admin = await off.make.sysadmin()
    const ds = await off.make.dataset(admin)
    for (let i = 0; i < 3; i++) await off.app.request(`/api/3/action/package_show?id=${ds.id}`, { headers: { 'user-agent': BROWSER } })
    expect(off.deps.usage!.size).toBe(0)
    const shown = await off.ok('package_show', { id: ds.id, include_tracking: true }, admin)
    expect(shown.tracking_summary).toMatchObject({ total: 0, recent: 0 })
    expect(await (await off.app.request('/dataset')).text()).not.toContain('views_recent desc')
  })
})
