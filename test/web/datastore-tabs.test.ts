// Issue 34 item 3: a resource page's DataStore table has Profile and Chart tabs beside its grid
// (links, no script): the profile's figures are datastore_info's, a pending or stale profile says
// so; the chart's bars and points and its table are datastore_search's rows or groups; bad chart
// parameters are explained on the page; an editor saves a chart as a chart_view that the page then
// draws, anyone else has no button and is refused; a private table's tabs and charts stay private.
import { beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { drain } from '../../src/jobs/runner'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn } from '../helpers/web-browser'

type Dict = Record<string, any>

const PLUGINS = 'image_view webpage_view text_view recline_view recline_grid_view datatables_view chart_view'
const REGIONS = ['north', 'south', 'west']
const FIELDS = [
  { id: 'stop', type: 'text', info: { label: 'Stop' } },
  { id: 'riders', type: 'int' },
  { id: 'region', type: 'text' },
  { id: 'day', type: 'date' },
  { id: 'score', type: 'float' },
  { id: 'tags', type: '_text' },
]
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    stop: `S-${String(i).padStart(2, '0')}`,
    riders: (i * 37) % 200,
    region: REGIONS[i % 3],
    day: `2024-01-${String((i % 10) + 1).padStart(2, '0')}`,
    score: i % 7 === 0 ? null : i * 1.5,
    tags: ['a'],
  }))

let t: TestEnv
let sys: Caller & { name: string }
let editor: Caller & { name: string }
let outsider: Caller & { name: string }
let rid = ''
let base = ''
let privRid = ''
let privBase = ''

const fmt = new Intl.NumberFormat('en').format
/** The page's text with the entities hono escapes turned back. */
const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
const get = async (path: string, as?: Caller) => {
  const res = await t.app.request(path, { headers: as ? { authorization: as.apikey } : {} })
  return { status: res.status, html: decode(await res.text()) }
}
const count = (html: string, needle: string) => html.split(needle).length - 1
/** The cells of the chart's table alternative, row by row. */
function chartTable(html: string): string[][] {
  const body = /<table class="chart-data">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html)![1]!
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!))
}
const search = async (params: Dict) => (await t.ok('datastore_search', { resource_id: rid, limit: 1000, ...params })).records as Dict[]

beforeAll(async () => {
  t = await setup({ 'service.views.plugins': PLUGINS })
  sys = await t.make.sysadmin()
  editor = await t.make.user()
  outsider = await t.make.user()
  const org = await t.make.organization(sys)
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
  const ds = await t.make.dataset(sys, { name: 'tab-data', owner_org: org.id })
  rid = (await t.ok('datastore_create', { resource: { package_id: ds.id, name: 'Stops' }, fields: FIELDS, records: rows(30) }, sys)).resource_id
  base = `/dataset/tab-data/resource/${rid}`
  const priv = await t.make.dataset(sys, { name: 'tab-secret', owner_org: org.id, private: true })
  privRid = (await t.ok('datastore_create', { resource: { package_id: priv.id, name: 'Secret' }, fields: [{ id: 'secretcol', type: 'int' }, { id: 'hidden_label', type: 'text' }], records: [{ secretcol: 7, hidden_label: 'classified-value' }] }, sys)).resource_id
  privBase = `/dataset/tab-secret/resource/${privRid}`
})

describe('the tabs', () => {
  it('shows the grid by default, and links to the profile and the chart with aria-current on the open tab', async () => {
    const { status, html } = await get(`${base}?q=north&sort=riders%20desc`)
    expect(status).toBe(200)
    expect(html).toContain('<nav aria-label="Ways to see the data">')
    expect(html).toContain(`<a href="${base}?q=north&sort=riders+desc" aria-current="page">Table</a>`.replace(/&/g, '&'))
    expect(html).toContain(`<a href="${base}?tab=profile">Profile</a>`)
    expect(html).toContain(`<a href="${base}?tab=chart">Chart</a>`)
    // the grid with its filter and sort, as before
    expect(html).toContain('<input id="rq" type="search" name="q" value="north"/>')
    expect(html).toContain('aria-sort="descending"')
    const profile = await get(`${base}?tab=profile`)
    expect(profile.html).toContain(`<a href="${base}?tab=profile" aria-current="page">Profile</a>`)
    expect(profile.html).not.toContain('id="rq"')
  })
})

