// The map views (ckanext-geoview's geojson_view and wmts_view, and wms_view): registered and made by
// default for GeoJSON/WMS/WMTS resources; a GeoJSON upload, a linked file and a DataStore table
// with lat/lon or geometry columns drawn on the resource page and served as GeoJSON as the caller
// (private resources only to those who may read them); capabilities read on the server, their
// layers listed, and every failure (HTTP 500, malformed XML, an exception report, a private
// address) a message on a page that still answers 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { drainAll } from '../helpers/harvest'

const GEO_VIEWS = 'geojson_view wms_view wmts_view'
const PLUGINS = `image_view webpage_view text_view recline_view datatables_view ${GEO_VIEWS}`

const WMS = `<?xml version="1.0" encoding="UTF-8"?>
<WMS_Capabilities version="1.3.0" xmlns="http://www.opengis.net/wms">
  <Service><Name>WMS</Name><Title>Harbour maps</Title></Service>
  <Capability><Layer><Title>All</Title>
    <EX_GeographicBoundingBox><westBoundLongitude>-5</westBoundLongitude><eastBoundLongitude>-3</eastBoundLongitude><southBoundLatitude>50</southBoundLatitude><northBoundLatitude>51</northBoundLatitude></EX_GeographicBoundingBox>
    <Layer><Name>depths</Name><Title>Water depths</Title></Layer>
    <Layer><Name>moorings</Name><Title>Moorings &amp; buoys</Title>
      <EX_GeographicBoundingBox><westBoundLongitude>-4.2</westBoundLongitude><eastBoundLongitude>-4.1</eastBoundLongitude><southBoundLatitude>50.3</southBoundLatitude><northBoundLatitude>50.4</northBoundLatitude></EX_GeographicBoundingBox>
    </Layer>
  </Layer></Capability>
</WMS_Capabilities>`

const WMS111 = `<?xml version="1.0"?><WMT_MS_Capabilities version="1.1.1"><Service><Title>Old service</Title></Service>
<Capability><Layer><Name>roads</Name><Title>Roads</Title><LatLonBoundingBox minx="1" miny="2" maxx="3" maxy="4"/></Layer></Capability></WMT_MS_Capabilities>`

const WMTS = `<?xml version="1.0" encoding="UTF-8"?>
<Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" version="1.0.0">
  <ows:ServiceIdentification><ows:Title>Tiled basemaps</ows:Title></ows:ServiceIdentification>
  <Contents>
    <Layer><ows:Title>Relief</ows:Title><ows:Identifier>relief</ows:Identifier>
      <ows:WGS84BoundingBox><ows:LowerCorner>-10 40</ows:LowerCorner><ows:UpperCorner>5 60</ows:UpperCorner></ows:WGS84BoundingBox>
      <Format>image/png</Format><TileMatrixSetLink><TileMatrixSet>WebMercator</TileMatrixSet></TileMatrixSetLink>
    </Layer>
  </Contents>
</Capabilities>`

const EXCEPTION = `<?xml version="1.0"?><ServiceExceptionReport version="1.3.0"><ServiceException code="InvalidFormat">Unknown format</ServiceException></ServiceExceptionReport>`

const FEATURES = {
  type: 'FeatureCollection',
  features: [
    { type: 'Feature', properties: { name: 'Pier' }, geometry: { type: 'Point', coordinates: [-4.14, 50.36] } },
    { type: 'Feature', properties: { name: 'Channel' }, geometry: { type: 'LineString', coordinates: [[-4.2, 50.3], [-4.1, 50.35]] } },
    { type: 'Feature', properties: { name: 'Basin' }, geometry: { type: 'Polygon', coordinates: [[[-4.2, 50.3], [-4.1, 50.3], [-4.1, 50.4], [-4.2, 50.3]]] } },
  ],
}

const served = new Map<string, { body: string; status?: number; type?: string }>()
const asked: string[] = []
let remote: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: { apikey: string }
let org: { id: string; name: string }
let n = 0

