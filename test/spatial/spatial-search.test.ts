// Issue 30: the `spatial` field checked on write and searched with ext_bbox (package_search, also
// inside `extras`) and /api/2/search/dataset/geo, over HTTP through the whole app; hand-checked
// fixtures, combined with q/fq/facets/cursor; private datasets never shown; a restarted process
// (snapshot) answers the same.
import { beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { createApp } from '../../src/app'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { setup, TEST_PROFILE, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let outsider: { apikey: string }
let org: { id: string; name: string }

const sq = (x0: number, y0: number, x1: number, y1: number) => ({
  type: 'Polygon',
  coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]],
})
const spatial = (g: unknown) => [{ key: 'spatial', value: JSON.stringify(g) }]

/** The fixtures, each drawn and checked by hand against the boxes used below. */
const FIXTURES: Record<string, { geom: unknown; tags: string[]; private?: boolean }> = {
  // the triangle (0,0) (10,0) (0,10): its hypotenuse x + y = 10
  'geo-triangle': { geom: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [0, 10], [0, 0]]] }, tags: ['water'] },
  'geo-big-square': { geom: sq(-20, -20, 20, 20), tags: ['land'] },
  'geo-point': { geom: { type: 'Point', coordinates: [30, 5] }, tags: ['water'] },
  // drawn across the antimeridian with longitudes past 180
  'geo-across': { geom: sq(175, 60, 185, 65), tags: ['ice'] },
  'geo-west': { geom: sq(-179, 60, -176, 63), tags: ['ice'] },
  'geo-islands': { geom: { type: 'MultiPolygon', coordinates: [sq(40, 40, 41, 41).coordinates, sq(45, 45, 46, 46).coordinates] }, tags: ['water'] },
  'geo-line': { geom: { type: 'LineString', coordinates: [[50, -10], [50, 10]] }, tags: ['land'] },
  'geo-secret': { geom: sq(60, 60, 61, 61), tags: ['water'], private: true },
  'geo-none': { geom: null, tags: ['water'] },
}

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  outsider = await t.make.user()
  org = await t.make.organization(sys)
  for (const [name, f] of Object.entries(FIXTURES)) {
    await t.ok(
      'package_create',
      { name, owner_org: org.id, private: !!f.private, tags: f.tags.map((n) => ({ name: n })), ...(f.geom ? { extras: spatial(f.geom) } : {}) },
      sys,
    )
  }
})

const names = (r: { results: { name: string }[] }) => r.results.map((d) => d.name).sort()
async function bbox(box: string, more: object = {}, as?: { apikey: string }) {
  // only the fixtures (the write tests below add datasets of their own)
  return t.ok('package_search', { extras: { ext_bbox: box }, rows: 100, fq_list: ['name:geo-*'], ...more }, as)
}

