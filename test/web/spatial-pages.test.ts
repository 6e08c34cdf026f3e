// Issue 30 item 3, the maps on pages without a browser: the dataset page's "Dataset extent" (an
// SVG of the `spatial` geometry over the world's land, its bounding box in words), the search
// pages' "Filter by area" (a form of four numbers checked as forms are, `ext_bbox` kept across
// links and passed on to package_search), the files the script maps load, and the tile settings
// (ckanext.spatial.common_map.*) the page hands to the script.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, signIn, type Browser } from '../helpers/web-browser'
import { LEAFLET_CSS, LEAFLET_JS, LEAFLET_VERSION } from '../../src/web/map/leaflet-dist'
import { mapAssets } from '../../src/web/map/client'
import { LAND_GEOJSON, WORLD_SVG } from '../../src/web/map/maps'
import { boxRects, checkBbox, parseBbox } from '../../src/web/map/geo'

const POLYGON = { type: 'Polygon', coordinates: [[[-3.5, 50.2], [1.8, 50.2], [1.8, 55.8], [-3.5, 55.8], [-3.5, 50.2]]] }
const F = 'test/fixtures/scheming/'

let t: TestEnv
let anon: Browser
let member: Browser
let sys: any
let org: any

const get = async (path: string) => {
  const r = await anon.get(path)
  return { status: r.res.status, html: r.html, location: r.res.headers.get('location') }
}
const unescape = (s: string) => s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'")
const hrefs = (html: string) => [...html.matchAll(/ href="([^"]*)"/g)].map((m) => unescape(m[1]!))

beforeAll(async () => {
  t = await setup({ 'scheming.dataset_schemas': `${F}river-photos.yaml`, 'scheming.presets': `ckanext.scheming:presets.json ${F}presets-extra.json`, 'scheming.choices_helpers': `${F}choices-helpers.yaml` })
  sys = await t.make.sysadmin()
  org = await t.make.organization(sys, { name: 'coast-office' })
  const u = await t.make.user({ name: 'coast-member', password: 'member password' })
  await t.ok('organization_member_create', { id: org.id, username: u.name, role: 'member' }, sys)
  await t.make.dataset(sys, { name: 'channel-survey', title: 'Channel survey', owner_org: org.id, tags: [{ name: 'coast' }], extras: [{ key: 'spatial', value: JSON.stringify(POLYGON) }] })
  await t.make.dataset(sys, { name: 'lighthouse', title: 'Lighthouse', owner_org: org.id, extras: [{ key: 'spatial', value: '{"type":"Point","coordinates":[-5.7,50.07]}' }] })
  await t.make.dataset(sys, { name: 'no-place', title: 'No place', owner_org: org.id })
  // a value written before the spatial extra was checked on write (no action stores one now)
  const bad = await t.make.dataset(sys, { name: 'bad-place', title: 'Bad place', owner_org: org.id })
  await t.deps.writer.write([
    { sql: `INSERT INTO package_extra (id, package_id, key, value) VALUES ('bad-place-spatial', ?, 'spatial', 'somewhere near the sea')`, args: [bad.id] },
    { sql: `INSERT INTO change_log (entity_type, entity_id, op) VALUES ('package', ?, 'upsert')`, args: [bad.id] },
  ])
  await t.deps.changes.catchUp()
  await t.make.dataset(sys, {
    name: 'secret-reef',
    title: 'Secret reef',
    owner_org: org.id,
    private: true,
    extras: [{ key: 'spatial', value: JSON.stringify({ type: 'Point', coordinates: [147.123456, -18.654321] }) }],
  })
  // enough datasets in the box for a second page of results
  const inBox = JSON.stringify({ type: 'Point', coordinates: [0, 52] })
  for (let i = 0; i < 21; i++)
    await t.make.dataset(sys, { name: `filler-${i}`, title: `Filler ${i}`, owner_org: org.id, tags: [{ name: 'coast' }], extras: [{ key: 'spatial', value: inBox }] })
  anon = browser((path, init) => t.app.request(path, init))
  member = browser((path, init) => t.app.request(path, init))
  await signIn(member, 'coast-member', 'member password')
}, 60_000)

