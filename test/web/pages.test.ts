// Issue 18, the read pages: each page renders from the same actions as the API, private objects
// stay out of an anonymous visitor's pages, and the API's own 404s are unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string; name: string; id: string }
let org: any
let group: any
let pub: any
let priv: any
let resourceId: string

async function page(path: string, as?: { apikey: string } | null) {
  const res = await t.app.request(path, { headers: as ? { authorization: as.apikey } : {} })
  return { status: res.status, type: res.headers.get('content-type') ?? '', html: await res.text() }
}

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  org = await t.make.organization(sys, { name: 'water-board', title: 'Water Board', description: 'Keeps the **rivers** clean' })
  group = await t.make.group(sys, { name: 'environment', title: 'Environment' })
  pub = await t.ok(
    'package_create',
    {
      name: 'river-levels',
      title: 'River levels',
      notes: 'Daily *river* levels.\n\n- one\n- two',
      owner_org: org.id,
      groups: [{ name: 'environment' }],
      tags: [{ name: 'water' }, { name: 'rivers' }],
      license_id: 'cc-by',
      extras: [{ key: 'frequency', value: 'daily' }],
      resources: [{ name: 'Levels CSV', url: 'http://example.com/levels.csv', format: 'CSV' }],
    },
    sys,
  )
  priv = await t.ok('package_create', { name: 'secret-plans', title: 'Secret plans', owner_org: org.id, private: true }, sys)
  const ds = await t.ok(
    'datastore_create',
    {
      resource: { package_id: pub.id, name: 'Gauges' },
      fields: [{ id: 'station', type: 'text' }, { id: 'level', type: 'float' }],
      records: Array.from({ length: 45 }, (_, i) => ({ station: `S${String(i).padStart(2, '0')}`, level: i / 10 })),
    },
    sys,
  )
  resourceId = ds.resource_id
})
afterAll(() => t?.client.close())

describe('site settings', () => {
  it('shows the title, description, logo, intro and about page, editable at runtime with config_option_update', async () => {
    await t.ok(
      'config_option_update',
      {
        'ckan.site_title': 'River Data Portal',
        'ckan.site_description': 'Water data for everyone',
        'ckan.site_logo': 'https://example.com/logo.png',
        'ckan.site_intro_text': 'Welcome to the **river** portal.',
        'ckan.site_about': 'We measure *rivers*.',
      },
      sys,
    )
    const home = await page('/')
    expect(home.html).toContain('<title>River Data Portal</title>')
    expect(home.html).toContain('<meta name="description" content="Water data for everyone"/>')
    expect(home.html).toContain('<img src="https://example.com/logo.png" alt=""/>')
    expect(home.html).toContain('Welcome to the <strong>river</strong> portal.')
    expect(home.html).toContain('href="/about"')
    const about = await page('/about')
    expect(about.html).toContain('<em>rivers</em>')
    expect((await page('/dataset')).html).toContain('<title>Datasets - River Data Portal</title>')
    await t.ok('config_option_update', { 'ckan.site_title': 'CKAN', 'ckan.site_logo': '/base/images/ckan-logo.png', 'ckan.site_about': '' }, sys)
    const reset = await page('/')
    expect(reset.html).not.toContain('<img')
    expect(reset.html).not.toContain('href="/about"')
  })
})

describe('for search engines and harvesters', () => {
  it('a dataset page carries schema.org Dataset JSON-LD', async () => {
    const r = await page('/dataset/river-levels')
    const ld = JSON.parse(/<script type="application\/ld\+json">([^<]*)<\/script>/.exec(r.html)![1]!)
    expect(ld).toMatchObject({
      '@context': 'https://schema.org/',
      '@type': 'Dataset',
      name: 'River levels',
      identifier: pub.id,
      keywords: expect.arrayContaining(['water', 'rivers']),
      publisher: { '@type': 'Organization', name: 'Water Board' },
      distribution: [{ '@type': 'DataDownload', name: 'Levels CSV', contentUrl: 'http://example.com/levels.csv', encodingFormat: 'text/csv' }, expect.anything()],
    })
    expect(ld.url).toMatch(/\/dataset\/river-levels$/)
  })

  it('sitemap.xml lists the public datasets and pages only, whoever asks; robots.txt points to it', async () => {
    const index = await page('/sitemap.xml', sys)
    expect(index.status).toBe(200)
    expect(index.type).toMatch(/xml/)
    expect(index.html).toContain('/sitemap-0.xml</loc>')
    expect(index.html).toContain('/sitemap-1.xml</loc>')
    expect(index.html).not.toContain('/sitemap-2.xml')
    const datasets = await page('/sitemap-1.xml', sys)
    expect(datasets.html).toContain('/dataset/river-levels</loc>')
    expect(datasets.html).not.toContain('secret-plans')
    expect(datasets.html).toMatch(/<lastmod>\d{4}-\d\d-\d\d<\/lastmod>/)
    const pages0 = await page('/sitemap-0.xml')
    expect(pages0.html).toContain('/organization/water-board</loc>')
    expect(pages0.html).toContain('/group/environment</loc>')
    expect((await page('/sitemap-7.xml')).status).toBe(404)
    expect((await page('/robots.txt')).html).toMatch(/Sitemap: \S+\/sitemap\.xml/)
  })
})