describe('spatial field on write', () => {
  const good: [string, unknown][] = [
    ['Point', { type: 'Point', coordinates: [1, 2] }],
    ['MultiPoint', { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }],
    ['LineString', { type: 'LineString', coordinates: [[1, 2], [3, 4]] }],
    ['MultiLineString', { type: 'MultiLineString', coordinates: [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] }],
    ['Polygon', sq(1, 2, 3, 4)],
    ['MultiPolygon', { type: 'MultiPolygon', coordinates: [sq(1, 2, 3, 4).coordinates] }],
    ['GeometryCollection', { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }, sq(1, 2, 3, 4)] }],
  ]
  for (const [type, g] of good) {
    it(`stores a ${type} as given`, async () => {
      const value = JSON.stringify(g)
      const d = await t.ok('package_create', { name: `w-${type.toLowerCase()}`, extras: [{ key: 'spatial', value }] }, sys)
      expect(d.extras).toEqual([{ key: 'spatial', value }])
    })
  }

  const bad: [string, string, RegExp][] = [
    ['invalid JSON', '{"Type":Bad Json]', /^Error decoding JSON object: /],
    ['JSON that is no GeoJSON', '{"Type":"Bad_GeoJSON","a":2}', /^Error: Wrong GeoJSON object$/],
    ['an unclosed ring', JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }), /^Error: Wrong GeoJSON object: .*must end where it started/],
    ['a latitude out of range', JSON.stringify({ type: 'Point', coordinates: [0, 91] }), /^Error: Wrong GeoJSON object: .*latitude 91 is out of range/],
    ['a longitude out of range', JSON.stringify({ type: 'Point', coordinates: [-361, 0] }), /^Error: Wrong GeoJSON object: .*longitude -361 is out of range/],
    ['a line of one position', JSON.stringify({ type: 'LineString', coordinates: [[0, 0]] }), /^Error: Wrong GeoJSON object: .*2 or more positions/],
  ]
  for (const [what, value, message] of bad) {
    it(`refuses ${what}: Validation Error on spatial, nothing stored`, async () => {
      const name = `bad-${what.replace(/\W+/g, '-')}`
      const r = await t.call('package_create', { name, extras: [{ key: 'spatial', value }] }, sys)
      expect(r.status).toBe(409)
      expect(r.body.error.__type).toBe('Validation Error')
      expect(r.body.error.spatial).toHaveLength(1)
      expect(r.body.error.spatial[0]).toMatch(message)
      expect((await t.call('package_show', { id: name }, sys)).status).toBe(404)
    })
  }

  it('checks package_update and package_patch too, keeping the stored value', async () => {
    const value = JSON.stringify(sq(1, 1, 2, 2))
    await t.ok('package_create', { name: 'w-update', extras: [{ key: 'spatial', value }] }, sys)
    for (const action of ['package_update', 'package_patch']) {
      const r = await t.call(action, { id: 'w-update', name: 'w-update', extras: [{ key: 'spatial', value: '{"type":"Point","coordinates":[0]}' }] }, sys)
      expect(r.status).toBe(409)
      expect(r.body.error.spatial[0]).toMatch(/^Error: Wrong GeoJSON object: /)
    }
    expect((await t.ok('package_show', { id: 'w-update' })).extras).toEqual([{ key: 'spatial', value }])
    // an empty value is no geometry (ckanext-spatial skips it)
    await t.ok('package_patch', { id: 'w-update', extras: [{ key: 'spatial', value: '' }] }, sys)
  })
})

