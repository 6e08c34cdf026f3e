// A dataset's `spatial` geometry out and back: DCAT-AP dct:spatial (locn:geometry as WKT and GeoJSON
// literals, dcat:bbox) and DCAT-US data.json `spatial` (a box string or GeoJSON), written by one
// catalogue and harvested by another over HTTP (dcat_rdf, dcat_json) into the same geometry; WKT-only
// and box-only locations, and what does not parse, read back as ckanext-dcat reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { Parser, type Quad } from 'n3'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest } from '../helpers/harvest'
import { wktToGeoJson, geoJsonBounds, parseBoxText, polygonAsBox } from '../../src/lib/wkt'

const GEOJSON_IMT = 'https://www.iana.org/assignments/media-types/application/vnd.geo+json'
const GSP = 'http://www.opengis.net/ont/geosparql#'
const LOCN = 'http://www.w3.org/ns/locn#'
const DCAT = 'http://www.w3.org/ns/dcat#'
const DCT = 'http://purl.org/dc/terms/'

const HARBOUR = { type: 'Polygon', coordinates: [[[-4.2, 50.3], [-4.1, 50.3], [-4.05, 50.38], [-4.2, 50.4], [-4.2, 50.3]]] }
const ISLANDS = {
  type: 'MultiPolygon',
  coordinates: [
    [[[10, 10], [11, 10], [11, 11], [10, 10]]],
    [[[12.5, 12], [13, 12], [13, 13.25], [12.5, 12]], [[12.6, 12.1], [12.7, 12.1], [12.7, 12.2], [12.6, 12.1]]],
  ],
}
const BUOY = { type: 'Point', coordinates: [-4.1234, 50.3612] }
const BOX = { type: 'Polygon', coordinates: [[[-77.2, 38.8], [-76.9, 38.8], [-76.9, 39], [-77.2, 39], [-77.2, 38.8]]] }

let publisher: TestEnv
let harvester: TestEnv
let remote: { url: string; close: () => Promise<void> }
let hand: { url: string; close: () => Promise<void> }
const handServed = new Map<string, string>()
let sys: { apikey: string }
let hsys: { apikey: string }
let horg: { id: string }
let n = 0

const extrasOf = (d: { extras: { key: string; value: string }[] }) => Object.fromEntries(d.extras.map((e) => [e.key, e.value]))

beforeAll(async () => {
  publisher = await setup()
  sys = await publisher.make.sysadmin()
  const org = await publisher.make.organization(sys, { name: 'geo-pub' })
  for (const [name, title, geom, more] of [
    ['geo-harbour', 'Harbour waters', HARBOUR, [{ key: 'spatial_text', value: 'Plymouth Sound' }]],
    ['geo-islands', 'Island outlines', ISLANDS, []],
    ['geo-buoy', 'Buoy position', BUOY, []],
    ['geo-box', 'County box', BOX, []],
  ] as const)
    await publisher.ok('package_create', { name, title, owner_org: org.id, extras: [{ key: 'spatial', value: JSON.stringify(geom) }, ...more] }, sys)
  await publisher.ok('package_create', { name: 'geo-none', title: 'Nowhere in particular', owner_org: org.id }, sys)
  remote = await listen(publisher.app)
  hand = await listen(new Hono().get('*', (c) => c.body(handServed.get(new URL(c.req.url).pathname) ?? '', 200, { 'content-type': 'text/turtle' })) as never)
  harvester = await setup({ 'service.loader.allow_private_urls': 'true' })
  hsys = await harvester.make.sysadmin()
  horg = await harvester.ok('organization_create', { name: 'geo-harv' }, hsys)
})
afterAll(async () => {
  await remote.close()
  await hand.close()
})

async function harvest(url: string, type: 'dcat_rdf' | 'dcat_json') {
  const src = await harvester.ok('harvest_source_create', { name: `geo-src-${++n}`, url, source_type: type, owner_org: horg.id }, hsys)
  const job = await runHarvest(harvester, src.id, hsys)
  expect(job.stats).toMatchObject({ errored: 0 })
  const found = await harvester.ok('package_search', { fq: `harvest_source_id:"${src.id}"`, rows: 100 }, hsys)
  const byTitle = new Map<string, Record<string, any>>()
  for (const d of found.results) byTitle.set(d.title, d)
  return byTitle
}

async function turtle(path: string): Promise<Quad[]> {
  const res = await publisher.app.request(path)
  expect(res.status).toBe(200)
  return new Parser().parse(await res.text())
}