describe('the Profile tab', () => {
  it('says a pending profile is being computed, then shows datastore_info\'s figures for every column', async () => {
    const pending = await get(`${base}?tab=profile`)
    expect(pending.status).toBe(200)
    expect(pending.html).toContain('The profile of this table is being computed.')
    expect(pending.html).toContain(`<a href="${base}?tab=profile">Reload the page</a>`)
    await drain(t.deps.jobs, jobKinds, t.deps)
    const info = (await t.ok('datastore_info', { id: rid, include_profile: true })).profile
    expect(info.status).toBe('current')
    const { html } = await get(`${base}?tab=profile`)
    expect(html).not.toContain('being computed')
    expect(html).toContain('30 rows, profiled on')
    for (const c of info.columns as Dict[]) {
      const start = html.indexOf(`<li><h4>${c.id}</h4>`)
      expect(start, c.id).toBeGreaterThan(0)
      const card = html.slice(start, html.indexOf('</li>', start))
      const dd = (label: string, value: string) => expect(card, `${c.id} ${label}`).toContain(`<dt>${label}</dt><dd>${value}</dd>`)
      dd('Type', c.type)
      dd('Values', fmt(c.count))
      dd('Empty', fmt(c.null_count))
      dd('Distinct values', fmt(c.distinct))
      const show = (v: unknown) => (typeof v === 'number' ? fmt(v) : String(v))
      if (c.min !== undefined) dd('Minimum', show(c.min))
      if (c.max !== undefined) dd('Maximum', show(c.max))
      if (c.mean !== undefined) dd('Mean', fmt(c.mean))
      // a histogram of numbers and dates: one bar a bin, and the bins as a table
      expect(count(card, '<rect class="bin"'), c.id).toBe(c.histogram?.length ?? 0)
      if (c.histogram) expect(card).toMatch(/<svg [^>]*role="img" aria-label="Distribution of /)
      // the most frequent values, each with its count
      for (const top of c.top as Dict[]) expect(card, `${c.id} top`).toContain(`<td>${show(Array.isArray(top.value) ? JSON.stringify(top.value) : top.value)}</td><td>${fmt(top.count)}<svg`)
      if (!c.top.length) expect(card).toContain('Nearly every value is different')
    }
    const region = (info.columns as Dict[]).find((c) => c.id === 'region')!
    expect(region.top.map((x: Dict) => x.value).sort()).toEqual(REGIONS)
  })

  it('says a stale profile describes an earlier version', async () => {
    await t.ok('datastore_upsert', { resource_id: rid, method: 'insert', records: [{ stop: 'S-99', riders: 5, region: 'north', day: '2024-02-01', score: 1, tags: [] }] }, sys)
    const { html } = await get(`${base}?tab=profile`)
    expect(html).toContain('This profile describes an earlier version of the table')
    expect(html).toContain('30 rows, profiled on')
    await drain(t.deps.jobs, jobKinds, t.deps)
    expect((await get(`${base}?tab=profile`)).html).toContain('31 rows, profiled on')
    await t.ok('datastore_records_delete', { resource_id: rid, filters: { stop: 'S-99' } }, sys)
    await drain(t.deps.jobs, jobKinds, t.deps)
  })
})

describe('the Chart tab', () => {
  it('draws a bar for each row, in the order of x, with the rows as its table', async () => {
    const { status, html } = await get(`${base}?tab=chart&chart_type=bar&x=stop&y=riders`)
    expect(status).toBe(200)
    const records = await search({ fields: ['stop', 'riders'], sort: 'stop asc' })
    expect(count(html, '<rect class="bar"')).toBe(records.length)
    expect(chartTable(html)).toEqual(records.map((r) => [r.stop, fmt(r.riders)]))
    expect(html).toMatch(/<svg [^>]*role="img" aria-labelledby="ds-chart-title" aria-describedby="ds-chart-desc"/)
    expect(html).toContain('<title id="ds-chart-title">riders by Stop</title>')
    expect(html).toContain('<desc id="ds-chart-desc">Bar chart: 30 values of riders, from ')
    expect(html).toContain('<caption class="visually-hidden">The values of the chart</caption>')
    expect(html).toContain('<th scope="col">Stop</th><th scope="col">riders</th>')
  })

  it('draws a point for each row with both values in a scatter plot, and one line a series', async () => {
    const scatter = await get(`${base}?tab=chart&chart_type=scatter&x=riders&y=score`)
    const records = (await search({ fields: ['riders', 'score'], sort: 'riders asc' })).filter((r) => r.score !== null)
    expect(count(scatter.html, '<path class="point"')).toBe(records.length)
    expect(chartTable(scatter.html)).toEqual(records.map((r) => [fmt(r.riders), fmt(r.score)]))
    expect(scatter.html).toContain('5 rows without an x or y value are left out.')

    const lines = await get(`${base}?tab=chart&chart_type=line&x=day&y=riders&aggregate=sum&group_by=region`)
    const groups = await search({ group_by: ['day', 'region'], aggregates: [{ function: 'sum', column: 'riders', as: 'value' }] })
    expect(count(lines.html, '<path class="line"')).toBe(3)
    for (const region of REGIONS) {
      const mine = groups.filter((g) => g.region === region)
      expect(lines.html).toContain(`data-points="${mine.length}"`)
    }
    expect(chartTable(lines.html).sort()).toEqual(groups.map((g) => [g.day, g.region, fmt(g.value)]).sort())
    expect(lines.html).toContain('<title id="ds-chart-title">Sum of riders by day, for each region</title>')
    expect(lines.html).toContain('<ul class="tags chart-legend" aria-label="region">')
  })

  it('combines the y values of each x value by the aggregate asked for', async () => {
    for (const fn of ['count', 'sum', 'avg', 'min', 'max']) {
      const { html } = await get(`${base}?tab=chart&chart_type=bar&x=region&y=riders&aggregate=${fn}`)
      const groups = await search({ group_by: ['region'], aggregates: [{ function: fn, column: 'riders', as: 'value' }] })
      expect(count(html, '<rect class="bar"'), fn).toBe(3)
      expect(chartTable(html), fn).toEqual(groups.map((g) => [g.region, fmt(Number(g.value))]))
    }
    const rowsOnly = await get(`${base}?tab=chart&chart_type=bar&x=region&y=&aggregate=count`)
    expect(chartTable(rowsOnly.html)).toEqual(REGIONS.map((r) => [r, '10']))
    expect(rowsOnly.html).toContain('<title id="ds-chart-title">Number of rows by region</title>')
  })

  it('draws a first chart of the table when nothing is chosen yet', async () => {
    const { html } = await get(`${base}?tab=chart`)
    expect(html).toContain('<option value="stop" selected="">Stop (stop, text)</option>')
    expect(count(html, '<rect class="bar"')).toBe(30)
  })

  it('plots at most 1,000 points and says so', async () => {
    const ds = await t.make.dataset(sys, { name: 'tab-big' })
    const big = (await t.ok('datastore_create', { resource: { package_id: ds.id, name: 'Big' }, fields: [{ id: 'n', type: 'int' }, { id: 'v', type: 'float' }], records: Array.from({ length: 1200 }, (_, i) => ({ n: i, v: i / 2 })) }, sys)).resource_id
    const { html } = await get(`/dataset/tab-big/resource/${big}?tab=chart&chart_type=line&x=n&y=v`)
    expect(html).toContain('data-points="1000"')
    expect(html).toContain('Only the first 1,000 of 1,200 rows, in the order of n, are shown.')
  })

  it('explains bad parameters on the page instead of failing', async () => {
    const cases: [string, string][] = [
      ['chart_type=pie&x=stop&y=riders', 'Unknown chart type "pie": choose bars, line or points.'],
      ['x=nope&y=riders', 'There is no column "nope" in this table.'],
      ['x=stop&y=region', 'Column "region" does not hold numbers'],
      ['x=stop&y=riders&aggregate=median', 'Unknown way to combine values "median"'],
      ['x=tags&y=riders', 'Column "tags" holds lists or JSON, which cannot be plotted.'],
      ['x=stop&y=', 'Choose a number column for the y axis, or combine by count.'],
      ['x=region&y=riders&group_by=region', 'Group by another column than the x axis.'],
      ['x=day&y=riders&group_by=stop&chart_type=line', 'Column "stop" has more than 7 values among the plotted rows'],
      ['x=stop&y=score&group_by=nope', 'There is no column "nope" in this table.'],
    ]
    for (const [q, message] of cases) {
      const { status, html } = await get(`${base}?tab=chart&${q}`)
      expect([q, status]).toEqual([q, 200])
      expect(html, q).toContain(message)
      expect(html, q).toContain('<div class="error" role="alert"><p>The chart cannot be drawn:</p>')
      expect(html, q).not.toContain('<svg viewBox="0 0 640')
    }
    const bad = await get(`${base}?tab=chart&x=nope&y=riders`)
    expect(bad.html).toContain('<select id="chart-x" name="x" aria-invalid="true" aria-describedby="chart-x-error">')
  })
})

describe('chart_view', () => {
  it('checks its keys', async () => {
    const r = await t.call('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'C', chart_type: 'pie', x: 'stop' }, sys)
    expect(r.body.error).toMatchObject({ __type: 'Validation Error', chart_type: ['Must be one of: bar, line, scatter'] })
    const noX = await t.call('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'C' }, sys)
    expect(noX.body.error).toMatchObject({ x: ['Missing value'] })
    const agg = await t.call('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'C', x: 'stop', aggregate: 'median' }, sys)
    expect(agg.body.error).toMatchObject({ aggregate: ['Must be one of: count, sum, avg, min, max'] })
    const extra = await t.call('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'C', x: 'stop', colour: 'red' }, sys)
    expect(extra.body.error.__extras).toBeDefined()
  })

  it('is saved by an editor from the Chart tab, and then drawn on the resource page', async () => {
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, editor.name, 'password123')
    const tab = await b.get(`${base}?tab=chart&chart_type=bar&x=region&y=riders&aggregate=sum`)
    expect(tab.html).toContain(`<form class="form" method="post" action="${base}/new_view"`)
    expect(tab.html).toContain('>Save as view</button>')
    // no CSRF token: refused
    const forged = await b.post(`${base}/new_view`, { chart_type: 'bar', x: 'region', y: 'riders', aggregate: 'sum', title: 'Forged' })
    expect(forged.res.status).toBe(403)
    const saved = await b.post(`${base}/new_view`, { _csrf_token: csrfOf(tab.html), chart_type: 'bar', x: 'region', y: 'riders', aggregate: 'sum', title: 'Riders by region' })
    expect(saved.res.status).toBe(303)
    const location = saved.res.headers.get('location')!
    const viewId = /#view-(.+)$/.exec(location)![1]!
    expect(location).toBe(`${base}#view-${viewId}`)
    const views = (await t.ok('resource_view_list', { id: rid })) as Dict[]
    expect(views.find((v) => v.id === viewId)).toMatchObject({ view_type: 'chart_view', title: 'Riders by region', chart_type: 'bar', x: 'region', y: 'riders', aggregate: 'sum' })
    expect(views.find((v) => v.id === viewId)!.group_by).toBeUndefined()
    const { html } = await get(base)
    expect(html).toContain(`<figure class="view chart" id="view-${viewId}">`)
    expect(html).toContain(`<title id="view-${viewId}-title">Riders by region</title>`)
    expect(count(html, '<rect class="bar"')).toBe(3)
    const groups = await search({ group_by: ['region'], aggregates: [{ function: 'sum', column: 'riders', as: 'value' }] })
    expect(chartTable(html)).toEqual(groups.map((g) => [g.region, fmt(g.value)]))
  })

  it('goes back to the Chart tab, which says why, when the chart is not one of the table', async () => {
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, editor.name, 'password123')
    const tab = await b.get(`${base}?tab=chart`)
    const before = ((await t.ok('resource_view_list', { id: rid })) as Dict[]).length
    const bad = await b.post(`${base}/new_view`, { _csrf_token: csrfOf(tab.html), chart_type: 'bar', x: 'nope', y: 'riders', title: 'Bad' })
    expect(bad.res.status).toBe(303)
    expect(bad.res.headers.get('location')).toBe(`${base}?tab=chart&chart_type=bar&x=nope&y=riders`)
    expect(((await t.ok('resource_view_list', { id: rid })) as Dict[]).length).toBe(before)
  })

  it('shows no button to others, and refuses their posts', async () => {
    const before = ((await t.ok('resource_view_list', { id: rid })) as Dict[]).length
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, outsider.name, 'password123')
    const tab = await b.get(`${base}?tab=chart&chart_type=bar&x=region&y=riders&aggregate=sum`)
    expect(tab.res.status).toBe(200)
    expect(tab.html).toContain('<rect class="bar"')
    expect(tab.html).not.toContain('Save as view')
    const post = await b.post(`${base}/new_view`, { _csrf_token: csrfOf(tab.html), chart_type: 'bar', x: 'region', y: 'riders', aggregate: 'sum', title: 'Mine' })
    expect(post.res.status).toBe(404)
    const api = await t.call('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'Mine', x: 'region', y: 'riders' }, outsider)
    expect(api.body.error.__type).toBe('Authorization Error')
    const anonymous = browser((path, init) => t.app.request(path, init))
    const anon = await anonymous.get(`${base}?tab=chart`)
    expect(anon.html).not.toContain('Save as view')
    const anonPost = await anonymous.post(`${base}/new_view`, { _csrf_token: csrfOf((await anonymous.get('/user/login')).html), chart_type: 'bar', x: 'region', y: 'riders' })
    expect(anonPost.res.status).toBe(303)
    expect(anonPost.res.headers.get('location')).toMatch(/^\/user\/login\?came_from=/)
    expect(((await t.ok('resource_view_list', { id: rid })) as Dict[]).length).toBe(before)
  })

  it('shows what is wrong in its place when its columns are not the table\'s', async () => {
    const v = await t.ok('resource_view_create', { resource_id: rid, view_type: 'chart_view', title: 'Gone', x: 'vanished', y: 'riders' }, sys)
    const { status, html } = await get(base)
    expect(status).toBe(200)
    expect(html).toContain(`<figure class="view chart" id="view-${v.id}"><p role="alert">This chart cannot be drawn: There is no column "vanished" in this table.</p><figcaption>Gone</figcaption></figure>`)
    await t.ok('resource_view_delete', { id: v.id }, sys)
  })

  it('has no button where chart_view is not enabled', async () => {
    const off = await setup({ 'service.views.plugins': 'image_view recline_view' })
    const admin = await off.make.sysadmin()
    const ds = await off.make.dataset(admin, { name: 'tab-off' })
    const r = (await off.ok('datastore_create', { resource: { package_id: ds.id, name: 'T' }, fields: FIELDS, records: rows(5) }, admin)).resource_id
    const res = await off.app.request(`/dataset/tab-off/resource/${r}?tab=chart`, { headers: { authorization: admin.apikey } })
    const html = await res.text()
    expect(html).toContain('<rect class="bar"')
    expect(html).not.toContain('Save as view')
  })
})

describe('a private table', () => {
  it('refuses its tabs and charts to an anonymous visitor and to outsiders, and shows them to an editor', async () => {
    const v = await t.ok('resource_view_create', { resource_id: privRid, view_type: 'chart_view', title: 'Secret chart', x: 'hidden_label', y: 'secretcol' }, sys)
    await drain(t.deps.jobs, jobKinds, t.deps)
    for (const path of [privBase, `${privBase}?tab=profile`, `${privBase}?tab=chart`, `${privBase}?tab=chart&x=hidden_label&y=secretcol`]) {
      for (const as of [undefined, outsider]) {
        const { status, html } = await get(path, as)
        expect([path, status]).toEqual([path, 404])
        // (the URL itself is echoed in links; the page's content shows nothing of the table)
        const main = html.slice(html.indexOf('<main'), html.indexOf('</main>'))
        expect(main).toContain('Resource not found')
        for (const secret of ['secretcol', 'hidden_label', 'classified-value', 'Secret chart', v.id]) expect(main, path).not.toContain(secret)
        if (!path.includes('x=')) expect(html, path).not.toContain('secretcol')
      }
    }
    const profile = await get(`${privBase}?tab=profile`, editor)
    expect(profile.status).toBe(200)
    expect(profile.html).toContain('<li><h4>secretcol</h4>')
    const page = await get(privBase, editor)
    expect(page.html).toContain(`<title id="view-${v.id}-title">Secret chart</title>`)
    expect(chartTable(page.html)).toEqual([['classified-value', '7']])
  })
})