describe('package_search ext_bbox', () => {
  it('takes the box as a query parameter, a body parameter or inside extras, alike', async () => {
    const viaGet = await t.get('/api/3/action/package_search?ext_bbox=-1,-1,1,1&rows=100&fq=name:geo-*')
    const viaBody = await t.ok('package_search', { ext_bbox: '-1,-1,1,1', rows: 100, fq: 'name:geo-*' })
    const viaExtras = await bbox('-1,-1,1,1')
    expect(names(viaGet.body.result)).toEqual(['geo-big-square', 'geo-triangle'])
    expect(names(viaBody)).toEqual(names(viaGet.body.result))
    expect(names(viaExtras)).toEqual(names(viaGet.body.result))
    // a list of four numbers too (ckanext-spatial's normalize_bbox)
    expect(names(await bbox([-1, -1, 1, 1] as never))).toEqual(names(viaExtras))
  })

  it('a box inside a polygon finds it (no edge of the polygon in the box)', async () => {
    expect(names(await bbox('-15,12,-12,15'))).toEqual(['geo-big-square'])
  })

  it('a polygon overlapping only the box\'s corner is found; one whose envelope only overlaps is not', async () => {
    // 22..25 × -25..-18: the big square's corner (20,-20) is outside; 19..25 × -25..-19: its corner is inside the box
    expect(names(await bbox('22,-25,25,-18'))).toEqual([])
    expect(names(await bbox('19,-25,25,-19'))).toEqual(['geo-big-square'])
    // the triangle's envelope (0..10 × 0..10) covers 5.6..9 × 4.5..9, the triangle does not
    expect(names(await bbox('5.6,4.5,9,9', { fq: 'tags:water' }))).toEqual([])
    expect(names(await bbox('4,4,9,9', { fq: 'tags:water' }))).toEqual(['geo-triangle'])
  })

  it('a point on the box\'s edge or corner is found', async () => {
    expect(names(await bbox('30,0,35,10'))).toEqual(['geo-point'])
    expect(names(await bbox('25,5,30,10'))).toEqual(['geo-point'])
    expect(names(await bbox('30.001,0,35,10'))).toEqual([])
  })

  it('a line crossing the box with no position in it is found', async () => {
    expect(names(await bbox('49,-1,51,1'))).toEqual(['geo-line'])
  })

  it('multipolygons: a box between the parts finds nothing, on a part finds it', async () => {
    expect(names(await bbox('42,42,44,44'))).toEqual([])
    expect(names(await bbox('45.5,45.5,47,47'))).toEqual(['geo-islands'])
  })

  it('the antimeridian: a box across it, and boxes on either side of a geometry drawn past 180', async () => {
    expect(names(await bbox('170,55,-170,70'))).toEqual(['geo-across', 'geo-west'])
    expect(names(await bbox('-178,61,-177,62'))).toEqual(['geo-across', 'geo-west'])
    expect(names(await bbox('176,61,177,62'))).toEqual(['geo-across'])
    expect(names(await bbox('-174,61,-170,62'))).toEqual([])
    // the same box written past -180 or 180
    expect(names(await bbox('182,61,183,62'))).toEqual(names(await bbox('-178,61,-177,62')))
    expect(names(await bbox('-184,61,-183,62'))).toEqual(['geo-across'])
  })

  it('combines with q, fq, facets and the cursor', async () => {
    const world = '-180,-90,180,90'
    const all = await bbox(world, { 'facet.field': ['tags'] })
    expect(names(all)).toEqual(['geo-across', 'geo-big-square', 'geo-islands', 'geo-line', 'geo-point', 'geo-triangle', 'geo-west'])
    expect(all.facets.tags).toEqual({ water: 3, land: 2, ice: 2 })
    expect(names(await bbox(world, { q: 'tags:ice' }))).toEqual(['geo-across', 'geo-west'])
    expect(names(await bbox('0,0,60,60', { fq: 'tags:water' }))).toEqual(['geo-islands', 'geo-point', 'geo-triangle'])
    expect((await bbox('0,0,60,60', { fq: 'tags:water', 'facet.field': ['tags'] })).facets.tags).toEqual({ water: 3 })
    // paging by cursor: every match once
    const seen: string[] = []
    let cursor = '*'
    for (let i = 0; i < 10; i++) {
      const page = await t.ok('package_search', { extras: { ext_bbox: world }, fq: 'name:geo-*', rows: 2, sort: 'name asc', cursor })
      seen.push(...page.results.map((d: { name: string }) => d.name))
      if (!page.next_cursor) break
      cursor = page.next_cursor
    }
    expect(seen).toEqual(names(all))
    // and by score (the overlap ranking)
    const ranked: string[] = []
    cursor = '*'
    for (let i = 0; i < 10; i++) {
      const page = await t.ok('package_search', { ext_bbox: world, fq: 'name:geo-*', rows: 3, cursor })
      ranked.push(...page.results.map((d: { name: string }) => d.name))
      if (!page.next_cursor) break
      cursor = page.next_cursor
    }
    expect([...ranked].sort()).toEqual(names(all))
  })

  it('ranks by overlap when sorted by score: the dataset that fits the box best first', async () => {
    const r = await t.ok('package_search', { ext_bbox: '-20,-20,20,20', fq: 'name:geo-*', rows: 10 })
    // the big square is the box itself (ratio 1); the triangle covers 50 of 1,600: 2 × 50 / 1,650
    expect(r.results.map((d: { name: string }) => d.name)).toEqual(['geo-big-square', 'geo-triangle'])
    const byName = await t.ok('package_search', { ext_bbox: '-20,-20,20,20', fq: 'name:geo-*', rows: 10, sort: 'name desc' })
    expect(byName.results.map((d: { name: string }) => d.name)).toEqual(['geo-triangle', 'geo-big-square'])
  })

  it('refuses a malformed box with CKAN\'s Search Error', async () => {
    for (const box of ['-10,-20,10,a', '1,2,3', '0,10,1,5']) {
      for (const params of [{ ext_bbox: box }, { extras: { ext_bbox: box } }]) {
        const r = await t.call('package_search', params)
        expect(r.status).toBe(409)
        expect(r.body.error).toEqual({ __type: 'Search Error', message: "Search error: 'Wrong bounding box provided'" })
      }
    }
    // an empty box is no spatial search
    expect((await t.ok('package_search', { ext_bbox: '', rows: 0 })).count).toBe((await t.ok('package_search', { rows: 0 })).count)
  })

  it('reads only ext_* keys of extras, and refuses extras that are not a dict', async () => {
    expect((await t.ok('package_search', { extras: { ext_other: 'x', ext_bbox: '-1,-1,1,1' }, fq: 'name:geo-*' })).count).toBe(2)
    const r = await t.call('package_search', { extras: ['ext_bbox'] })
    expect(r.status).toBe(409)
    expect(r.body.error.__type).toBe('Validation Error')
    expect(r.body.error.extras).toBeDefined()
  })

  it('never shows a private dataset to whoever may not read it', async () => {
    const box = '59,59,62,62'
    expect(names(await bbox(box))).toEqual([])
    expect(names(await bbox(box, { include_private: true }))).toEqual([])
    expect(names(await bbox(box, { include_private: true }, outsider))).toEqual([])
    expect(names(await bbox(box, { include_private: true }, sys))).toEqual(['geo-secret'])
    expect(names(await bbox(box, {}, sys))).toEqual([])
  })

  it('keeps the GeoJSON out of the text index (ckanext-spatial drops it from the document)', async () => {
    expect((await t.ok('package_search', { q: '175', rows: 0 })).count).toBe(0)
  })
})

