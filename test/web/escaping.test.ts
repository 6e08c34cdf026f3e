// Issue 18, acceptance 4: every value a user controls, filled with markup and attribute-breaking
// text, comes out escaped on every page (no live <script>, no broken-out attribute, no javascript: link).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { mapAssets } from '../../src/web/map/client'

const EVIL = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`
const URL_EVIL = 'javascript:alert(3)'
let t: TestEnv
let pages: string[] = []
let signedIn: string[] = []
let key = ''

beforeAll(async () => {
  t = await setup({ 'service.site_title': `Site ${EVIL}`, 'service.site_intro_text': `Intro ${EVIL}`, 'service.site_about': `About ${EVIL}` })
  const sys = await t.make.sysadmin()
  key = sys.apikey
  await t.ok('user_update', { id: sys.id, email: 'a@example.com', fullname: `Full ${EVIL}`, about: `About me ${EVIL}` }, sys)
  const org = await t.ok('organization_create', { name: 'evil-org', title: `Org ${EVIL}`, description: `Desc ${EVIL} [x](${URL_EVIL})` }, sys)
  await t.ok('group_create', { name: 'evil-group', title: `Group ${EVIL}`, description: `Group desc ${EVIL}` }, sys)
  const d = await t.ok(
    'package_create',
    {
      name: 'evil-dataset',
      title: `Title ${EVIL}`,
      notes: `Notes ${EVIL} [click](${URL_EVIL}) <b onmouseover=alert(4)>x</b>`,
      owner_org: org.id,
      groups: [{ name: 'evil-group' }],
      tags: [{ name: 'tag-x' }],
      author: `Author ${EVIL}`,
      maintainer: `Maint ${EVIL}`,
      version: `1 ${EVIL}`.slice(0, 100),
      url: URL_EVIL,
      license_id: 'cc-by',
      extras: [{ key: `key ${EVIL}`, value: `value ${EVIL}` }],
      resources: [{ name: `Res ${EVIL}`, url: URL_EVIL, format: `F${EVIL}`.slice(0, 90), description: `Res desc ${EVIL}` }],
    },
    sys,
  )
  const ds = await t.ok(
    'datastore_create',
    {
      resource: { package_id: d.id, name: `Table ${EVIL}` },
      fields: [{ id: 'col', type: 'text', info: { label: `Label ${EVIL}`, notes: `Col notes ${EVIL}` } }],
      records: [{ col: EVIL }],
    },
    sys,
  )
  const res = (await t.ok('package_show', { id: d.id }, sys)).resources[0].id
  pages = [
    '/',
    '/about',
    '/dataset',
    `/dataset?q=${encodeURIComponent(EVIL)}`,
    `/dataset?${encodeURIComponent(EVIL)}=${encodeURIComponent(EVIL)}&tags=${encodeURIComponent(EVIL)}`,
    '/dataset/evil-dataset',
    `/dataset/evil-dataset/resource/${res}`,
    `/dataset/evil-dataset/resource/${ds.resource_id}`,
    `/dataset/evil-dataset/resource/${ds.resource_id}?q=${encodeURIComponent(EVIL)}&sort=${encodeURIComponent(EVIL)}`,
    '/organization',
    '/organization/evil-org',
    '/group',
    '/group/evil-group',
    `/user/${sys.name}`,
    `/no-such/${encodeURIComponent(EVIL)}`,
  ]
  // the same pages and the forms, as a signed-in sysadmin (follow buttons, edit links, the dashboard)
  await t.ok('follow_dataset', { id: d.id }, sys)
  signedIn = [...pages, '/dashboard', '/dataset/new', '/dataset/evil-dataset/resource/new', `/login?came_from=${encodeURIComponent(EVIL)}`, `/user/login?came_from=${encodeURIComponent(EVIL)}`]
})

describe('user-controlled text on every page', () => {
  it('is escaped: no script element, no event-handler attribute, no javascript: link', async () => {
    expect(pages.length).toBeGreaterThan(10)
    const requests = [...pages.map((p) => [p, null] as const), ...signedIn.map((p) => [p, key] as const)]
    for (const [path, as] of requests) {
      const res = await t.app.request(path, { headers: as ? { authorization: as } : {} })
      const html = await res.text()
      expect([path, res.status < 500]).toEqual([path, true])
      // the one script element allowed is the JSON-LD data block, and its JSON cannot end it early
      const blocks = [...html.matchAll(/<script type="application\/ld\+json">([^<]*)<\/script>/g)]
      for (const [, json] of blocks) expect(JSON.parse(json!)['@type']).toBe('Dataset')
      // and the site's own map scripts (Leaflet and the map script, on pages with a map), by their fixed paths
      const rest = html
        .replace(/<script type="application\/ld\+json">[^<]*<\/script>/g, '')
        .replaceAll(`<script defer="" src="${mapAssets.leafletJs.path}"></script>`, '')
        .replaceAll(`<script defer="" src="${mapAssets.script.path}"></script>`, '')
      expect([path, rest.includes('<script')]).toEqual([path, false])
      // attribute values emptied first: a value may hold the text " onerror=", only a break-out matters
      const tags = rest.replace(/"[^"]*"/g, '""')
      expect([path, /<[^>]+\son(error|mouseover)=/i.test(tags)]).toEqual([path, false])
      expect([path, /href="\s*javascript:/i.test(html)]).toEqual([path, false])
      // the text itself is there, escaped (the page really shows the hostile value)
      if (!/^\/(no-such|dataset\/new|login|user\/login)/.test(path)) expect([path, html.includes('&lt;script&gt;')]).toEqual([path, true])
    }
  })
})