describe('DCAT-AP dct:spatial', () => {
  it('writes a dct:Location with locn:geometry as WKT and GeoJSON, and the geometry\'s box as dcat:bbox', async () => {
    const g = await turtle('/dataset/geo-harbour.ttl')
    const loc = g.find((q) => q.predicate.value === DCT + 'spatial')!.object
    expect(g.some((q) => q.subject.equals(loc) && q.object.value === DCT + 'Location')).toBe(true)
    const of = (p: string) => g.filter((q) => q.subject.equals(loc) && q.predicate.value === p).map((q) => q.object as { value: string; datatype: { value: string } })
    const geometry = of(LOCN + 'geometry')
    expect(geometry.map((l) => l.datatype.value).sort()).toEqual([GEOJSON_IMT, GSP + 'wktLiteral'].sort())
    // geomet's wkt.dumps(…, decimals=4), as ckanext-dcat writes it
    expect(geometry.find((l) => l.datatype.value === GSP + 'wktLiteral')!.value).toBe(
      'POLYGON ((-4.2000 50.3000, -4.1000 50.3000, -4.0500 50.3800, -4.2000 50.4000, -4.2000 50.3000))',
    )
    expect(JSON.parse(geometry.find((l) => l.datatype.value === GEOJSON_IMT)!.value)).toEqual(HARBOUR)
    const bbox = of(DCAT + 'bbox')
    expect(bbox.find((l) => l.datatype.value === GSP + 'wktLiteral')!.value).toBe(
      'POLYGON ((-4.2000 50.3000, -4.0500 50.3000, -4.0500 50.4000, -4.2000 50.4000, -4.2000 50.3000))',
    )
    expect(of('http://www.w3.org/2004/02/skos/core#prefLabel').map((l) => l.value)).toEqual(['Plymouth Sound'])
  })

  it('writes only the literals ckanext.dcat.output_spatial_format names, and nothing for a dataset without a geometry', async () => {
    const wktOnly = await setup({ 'ckanext.dcat.output_spatial_format': 'wkt' })
    const s = await wktOnly.make.sysadmin()
    await wktOnly.ok('package_create', { name: 'only-wkt', extras: [{ key: 'spatial', value: JSON.stringify(BUOY) }] }, s)
    const g = new Parser().parse(await (await wktOnly.app.request('/dataset/only-wkt.ttl')).text())
    const lits = g.filter((q) => q.predicate.value === LOCN + 'geometry').map((q) => (q.object as { value: string }).value)
    expect(lits).toEqual(['POINT (-4.1234 50.3612)'])
    expect((await turtle('/dataset/geo-none.ttl')).some((q) => q.predicate.value === DCT + 'spatial')).toBe(false)
  })

  it('round trip: the catalogue in Turtle and RDF/XML, harvested by dcat_rdf, gives back the same geometries', async () => {
    for (const format of ['ttl', 'rdf']) {
      const got = await harvest(`${remote.url}/catalog.${format}`, 'dcat_rdf')
      for (const [title, geom] of [
        ['Harbour waters', HARBOUR],
        ['Island outlines', ISLANDS],
        ['Buoy position', BUOY],
        ['County box', BOX],
      ] as const) {
        const ex = extrasOf(got.get(title) as never)
        expect(JSON.parse(ex.spatial!), `${format} ${title}`).toEqual(geom)
        expect(geoJsonBounds(JSON.parse(ex.spatial_bbox!))).toEqual(geoJsonBounds(geom))
      }
      expect(extrasOf(got.get('Harbour waters') as never).spatial_text).toBe('Plymouth Sound')
      expect(extrasOf(got.get('Nowhere in particular') as never).spatial).toBeUndefined()
    }
  })

  it('reads WKT-only geometries (CRS IRI, Z values, MULTIPOINT forms), GeoSPARQL geoJSONLiterals and box-only locations', async () => {
    handServed.set(
      '/wkt.ttl',
      `@prefix dcat: <${DCAT}> . @prefix dct: <${DCT}> . @prefix locn: <${LOCN}> . @prefix gsp: <${GSP}> .
<https://x.example/d/1> a dcat:Dataset ; dct:title "Only WKT" ;
  dct:spatial [ a dct:Location ; locn:geometry "<http://www.opengis.net/def/crs/OGC/1.3/CRS84> LINESTRING Z (1 2 3, 4.5 -6 7)"^^gsp:wktLiteral ] .
<https://x.example/d/2> a dcat:Dataset ; dct:title "Multipoint" ;
  dct:spatial [ a dct:Location ; locn:geometry "MULTIPOINT (1 2, (3 4))"^^gsp:wktLiteral ] .
<https://x.example/d/3> a dcat:Dataset ; dct:title "GeoSPARQL GeoJSON" ;
  dct:spatial [ a dct:Location ; locn:geometry "{\\"type\\": \\"Point\\", \\"coordinates\\": [5, 6]}"^^gsp:geoJSONLiteral ] .
<https://x.example/d/4> a dcat:Dataset ; dct:title "Box only" ;
  dct:spatial [ a dct:Location ; dcat:bbox "POLYGON ((0 0, 2 0, 2 1, 0 1, 0 0))"^^gsp:wktLiteral ] .
<https://x.example/d/5> a dcat:Dataset ; dct:title "Bad WKT" ;
  dct:spatial [ a dct:Location ; locn:geometry "POLYGON ((0 0, 1"^^gsp:wktLiteral ] .
<https://x.example/d/6> a dcat:Dataset ; dct:title "Other CRS" ;
  dct:spatial [ a dct:Location ; locn:geometry "<http://www.opengis.net/def/crs/EPSG/0/27700> POINT (400000 100000)"^^gsp:wktLiteral ] .
`,
    )
    const got = await harvest(`${hand.url}/wkt.ttl`, 'dcat_rdf')
    const spatial = (t: string) => extrasOf(got.get(t) as never).spatial
    expect(JSON.parse(spatial('Only WKT')!)).toEqual({ type: 'LineString', coordinates: [[1, 2], [4.5, -6]] })
    expect(JSON.parse(spatial('Multipoint')!)).toEqual({ type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] })
    expect(JSON.parse(spatial('GeoSPARQL GeoJSON')!)).toEqual({ type: 'Point', coordinates: [5, 6] })
    expect(JSON.parse(spatial('Box only')!)).toEqual({ type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 1], [0, 1], [0, 0]]] })
    expect(spatial('Bad WKT')).toBeUndefined()
    expect(spatial('Other CRS')).toBeUndefined()
  })
})