describe('the dataset page map', () => {
  it('shows the extent of a polygon as an SVG over the world, with its bounding box in words', async () => {
    const { status, html } = await get('/dataset/channel-survey')
    expect(status).toBe(200)
    expect(html).toContain('<h2 id="map-extent-heading">Dataset extent</h2>')
    const svg = /<svg class="map-svg"[^>]*>([\s\S]*?)<\/svg>/.exec(html)
    expect(svg?.[0]).toContain('role="img"')
    expect(svg?.[0]).toContain('aria-labelledby="map-extent-caption"')
    expect(svg![1]).toContain(`<image href="${WORLD_SVG}"`)
    // the polygon, drawn in the SVG's half-degree units: x = (lon + 180) * 2, y = (90 - lat) * 2
    const d = /<path class="map-geometry" d="([^"]+)"/.exec(svg![1]!)![1]!
    const xs = [...d.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => Number(m[1]))
    const ys = [...d.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => Number(m[2]))
    expect(Math.min(...xs)).toBeCloseTo(353, 0)
    expect(Math.max(...xs)).toBeCloseTo(363.6, 0)
    expect(Math.min(...ys)).toBeCloseTo(68.4, 0)
    expect(Math.max(...ys)).toBeCloseTo(79.6, 0)
    expect(svg![1]).toContain('<rect class="map-box" x="353" y="68.4" width="10.6" height="11.2">')
    expect(d).toBe('M353,79.6L353,68.4L363.6,68.4L363.6,79.6Z') // the same in workerd (test/worker/pages.test.ts)
    expect(html).toContain('<figcaption id="map-extent-caption">Bounding box: west -3.5, south 50.2, east 1.8, north 55.8 (degrees)</figcaption>')
    // the script map's data and files
    expect(html).toContain('data-map="extent"')
    expect(unescape(/data-extent="([^"]*)"/.exec(html)![1]!)).toBe(JSON.stringify(POLYGON))
    expect(html).toContain(`<script defer="" src="${mapAssets.leafletJs.path}"></script>`)
    expect(html).toContain(`<script defer="" src="${mapAssets.script.path}"></script>`)
    expect(html).toContain(`<link rel="stylesheet" href="${mapAssets.css.path}"/>`)
  })

  it('draws a point and reads a scheming spatial field as well as the extra', async () => {
    const { html } = await get('/dataset/lighthouse')
    expect(html).toContain('Bounding box: west -5.7, south 50.07, east -5.7, north 50.07 (degrees)')
    expect(html).toMatch(/<path class="map-geometry" d="M348.6,79.9m0,[^"]+a/) // d3-geo's circle for a point
  })

  it('shows no map, and loads no map script, for a dataset without a readable geometry', async () => {
    for (const name of ['no-place', 'bad-place']) {
      const { status, html } = await get(`/dataset/${name}`)
      expect(status).toBe(200)
      expect(html).not.toContain('Dataset extent')
      expect(html).not.toContain('<svg')
      expect(html).not.toContain('<script defer')
    }
    expect((await get('/dataset/bad-place')).html).toContain('somewhere near the sea') // still listed as an extra
  })

  it('never shows a private dataset\'s geometry to those who may not see the dataset', async () => {
    const page = await get('/dataset/secret-reef')
    expect(page.status).toBe(404)
    expect(page.html).not.toContain('147.12')
    expect(page.html).not.toContain('map-geometry')
    const search = await get('/dataset?ext_bbox=140,-25,150,-10')
    expect(search.html).not.toContain('Secret reef')
    expect(search.html).not.toContain('147.12')
    // a member of the organization sees it, map included
    const seen = await member.get('/dataset/secret-reef')
    expect(seen.res.status).toBe(200)
    expect(seen.html).toContain('Bounding box: west 147.123, south -18.654, east 147.123, north -18.654 (degrees)')
    // and finds it by area, without the datasets elsewhere
    const found = (await member.get('/dataset?ext_bbox=140,-25,150,-10')).html
    expect(found).toContain('Secret reef')
    expect(found).not.toContain('Lighthouse')
    expect(found).not.toContain('Channel survey')
  })
})