describe('/api/2/search/dataset/geo', () => {
  it('answers the ids of the datasets that meet the box', async () => {
    const r = await t.get('/api/2/search/dataset/geo?bbox=170,55,-170,70')
    // (no write test puts a geometry there)
    expect(r.status).toBe(200)
    expect(r.body.count).toBe(2)
    const ids = await Promise.all(['geo-across', 'geo-west'].map(async (n) => (await t.ok('package_show', { id: n })).id))
    expect([...r.body.results].sort()).toEqual(ids.sort())
    const pkg = await t.get('/api/2/search/package/geo?bbox=170,55,-170,70&crs=EPSG:4326')
    expect(pkg.body).toEqual(r.body)
  })

  it('refuses a missing or malformed box, and another CRS, with 400', async () => {
    for (const q of ['', '?bbox=', '?bbox=1,2,3', '?bbox=1,2,3,4&crs=EPSG:27700']) {
      const r = await t.get(`/api/2/search/dataset/geo${q}`)
      expect(r.status).toBe(400)
    }
    expect((await t.get('/api/2/search/dataset/geo')).body).toBe('Bad request - Please provide a suitable bbox parameter [minx,miny,maxx,maxy]')
  })

  it('shows private datasets only to who may read them', async () => {
    expect((await t.get('/api/2/search/dataset/geo?bbox=59,59,62,62')).body).toEqual({ count: 0, results: [] })
    expect((await t.get('/api/2/search/dataset/geo?bbox=59,59,62,62', outsider)).body.count).toBe(0)
    expect((await t.get('/api/2/search/dataset/geo?bbox=59,59,62,62', sys)).body.count).toBe(1)
  })
})

describe('a restarted process', () => {
  it('answers every spatial query as the grown one, from the snapshot', async () => {
    const queries: object[] = [
      { ext_bbox: '-1,-1,1,1' },
      { ext_bbox: '5.6,4.5,9,9' },
      { ext_bbox: '170,55,-170,70' },
      { ext_bbox: '-180,-90,180,90', 'facet.field': ['tags'] },
      { ext_bbox: '-20,-20,20,20' },
      { ext_bbox: '42,42,44,44' },
      { ext_bbox: '30,0,35,10', q: 'tags:water' },
    ]
    const grown = await Promise.all(queries.map((q) => t.ok('package_search', { ...q, rows: 100 })))
    await t.deps.search.writeSnapshot()
    const { db, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${t.file}`)
    const deps = buildDeps(loadConfig(TEST_PROFILE), db, { headProbe, writeExecutor, readExecutor })
    await warmUp(deps)
    const app = createApp(deps)
    for (const [i, q] of queries.entries()) {
      const res = await app.request('/api/3/action/package_search', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...q, rows: 100 }),
      })
      const body = await res.json()
      expect(body.result.results.map((d: { id: string }) => d.id)).toEqual(grown[i].results.map((d: { id: string }) => d.id))
      expect(body.result.count).toBe(grown[i].count)
      expect(body.result.facets).toEqual(grown[i].facets)
    }
    // the cold process read its geometries from the snapshot, not by re-indexing the datasets
    const [row] = await deps.read('SELECT COUNT(*) AS n FROM search_snapshot')
    expect(Number(row!.n)).toBeGreaterThan(0)
    deps.search.stop()
  })
})