beforeAll(async () => {
  remote = await listen(
    new Hono().get('*', (c) => {
      const u = new URL(c.req.url)
      asked.push(u.pathname + u.search)
      const s = served.get(u.pathname)
      if (!s) return c.text('not here', 404)
      return c.body(s.body, (s.status ?? 200) as 200, { 'content-type': s.type ?? 'text/xml' })
    }) as never,
  )
  served.set('/wms', { body: WMS })
  served.set('/wms111', { body: WMS111 })
  served.set('/tiles/1.0.0/WMTSCapabilities.xml', { body: WMTS })
  served.set('/down', { body: 'internal trouble', status: 500 })
  served.set('/broken', { body: '<WMS_Capabilities><Capability><Layer>' })
  served.set('/html', { body: '<html><body>hello</body></html>', type: 'text/html' })
  served.set('/exception', { body: EXCEPTION })
  served.set('/harbour.geojson', { body: JSON.stringify(FEATURES), type: 'application/geo+json' })
  served.set('/not-geo.geojson', { body: '{"hello": 1}', type: 'application/json' })
  t = await setup({
    'service.views.plugins': PLUGINS,
    'service.views.default_views': `image_view ${GEO_VIEWS}`,
    'service.loader.allow_private_urls': 'true',
  })
  sys = await t.make.sysadmin()
  org = await t.make.organization(sys, { name: 'geo-views-org' })
})
afterAll(() => remote.close())

async function dataset(resources: object[], extra: object = {}) {
  return t.ok('package_create', { name: `geo-view-${++n}`, owner_org: org.id, resources, ...extra }, sys)
}
const viewsOf = async (resourceId: string) => (await t.ok('resource_view_list', { id: resourceId }, sys)) as { view_type: string; id: string }[]
async function page(d: { name: string }, r: { id: string }, auth?: string) {
  const res = await t.app.request(`/dataset/${d.name}/resource/${r.id}`, auth ? { headers: { authorization: auth } } : {})
  return { status: res.status, html: await res.text() }
}

describe('view types', () => {
  it('are created by default for GeoJSON, WMS and WMTS resources (ckanext-geoview formats, any case), and only for them', async () => {
    const d = await dataset([
      { name: 'a', url: `${remote.url}/harbour.geojson` },
      { name: 'b', url: `${remote.url}/x.json`, format: 'gjson' },
      { name: 'c', url: `${remote.url}/wms`, format: 'WMS' },
      { name: 'd', url: `${remote.url}/tiles/1.0.0/WMTSCapabilities.xml`, format: 'wmts' },
      { name: 'e', url: `${remote.url}/data.csv`, format: 'CSV' },
    ])
    expect(d.resources[0].format).toBe('GeoJSON')
    expect(d.resources[0].mimetype).toBe('application/geo+json')
    const types = await Promise.all(d.resources.map(async (r: { id: string }) => (await viewsOf(r.id)).map((v) => v.view_type)))
    expect(types).toEqual([['geojson_view'], ['geojson_view'], ['wms_view'], ['wmts_view'], []])
  })

  it('resource_view_create takes them by hand (a geojson_view of a DataStore table), and refuses them when not enabled', async () => {
    const d = await dataset([{ name: 'table', url: `${remote.url}/points.csv`, format: 'CSV' }])
    const v = await t.ok('resource_view_create', { resource_id: d.resources[0].id, view_type: 'geojson_view', title: 'Where' }, sys)
    expect(v).toMatchObject({ view_type: 'geojson_view', title: 'Where' })
    const off = await setup()
    const s = await off.make.sysadmin()
    const dd = await off.ok('package_create', { name: 'off-geo', resources: [{ url: 'https://example.org/a.geojson' }] }, s)
    const refused = await off.call('resource_view_create', { resource_id: dd.resources[0].id, view_type: 'wms_view', title: 'x' }, s)
    expect(refused.status).toBe(409)
    expect(refused.body.error.view_type).toBe('No plugin found for view_type wms_view') // ckan: a string, not a list
  })
})