describe('the search page area filter', () => {
  it('offers the box form and a world map when no area is chosen', async () => {
    const { html } = await get('/dataset?q=survey')
    expect(html).toContain('<h2 id="area-heading">Filter by area</h2>')
    for (const f of ['west', 'south', 'east', 'north']) expect(html).toMatch(new RegExp(`<input id="area-${f}" data-part="${f}" type="number" step="any"[^>]* name="_${f}" value=""`))
    expect(html).toContain('<input type="hidden" name="q" value="survey"/>')
    expect(html).toContain('aria-label="World map; no search area chosen"')
    expect(html).not.toContain('class="map-box"')
    expect(html).not.toContain('area-active')
    expect(html).toContain('data-map="search"')
  })

  it('turns a valid box into ext_bbox on the same search (keeping q and filters, dropping the page)', async () => {
    const r = await get('/dataset?q=survey&tags=coast&page=2&_west=-4&_south=50&_east=2&_north=56')
    expect(r.status).toBe(303)
    const to = new URL(r.location!, 'http://x')
    expect(to.pathname).toBe('/dataset')
    expect([...to.searchParams]).toEqual([['q', 'survey'], ['tags', 'coast'], ['ext_bbox', '-4,50,2,56']])
    // a page in another language stays in it
    const fr = await get('/fr/dataset?_west=-4&_south=50&_east=2&_north=56')
    expect(fr.status).toBe(303)
    expect(fr.location).toBe('/fr/dataset?ext_bbox=-4%2C50%2C2%2C56')
  })

  it.each([
    [{ _west: '', _south: '50', _east: '2', _north: '56' }, '_west', 'Missing value'],
    [{ _west: 'far west', _south: '50', _east: '2', _north: '56' }, '_west', 'Enter a number of degrees, such as -3.5'],
    [{ _west: '-4', _south: '50', _east: '200', _north: '56' }, '_east', 'A longitude lies between -180 and 180'],
    [{ _west: '-4', _south: '50', _east: '2', _north: '91' }, '_north', 'A latitude lies between -90 and 90'],
    [{ _west: '-4', _south: '56', _east: '2', _north: '50' }, '_south', 'South must not be greater than north'],
    [{ _west: '1e999', _south: '50', _east: '2', _north: '56' }, '_west', 'Enter a number of degrees, such as -3.5'],
  ])('shows the error of %j by its field and keeps what was typed', async (fields, name, message) => {
    const qs = new URLSearchParams({ q: 'survey', ...fields })
    const { status, html } = await get(`/dataset?${qs}`)
    expect(status).toBe(200)
    expect(html).toContain(`<p class="field-error" id="${name}-error">${message}</p>`)
    expect(html).toMatch(new RegExp(`name="${name}" value="${(fields as Record<string, string>)[name]!.replace(/[.+]/g, '\\$&')}"[^>]*aria-invalid="true" aria-describedby="${name}-error"`))
    expect(html).not.toContain('area-active') // no box applied
    expect(html).toContain('<input type="hidden" name="q" value="survey"/>')
  })

  it('shows the chosen box as an active filter, on the map, and keeps ext_bbox across facets, paging and the search form', async () => {
    const { html } = await get('/dataset?tags=coast&ext_bbox=-4,50,2,56')
    expect(html).toContain('Area filter on. Bounding box: west -4, south 50, east 2, north 56 (degrees).')
    expect(html).toContain('aria-label="World map with the search area: Bounding box: west -4, south 50, east 2, north 56 (degrees)"')
    expect(html).toContain('<rect class="map-box" x="352" y="68" width="12" height="12">')
    expect(html).toContain('data-bbox="-4,50,2,56"')
    const links = hrefs(html)
    // removing the area keeps the other filters
    expect(links).toContain('/dataset?tags=coast')
    // facet links (adding and removing) and the pager keep the area
    const facet = links.filter((l) => l.startsWith('/dataset?') && l.includes('organization='))
    expect(facet.length).toBeGreaterThan(0)
    for (const l of facet) expect(new URL(l, 'http://x').searchParams.get('ext_bbox')).toBe('-4,50,2,56')
    expect(links).toContain('/dataset?tags=coast&ext_bbox=-4%2C50%2C2%2C56')
    expect(links.some((l) => /page=2/.test(l) && l.includes('ext_bbox=-4%2C50%2C2%2C56'))).toBe(true)
    // the search form sends it again; the box form shows it and does not send it twice
    expect(html).toContain('<input type="hidden" name="ext_bbox" value="-4,50,2,56"/>')
    expect(html).toMatch(/name="_west" value="-4"/)
    expect(html.match(/name="ext_bbox"/g)).toHaveLength(1)
  })

  it('passes ext_bbox on to package_search (the page\'s API link is the call it made)', async () => {
    const { html } = await get('/dataset?q=survey&ext_bbox=-4,50,2,56')
    const api = unescape(/<link rel="alternate" type="application\/json" href="([^"]+)"/.exec(html)![1]!)
    const params = new URL(api, 'http://x').searchParams
    expect(params.get('ext_bbox')).toBe('-4,50,2,56')
    expect(params.get('q')).toBe('survey')
    const answer = await t.app.request(api)
    expect(answer.status).toBe(200)
  })

  it('leaves a malformed ext_bbox out of the search and says so', async () => {
    const { status, html } = await get('/dataset?ext_bbox=1,2,3')
    expect(status).toBe(200)
    expect(html).toContain('The area in the address is not a box (west,south,east,north in degrees); it was left out of the search.')
    expect(html).not.toContain('area-active')
    const api = unescape(/<link rel="alternate" type="application\/json" href="([^"]+)"/.exec(html)![1]!)
    expect(api).not.toContain('ext_bbox')
  })

  it('draws a box across the antimeridian as two rectangles', async () => {
    const { html } = await get('/dataset?ext_bbox=170,-20,-170,-10')
    expect(html.match(/class="map-box"/g)).toHaveLength(2)
    expect(html).toContain('<rect class="map-box" x="700" y="200" width="20" height="20">')
    expect(html).toContain('<rect class="map-box" x="0" y="200" width="20" height="20">')
  })

  it('is on a schema type\'s search page too, but not on an organization\'s', async () => {
    const typed = await get('/river-photos/?ext_bbox=-4,50,2,56')
    expect(typed.html).toContain('Filter by area')
    expect(typed.html).toContain('action="/river-photos/"')
    expect(hrefs(typed.html)).toContain('/river-photos/')
    const r = await get('/river-photos/?_west=-4&_south=50&_east=2&_north=56')
    expect(r.location).toBe('/river-photos/?ext_bbox=-4%2C50%2C2%2C56')
    expect((await get('/organization/coast-office')).html).not.toContain('Filter by area')
  })

  it('is translated', async () => {
    const { html } = await get('/de/dataset?ext_bbox=-4,50,2,56')
    expect(html).toContain('Nach Gebiet filtern')
    expect(html).toContain('Gebietsfilter entfernen')
    // the map files are not pages: no language prefix
    expect(html).toContain(`src="${mapAssets.script.path}"`)
  })
})

