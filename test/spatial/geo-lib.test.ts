// src/lib/geo: GeoJSON read as ckanext-spatial checks the `spatial` extra, search boxes as its
// normalize_bbox reads ext_bbox, and exact geometry-against-box tests and overlap areas.
import { describe, expect, it } from 'vitest'
import { readSpatial } from '../../src/lib/geo/geojson'
import { boundsOf, intersectsBox, parseBbox, polygonArea } from '../../src/lib/geo/box'
import { GeoField } from '../../src/search/geo-field'
import { newBits, setBit, forEachBit } from '../../src/search/bits'

const sq = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
  [x0, y0],
]

function packed(g: unknown) {
  const r = readSpatial(JSON.stringify(g))
  if (!r.ok) throw new Error(r.error)
  return r.packed
}

/** Whether geometry g meets the search box text `bbox` (as the index decides). */
function meets(g: unknown, bbox: string) {
  const f = new GeoField()
  f.set(0, packed(g))
  return f.intersects(0, parseBbox(bbox)!)
}

describe('readSpatial', () => {
  const valid: [string, unknown][] = [
    ['Point', { type: 'Point', coordinates: [100, 2] }],
    ['Point with altitude', { type: 'Point', coordinates: [100, 2, 30] }],
    ['MultiPoint', { type: 'MultiPoint', coordinates: [[100, 0], [101, 1]] }],
    ['LineString', { type: 'LineString', coordinates: [[100, 0], [101, 1]] }],
    ['MultiLineString', { type: 'MultiLineString', coordinates: [[[100, 0], [101, 1]], [[102, 2], [103, 3]]] }],
    ['Polygon', { type: 'Polygon', coordinates: [sq(100, 0, 101, 1)] }],
    ['Polygon with a hole', { type: 'Polygon', coordinates: [sq(100, 0, 101, 1), sq(100.2, 0.2, 100.8, 0.8)] }],
    ['MultiPolygon', { type: 'MultiPolygon', coordinates: [[sq(102, 2, 103, 3)], [sq(100, 0, 101, 1)]] }],
    ['GeometryCollection', { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [1, 2] }, { type: 'Polygon', coordinates: [sq(0, 0, 1, 1)] }] }],
    ['Feature', { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [1, 2] } }],
    ['FeatureCollection', { type: 'FeatureCollection', features: [{ type: 'Feature', properties: null, geometry: { type: 'Point', coordinates: [1, 2] } }] }],
    ['longitudes past 180 (across the antimeridian)', { type: 'Polygon', coordinates: [sq(169, 60, 192, 70)] }],
  ]
  for (const [name, g] of valid) {
    it(`reads a ${name}`, () => {
      const r = readSpatial(JSON.stringify(g))
      expect(r.ok).toBe(true)
    })
  }

  it('reads an object as well as its JSON text', () => {
    expect(readSpatial({ type: 'Point', coordinates: [1, 2] }).ok).toBe(true)
  })

  it('answers ckanext-spatial\'s decode message for text that is not JSON', () => {
    const r = readSpatial('{"Type":Bad Json]')
    expect(r.ok).toBe(false)
    expect(!r.ok && r.error).toMatch(/^Error decoding JSON object: /)
  })

  it('answers the bare "Wrong GeoJSON object" for JSON that is no GeoJSON type', () => {
    for (const v of ['{"Type":"Bad_GeoJSON","a":2}', '{"type":"Circle","coordinates":[1,2]}', '[1,2]', '5', '"Point"', 'null']) {
      expect(readSpatial(v)).toEqual({ ok: false, error: 'Error: Wrong GeoJSON object' })
    }
  })

  const wrong: [string, unknown, RegExp][] = [
    ['an unclosed ring', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, /ring 1: a linear ring must end where it started/],
    ['a ring of 3 positions', { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [0, 0]]] }, /a linear ring needs 4 or more positions, got 3/],
    ['a polygon without rings', { type: 'Polygon', coordinates: [] }, /a polygon needs at least one linear ring/],
    ['a line of one position', { type: 'LineString', coordinates: [[0, 0]] }, /a line needs 2 or more positions, got 1/],
    ['a line in a MultiLineString of one position', { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[0, 0]]] }, /line 2: a line needs 2 or more positions/],
    ['a latitude past 90', { type: 'Point', coordinates: [10, 95] }, /latitude 95 is out of range \(-90 to 90\)/],
    ['a longitude past 360', { type: 'Point', coordinates: [400, 5] }, /longitude 400 is out of range/],
    ['a position of one number', { type: 'Point', coordinates: [10] }, /a position must be an array of 2 or 3 numbers, got \[10\]/],
    ['a position of strings', { type: 'Point', coordinates: ['1', '2'] }, /a position must be an array of 2 or 3 numbers/],
    ['coordinates missing', { type: 'LineString' }, /LineString coordinates must be an array/],
    ['a GeometryCollection without geometries', { type: 'GeometryCollection' }, /"geometries" must be an array/],
    ['a collection member that is no geometry', { type: 'GeometryCollection', geometries: [{ type: 'Feature' }] }, /each member of "geometries" must be a geometry object/],
    ['a Feature with a bad geometry', { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 200] } }, /latitude 200/],
    ['a bad polygon inside a MultiPolygon', { type: 'MultiPolygon', coordinates: [[sq(0, 0, 1, 1)], [[[0, 0], [1, 0], [1, 1], [0, 1]]]] }, /polygon 2, ring 1: a linear ring must end where it started/],
  ]
  for (const [name, g, message] of wrong) {
    it(`refuses ${name} with a readable reason`, () => {
      const r = readSpatial(JSON.stringify(g))
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.error.startsWith('Error: Wrong GeoJSON object: ')).toBe(true)
        expect(r.error).toMatch(message)
      }
    })
  }
})