describe('the read pages', () => {
  it('home: counts, newest datasets, organizations, a search form', async () => {
    const r = await page('/')
    expect(r.status).toBe(200)
    expect(r.type).toMatch(/^text\/html/)
    expect(r.html.startsWith('<!doctype html>')).toBe(true)
    expect(r.html).toContain('action="/dataset"')
    expect(r.html).toContain('River levels')
    expect(r.html).toContain('Water Board')
    expect(r.html).not.toContain('Secret plans')
  })

  it('/dataset searches with q, filters by facet links, and pages', async () => {
    const all = await page('/dataset')
    expect(all.status).toBe(200)
    expect(all.html).toMatch(/<strong>1<\/strong> dataset found/)
    expect(all.html).toContain('href="/dataset?tags=water"')
    const q = await page('/dataset?q=river')
    expect(q.html).toContain('River levels')
    const none = await page('/dataset?q=nothingatall')
    expect(none.html).toMatch(/<strong>0<\/strong> datasets found/)
    const faceted = await page('/dataset?tags=water')
    expect(faceted.html).toContain('River levels')
    expect(faceted.html).toContain('aria-current="true"') // the active facet, a link that removes it
    const other = await page('/dataset?tags=nope')
    expect(other.html).not.toContain('River levels')
    const broken = await page('/dataset?q=%22unclosed')
    expect(broken.status).toBe(200)
  })

  it('a signed-in member sees the private dataset in search; a visitor does not', async () => {
    expect((await page('/dataset?q=secret')).html).not.toContain('Secret plans')
    const mine = await page('/dataset?q=secret', sys)
    expect(mine.html).toContain('Secret plans')
    expect(mine.html).toContain('Private')
  })

  it('/dataset/<name>: Markdown notes, resources, tags, organization, groups, license, extras', async () => {
    const r = await page('/dataset/river-levels')
    expect(r.status).toBe(200)
    expect(r.html).toContain('<em>river</em>')
    expect(r.html).toContain('<li>one</li>')
    expect(r.html).toContain('Levels CSV')
    expect(r.html).toContain('href="/dataset?tags=rivers"')
    expect(r.html).toContain('href="/organization/water-board"')
    expect(r.html).toContain('href="/group/environment"')
    expect(r.html).toContain('frequency')
    expect(r.html).toContain(`<link rel="alternate" type="application/json" href="/api/3/action/package_show?id=${pub.id}"`)
    expect((await page(`/dataset/${pub.id}`)).status).toBe(200)
  })

  it('a private dataset page is a 404 for a visitor, the page for its organization', async () => {
    const anon = await page('/dataset/secret-plans')
    expect(anon.status).toBe(404)
    expect(anon.html).not.toContain('Secret plans')
    expect((await page('/dataset/secret-plans', sys)).html).toContain('Secret plans')
    expect((await page('/dataset/no-such-thing')).status).toBe(404)
  })

  it('a DataStore resource page previews rows page by page, sorted and filtered, with its dictionary', async () => {
    const base = `/dataset/river-levels/resource/${resourceId}`
    const first = await page(base)
    expect(first.status).toBe(200)
    expect(first.html).toContain('45 rows')
    expect(first.html).toContain('<td>S00</td>')
    expect(first.html).not.toContain('<td>S20</td>')
    const third = await page(`${base}?page=3`)
    expect(third.html).toContain('<td>S40</td>')
    expect(third.html).not.toContain('<td>S00</td>')
    const desc = await page(`${base}?sort=level%20desc`)
    expect(desc.html.indexOf('<td>S44</td>')).toBeGreaterThan(0)
    expect(desc.html).toContain('aria-sort="descending"')
    const filtered = await page(`${base}?q=S07`)
    expect(filtered.html).toContain('1 row matches')
    const badSort = await page(`${base}?sort=nope`)
    expect(badSort.status).toBe(200)
    expect(badSort.html).toContain('could not be sorted')
    expect(first.html).toContain('Data dictionary')
    expect((await page(`/dataset/river-levels/resource/not-a-resource`)).status).toBe(404)
    expect((await page(`/dataset/secret-plans/resource/${resourceId}`)).status).toBe(404)
  })

  it('organization and group lists and pages list only what the caller may see', async () => {
    const orgs = await page('/organization')
    expect(orgs.html).toContain('href="/organization/water-board"')
    const o = await page('/organization/water-board')
    expect(o.status).toBe(200)
    expect(o.html).toContain('<strong>rivers</strong>')
    expect(o.html).toContain('River levels')
    expect(o.html).not.toContain('Secret plans')
    expect((await page('/organization/water-board', sys)).html).toContain('Secret plans')
    const g = await page('/group/environment')
    expect(g.html).toContain('River levels')
    expect((await page('/group')).html).toContain('href="/group/environment"')
    expect((await page('/organization/nope')).status).toBe(404)
  })

  it('a user page lists the datasets they created that the caller may see', async () => {
    const u = await page(`/user/${sys.name}`)
    expect(u.status).toBe(200)
    expect(u.html).toContain('River levels')
    expect(u.html).not.toContain('Secret plans')
    expect((await page('/user/nobody-here')).status).toBe(404)
  })

  it('unknown pages get the 404 page; the API keeps its own 404s; the stylesheet is cached for a year', async () => {
    const r = await page('/no/such/page')
    expect(r.status).toBe(404)
    expect(r.type).toMatch(/^text\/html/)
    expect(r.html).toContain('not found')
    const api = await t.app.request('/api/3/nothing')
    expect(api.status).toBe(404)
    expect(await api.text()).toBe('404 Not Found')
    const css = /href="(\/static\/site-[0-9a-f]{8}\.css)"/.exec(r.html)![1]!
    const sheet = await t.app.request(css)
    expect(sheet.status).toBe(200)
    expect(sheet.headers.get('cache-control')).toContain('immutable')
    expect((await page('/robots.txt')).html).toContain('Disallow: /api/')
  })
})