describe('the files the maps load', () => {
  it('serves Leaflet as installed (regenerate with scripts/vendor-leaflet.ts after an upgrade)', async () => {
    const dir = join(process.cwd(), 'node_modules/leaflet')
    expect(LEAFLET_VERSION).toBe(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version)
    expect(LEAFLET_JS.trim()).toBe(readFileSync(join(dir, 'dist/leaflet.js'), 'utf8').replace(/\/\/# sourceMappingURL=.*\s*$/, '').trim())
    expect(LEAFLET_CSS).toBe(readFileSync(join(dir, 'dist/leaflet.css'), 'utf8'))
    const r = await t.app.request(mapAssets.leafletJs.path)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('javascript')
    expect(r.headers.get('cache-control')).toContain('immutable')
    expect(await r.text()).toBe(LEAFLET_JS)
  })

  it('serves the map script, its stylesheet, and the world\'s land as SVG and GeoJSON', async () => {
    expect((await t.app.request(mapAssets.script.path)).headers.get('content-type')).toContain('javascript')
    expect(await (await t.app.request(mapAssets.css.path)).text()).toContain('.leaflet-container')
    const svg = await t.app.request(WORLD_SVG)
    expect(svg.headers.get('content-type')).toContain('image/svg+xml')
    const text = await svg.text()
    expect(text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 720 360"/)
    expect(text.length).toBeGreaterThan(20_000) // the continents
    const land = await (await t.app.request(LAND_GEOJSON)).json()
    expect(land.type).toBe('FeatureCollection')
    expect(land.features[0].geometry.type).toBe('MultiPolygon')
  })
})

describe('the tile settings (ckanext.spatial.common_map.*)', () => {
  const configOf = (html: string) => JSON.parse(unescape(/data-map-config="([^"]*)"/.exec(html)![1]!))

  it('hands the script no tile URL when none is set', async () => {
    expect(configOf((await get('/dataset/channel-survey')).html)).toEqual({})
  })

  it('hands it the custom layer\'s URL, subdomains, tms and attribution', async () => {
    const s = await setup({
      'ckanext.spatial.common_map.type': 'custom',
      'ckanext.spatial.common_map.custom_url': 'https://{s}.tiles.example.org/{z}/{x}/{y}.png',
      'ckanext.spatial.common_map.subdomains': 'ab',
      'ckanext.spatial.common_map.tms': 'true',
      'ckanext.spatial.common_map.attribution': 'Tiles <b>Example</b>',
    })
    const html = await (await s.app.request('/dataset')).text()
    expect(configOf(html)).toEqual({ url: 'https://{s}.tiles.example.org/{z}/{x}/{y}.png', subdomains: 'ab', tms: true, attribution: 'Tiles <b>Example</b>' })
    // custom.url is read too; a leaflet-providers name gives no tiles (not built in)
    const alt = await setup({ 'ckanext.spatial.common_map.custom.url': 'https://t.example.org/{z}/{x}/{y}.png' })
    expect(configOf(await (await alt.app.request('/dataset')).text())).toEqual({ url: 'https://t.example.org/{z}/{x}/{y}.png' })
    const provider = await setup({ 'ckanext.spatial.common_map.type': 'Stadia.StamenTerrain', 'ckanext.spatial.common_map.custom_url': 'https://t.example.org/{z}/{x}/{y}.png' })
    expect(configOf(await (await provider.app.request('/dataset')).text())).toEqual({})
  })
})

describe('the box checks', () => {
  it('reads ext_bbox values', () => {
    expect(parseBbox('-4,50,2,56')).toEqual([-4, 50, 2, 56])
    expect(parseBbox(' -4 , 50 , 2 , 56 ')).toEqual([-4, 50, 2, 56])
    expect(parseBbox('170,-20,-170,-10')).toEqual([170, -20, -170, -10])
    for (const bad of ['', '1,2,3', '1,2,3,4,5', 'a,b,c,d', '-181,0,0,1', '0,-91,1,0', '0,10,1,5', '0x1,0,1,1']) expect(parseBbox(bad)).toBeNull()
  })

  it('gives a point a visible square', () => {
    expect(boxRects([0, 0, 0, 0])).toEqual([{ x: 359, y: 179, width: 1, height: 1 }])
    expect(checkBbox({ west: '0', south: '0', east: '0', north: '0' })).toEqual({ bbox: [0, 0, 0, 0] })
  })
})