describe('parseBbox (ext_bbox)', () => {
  it('reads a string, a list of numbers and a list of numeric strings', () => {
    const want = { minx: -4.96, miny: 55.7, maxx: -3.78, maxy: 56.43 }
    expect(parseBbox('-4.96,55.70,-3.78,56.43')).toEqual(want)
    expect(parseBbox([-4.96, 55.7, -3.78, 56.43])).toEqual(want)
    expect(parseBbox(['-4.96', ' 55.70', '-3.78 ', '56.43'])).toEqual(want)
  })
  it('refuses what is not 4 finite numbers, or a south edge north of the north edge', () => {
    for (const v of ['-10,-20,10,a', '1,2,3', '1,2,3,4,5', '', '1,,3,4', 'NaN,1,2,3', 'Infinity,1,2,3', '0,10,1,5', 5, null, { a: 1 }]) expect(parseBbox(v)).toBeNull()
  })
  it('wraps longitudes: a box across the antimeridian is one box from its west edge eastwards', () => {
    expect(parseBbox('170,60,-170,70')).toEqual({ minx: 170, miny: 60, maxx: 190, maxy: 70 })
    expect(parseBbox('258,37,281,51')).toEqual({ minx: -102, miny: 37, maxx: -79, maxy: 51 })
    expect(parseBbox('-203,-54,-167,-28')).toEqual({ minx: 157, miny: -54, maxx: 193, maxy: -28 })
    expect(parseBbox('-180,-90,180,90')).toEqual({ minx: -180, miny: -90, maxx: 180, maxy: 90 })
    expect(parseBbox('-190,-100,190,100')).toEqual({ minx: 170, miny: -90, maxx: 530, maxy: 90 })
  })
})