describe('geojson_view', () => {
  it('draws a linked GeoJSON file as SVG with its feature count, and links the GeoJSON route', async () => {
    const d = await dataset([{ name: 'Harbour', url: `${remote.url}/harbour.geojson` }])
    const { status, html } = await page(d, d.resources[0])
    expect(status).toBe(200)
    const url = `/dataset/${d.name}/resource/${d.resources[0].id}/geojson`
    expect(html).toContain(`data-geojson-url="${url}"`)
    expect(html).toMatch(/<svg class="geo-map"[^>]*role="img"/)
    expect(html.match(/<circle /g)).toHaveLength(1)
    expect(html.match(/<path /g)).toHaveLength(2)
    expect(html).toContain('3 features')
    const res = await t.app.request(url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/geo\+json/)
    expect(await res.json()).toEqual(FEATURES)
  })

  it('draws an uploaded .geojson file, which gets the GeoJSON format and is not loaded into the DataStore', async () => {
    const d = await dataset([])
    const form = new FormData()
    form.set('package_id', d.id)
    form.set('upload', new File([JSON.stringify(FEATURES.features[0])], 'pier.geojson'))
    const res = await t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: sys.apikey }, body: form })
    const r = ((await res.json()) as any).result
    expect(r).toMatchObject({ format: 'GeoJSON', url_type: 'upload' })
    await drainAll(t)
    expect((await t.ok('resource_show', { id: r.id })).datastore_active).toBeFalsy()
    expect((await viewsOf(r.id)).map((v) => v.view_type)).toEqual(['geojson_view'])
    const { html } = await page(d, r)
    expect(html).toContain('1 feature')
    expect(await (await t.app.request(`/dataset/${d.id}/resource/${r.id}/geojson`)).json()).toEqual(FEATURES.features[0])
  })

  it('turns a DataStore table\'s lat/lon columns or geometry column (GeoJSON or WKT) into features', async () => {
    const d = await dataset([{ name: 'points', url: `${remote.url}/points.csv`, format: 'CSV' }, { name: 'shapes', url: `${remote.url}/shapes.csv`, format: 'CSV' }, { name: 'plain', url: `${remote.url}/plain.csv`, format: 'CSV' }])
    const [points, shapes, plain] = d.resources
    await t.ok('datastore_create', { resource_id: points.id, force: true, fields: [{ id: 'name' }, { id: 'Latitude', type: 'float' }, { id: 'Longitude', type: 'float' }], records: [{ name: 'a', Latitude: 50.1, Longitude: -4.1 }, { name: 'b', Latitude: 50.2, Longitude: -4.2 }, { name: 'nowhere', Latitude: null, Longitude: null }, { name: 'off', Latitude: 95, Longitude: 1 }] }, sys)
    await t.ok('datastore_create', { resource_id: shapes.id, force: true, fields: [{ id: 'geom' }, { id: 'n', type: 'int' }], records: [{ geom: 'POINT (1 2)', n: 1 }, { geom: '{"type":"LineString","coordinates":[[0,0],[1,1]]}', n: 2 }, { geom: 'rubbish', n: 3 }] }, sys)
    await t.ok('datastore_create', { resource_id: plain.id, force: true, fields: [{ id: 'a' }], records: [{ a: 'x' }] }, sys)
    for (const r of [points, shapes, plain]) await t.ok('resource_view_create', { resource_id: r.id, view_type: 'geojson_view', title: 'Map' }, sys)

    const geo = async (r: { id: string }) => t.app.request(`/dataset/${d.name}/resource/${r.id}/geojson`)
    const p = (await (await geo(points)).json()) as any
    expect(p.features.map((f: any) => [f.properties.name, f.geometry.coordinates])).toEqual([['a', [-4.1, 50.1]], ['b', [-4.2, 50.2]]])
    const s = (await (await geo(shapes)).json()) as any
    expect(s.features.map((f: any) => f.geometry)).toEqual([{ type: 'Point', coordinates: [1, 2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }])
    expect(s.features[0].properties).toEqual({ n: 1 })
    const none = await geo(plain)
    expect(none.status).toBe(422)
    expect(await none.text()).toMatch(/no latitude and longitude columns/)

    expect((await page(d, points)).html).toMatch(/2 features.*2 rows have no position and are left out/s)
    const plainPage = await page(d, plain)
    expect(plainPage.status).toBe(200)
    expect(plainPage.html).toMatch(/role="alert">This view cannot be shown: The table has no latitude/)
  })

  it('never shows a private resource to those who may not read it: the route refuses, the page is not found', async () => {
    const d = await dataset([{ name: 'secret', url: `${remote.url}/harbour.geojson` }], { private: true })
    const r = d.resources[0]
    await t.ok('datastore_create', { resource_id: r.id, force: true, fields: [{ id: 'lat', type: 'float' }, { id: 'lon', type: 'float' }], records: [{ lat: 1, lon: 2 }] }, sys)
    const path = `/dataset/${d.name}/resource/${r.id}/geojson`
    asked.length = 0
    expect((await t.app.request(path)).status).toBe(403)
    const stranger = await t.make.user()
    expect((await t.app.request(path, { headers: { authorization: stranger.apikey } })).status).toBe(403)
    expect(asked).toEqual([]) // nothing fetched for a caller who may not read it
    expect((await page(d, r)).status).toBe(404)
    expect((await page(d, r, stranger.apikey)).status).toBe(404)
    expect((await t.app.request(path, { headers: { authorization: sys.apikey } })).status).toBe(200)
    expect((await t.app.request(`/dataset/${d.name}/resource/no-such-resource/geojson`)).status).toBe(404)
  })

  it('shows a file that is not GeoJSON, and an unreachable one, as a message', async () => {
    const d = await dataset([{ name: 'not geo', url: `${remote.url}/not-geo.geojson` }, { name: 'gone', url: `${remote.url}/gone.geojson` }])
    expect((await page(d, d.resources[0])).html).toContain('The file is JSON but not GeoJSON')
    const gone = await page(d, d.resources[1])
    expect(gone.status).toBe(200)
    expect(gone.html).toMatch(/This view cannot be shown: Fetching .*gone\.geojson answered HTTP 404/)
  })
})