describe('DCAT-US data.json spatial', () => {
  it('writes a box polygon as "minx,miny,maxx,maxy", other geometries as GeoJSON, and a place name without one', async () => {
    const doc = await (await publisher.app.request('/data.json')).json()
    const by = new Map<string, Record<string, any>>(doc.dataset.map((d: Record<string, any>) => [d.title, d]))
    expect(by.get('County box')!.spatial).toBe('-77.2,38.8,-76.9,39')
    expect(JSON.parse(by.get('Harbour waters')!.spatial)).toEqual(HARBOUR)
    expect(JSON.parse(by.get('Buoy position')!.spatial)).toEqual(BUOY)
    expect(by.get('Nowhere in particular')!.spatial).toBeUndefined()
  })

  it('round trip: data.json harvested by dcat_json gives back the same geometries', async () => {
    const got = await harvest(`${remote.url}/data.json`, 'dcat_json')
    for (const [title, geom] of [
      ['Harbour waters', HARBOUR],
      ['Island outlines', ISLANDS],
      ['Buoy position', BUOY],
      ['County box', BOX],
    ] as const)
      expect(JSON.parse(extrasOf(got.get(title) as never).spatial!), title).toEqual(geom)
  })
})

describe('src/lib/wkt', () => {
  it('reads every geometry type, EMPTY, and refuses what is not WKT', () => {
    expect(wktToGeoJson('POINT (1 2)')).toEqual({ type: 'Point', coordinates: [1, 2] })
    expect(wktToGeoJson('point(1e2 -2.5)')).toEqual({ type: 'Point', coordinates: [100, -2.5] })
    expect(wktToGeoJson('POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.2 0.2, 0.1 0.1))')!.coordinates).toHaveLength(2)
    expect(wktToGeoJson('MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))')).toEqual({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] })
    expect(wktToGeoJson('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))')!.coordinates).toHaveLength(2)
    expect(wktToGeoJson('GEOMETRYCOLLECTION (POINT (1 2),LINESTRING (0 0, 1 1))')).toEqual({
      type: 'GeometryCollection',
      geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }],
    })
    expect(wktToGeoJson('SRID=4326;POINT ZM (1 2 3 4)')).toEqual({ type: 'Point', coordinates: [1, 2] })
    expect(wktToGeoJson('LINESTRING EMPTY')).toEqual({ type: 'LineString', coordinates: [] })
    for (const bad of ['', 'POINT', 'POINT (1)', 'CIRCLE (1 2)', 'POINT (1 2) extra', '{"type":"Point"}']) expect(wktToGeoJson(bad), bad).toBeUndefined()
  })

  it('reads box texts and tells box polygons', () => {
    expect(parseBoxText(' -1, 2.5 ,3,4 ')).toEqual([-1, 2.5, 3, 4])
    expect(parseBoxText('1,2,3')).toBeUndefined()
    expect(parseBoxText('1,2,3,x')).toBeUndefined()
    expect(polygonAsBox(BOX)).toEqual([-77.2, 38.8, -76.9, 39])
    expect(polygonAsBox(HARBOUR)).toBeUndefined()
  })
})