describe('geometry against a box (exact)', () => {
  const tri = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [0, 10], [0, 0]]] }
  it('a polygon overlapping only the box\'s corner', () => {
    // the triangle's hypotenuse x + y = 10 passes the box 4..6 × 4..6 through its corner (4,4)..(6,6) diagonal
    expect(meets(tri, '4,4,6,6')).toBe(true)
    // the box's lower-left corner (5.6, 4.5) is just beyond the hypotenuse: the envelopes overlap, the shapes do not
    expect(meets(tri, '5.6,4.5,9,9')).toBe(false)
    // touching at one point: (5,5) lies on the hypotenuse
    expect(meets(tri, '5,5,9,9')).toBe(true)
  })
  it('a box inside a polygon (no edge crosses it)', () => {
    expect(meets({ type: 'Polygon', coordinates: [sq(-10, -10, 10, 10)] }, '-1,-1,1,1')).toBe(true)
  })
  it('a box inside a polygon\'s hole meets nothing, on the hole\'s edge it does', () => {
    const holed = { type: 'Polygon', coordinates: [sq(-10, -10, 10, 10), sq(-5, -5, 5, 5)] }
    expect(meets(holed, '-1,-1,1,1')).toBe(false)
    expect(meets(holed, '-1,-1,5,1')).toBe(true)
  })
  it('a polygon inside the box', () => {
    expect(meets({ type: 'Polygon', coordinates: [sq(1, 1, 2, 2)] }, '0,0,3,3')).toBe(true)
  })
  it('points: inside, on the edge, on a corner, outside', () => {
    expect(meets({ type: 'Point', coordinates: [1, 1] }, '0,0,3,3')).toBe(true)
    expect(meets({ type: 'Point', coordinates: [3, 1] }, '0,0,3,3')).toBe(true)
    expect(meets({ type: 'Point', coordinates: [3, 3] }, '0,0,3,3')).toBe(true)
    expect(meets({ type: 'Point', coordinates: [3.0001, 1] }, '0,0,3,3')).toBe(false)
    expect(meets({ type: 'MultiPoint', coordinates: [[9, 9], [2, 2]] }, '0,0,3,3')).toBe(true)
  })
  it('lines: crossing the box without a position in it, passing by', () => {
    expect(meets({ type: 'LineString', coordinates: [[-5, 1], [5, 1]] }, '0,0,3,3')).toBe(true)
    expect(meets({ type: 'LineString', coordinates: [[-5, 4], [5, 4]] }, '0,0,3,3')).toBe(false)
    // diagonal whose envelope covers the box but which passes beside it
    expect(meets({ type: 'LineString', coordinates: [[-1, 2], [2, 5]] }, '0,0,1,1')).toBe(false)
  })
  it('multipolygons: a box between the parts meets none of them', () => {
    const two = { type: 'MultiPolygon', coordinates: [[sq(0, 0, 1, 1)], [sq(5, 5, 6, 6)]] }
    expect(meets(two, '2,2,4,4')).toBe(false)
    expect(meets(two, '0.5,0.5,2,2')).toBe(true)
    expect(meets(two, '4,4,5.5,5.5')).toBe(true)
  })
  it('the antimeridian: boxes and geometries across it', () => {
    const east = { type: 'Polygon', coordinates: [sq(175, 60, 179, 65)] }
    const west = { type: 'Polygon', coordinates: [sq(-179, 60, -175, 65)] }
    const across = { type: 'Polygon', coordinates: [sq(170, 60, 190, 65)] }
    expect(meets(east, '170,55,-170,70')).toBe(true)
    expect(meets(west, '170,55,-170,70')).toBe(true)
    expect(meets(west, '-170,55,170,70')).toBe(false) // the other way round: from -170 east to 170
    expect(meets(across, '-175,61,-172,62')).toBe(true)
    expect(meets(across, '-169,61,-160,62')).toBe(false)
    expect(meets(across, '172,61,175,62')).toBe(true)
  })
})

describe('areas', () => {
  it('polygon area, holes taken away, clipped to a box', () => {
    const p = packed({ type: 'Polygon', coordinates: [sq(0, 0, 4, 4), sq(1, 1, 2, 2)] })
    expect(polygonArea(p, 0, p.length)).toBe(15)
    expect(polygonArea(p, 0, p.length, [0, 0, 2, 2])).toBe(3)
    expect(polygonArea(p, 0, p.length, [10, 10, 12, 12])).toBe(0)
    const tri = packed({ type: 'Polygon', coordinates: [[[0, 0], [4, 0], [0, 4], [0, 0]]] })
    expect(polygonArea(tri, 0, tri.length, [0, 0, 2, 2])).toBe(4)
    expect(polygonArea(tri, 0, tri.length, [2, 2, 4, 4])).toBe(0)
    expect(boundsOf(tri)).toEqual([0, 0, 4, 4])
  })
  it('overlap ratio: 2 × shared / (box + geometry), 1 for a perfect fit', () => {
    const f = new GeoField()
    f.set(0, packed({ type: 'Polygon', coordinates: [sq(0, 0, 1, 1)] }))
    f.set(1, packed({ type: 'Point', coordinates: [0.5, 0.5] }))
    expect(f.overlap(0, parseBbox('0,0,1,1')!)).toBe(1)
    expect(f.overlap(0, parseBbox('0.5,0,1.5,1')!)).toBe(0.5)
    expect(f.overlap(1, parseBbox('0,0,1,1')!)).toBe(0)
  })
})

describe('GeoField', () => {
  it('filters a bitset, replaces and removes geometries, and survives its dump', () => {
    const f = new GeoField()
    for (let n = 0; n < 100; n++) f.set(n, packed({ type: 'Point', coordinates: [n, 0] }))
    f.set(5, packed({ type: 'Point', coordinates: [50.5, 0] }))
    f.remove(7)
    f.set(8, undefined)
    const run = (g: GeoField) => {
      const bits = newBits(100)
      for (let n = 0; n < 100; n++) setBit(bits, n)
      g.filter(bits, parseBbox('0,-1,10,1')!)
      const out: number[] = []
      forEachBit(bits, (n) => out.push(n))
      return out
    }
    expect(run(f)).toEqual([0, 1, 2, 3, 4, 6, 9, 10])
    const back = GeoField.load(f.dump(100))
    expect(run(back)).toEqual(run(f))
    expect(back.size).toBe(98)
    expect(intersectsBox(packed({ type: 'Point', coordinates: [1, 1] }), 0, 5, 0, 0, 2, 2)).toBe(true)
  })
})