describe('wms_view and wmts_view', () => {
  it('list the layers of a WMS 1.3.0 and 1.1.1 service, asking GetCapabilities', async () => {
    const d = await dataset([{ name: 'maps', url: `${remote.url}/wms?map=harbour`, format: 'WMS' }, { name: 'old', url: `${remote.url}/wms111`, format: 'wms' }])
    asked.length = 0
    const { status, html } = await page(d, d.resources[0])
    expect(status).toBe(200)
    expect(asked).toEqual(['/wms?map=harbour&SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.3.0'])
    expect(html).toContain('data-view-type="wms_view"')
    expect(html).toContain(`data-service-url="${remote.url}/wms?map=harbour"`)
    expect(html).toContain('<code>depths</code>')
    expect(html).toContain('Moorings &amp; buoys')
    expect(html).toContain('-4.2, 50.3, -4.1, 50.4')
    expect(html).toContain('-5, 50, -3, 51') // inherited from the parent layer
    expect(html).toContain('Harbour maps (WMS 1.3.0)')
    const old = await page(d, d.resources[1])
    expect(old.html).toContain('<code>roads</code>')
    expect(old.html).toContain('1, 2, 3, 4')
  })

  it('lists the layers of a WMTS service from its RESTful capabilities document', async () => {
    const d = await dataset([{ name: 'tiles', url: `${remote.url}/tiles/1.0.0/WMTSCapabilities.xml`, format: 'WMTS' }])
    const { html } = await page(d, d.resources[0])
    expect(html).toContain('<code>relief</code>')
    expect(html).toContain('-10, 40, 5, 60')
    expect(html).toContain('Tiled basemaps (WMTS 1.0.0)')
  })

  it('shows HTTP errors, malformed XML, other documents and exception reports as messages, never a 500', async () => {
    const d = await dataset(['down', 'broken', 'html', 'exception'].map((p) => ({ name: p, url: `${remote.url}/${p}`, format: 'WMS' })))
    const messages = []
    for (const r of d.resources) {
      const { status, html } = await page(d, r)
      expect(status).toBe(200)
      messages.push(/role="alert">([^<]*)</.exec(html)?.[1])
    }
    expect(messages[0]).toMatch(/answered HTTP 500/)
    expect(messages[1]).toMatch(/not well-formed XML/)
    expect(messages[2]).toMatch(/not a WMS or WMTS capabilities document \(its root element is html\)/)
    expect(messages[3]).toMatch(/exception: InvalidFormat: Unknown format/)
  })

  it('refuses a service on a private address unless service.loader.allow_private_urls', async () => {
    const guarded = await setup({ 'service.views.plugins': PLUGINS, 'service.views.default_views': GEO_VIEWS })
    const s = await guarded.make.sysadmin()
    const d = await guarded.ok('package_create', { name: 'guarded', resources: [{ url: `${remote.url}/wms`, format: 'WMS' }, { url: `${remote.url}/harbour.geojson` }] }, s)
    asked.length = 0
    for (const r of d.resources) {
      const res = await guarded.app.request(`/dataset/guarded/resource/${r.id}`)
      expect(res.status).toBe(200)
      expect(await res.text()).toMatch(/role="alert">This view cannot be shown: Refusing to fetch http:\/\/127\.0\.0\.1:\d+: it is a loopback, link-local or private address/)
    }
    expect(asked).toEqual([])
  })
})
