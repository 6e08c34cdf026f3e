// The `spatial` field: a GeoJSON geometry read and checked as ckanext-spatial checks it on write.
// Pure: no I/O, runs on Node and Workers.

/** A geometry in one flat array (see pack below): what the search index keeps per dataset. */
export type Packed = Float64Array

/** Part kinds in a packed geometry. */
export const POINTS = 1
export const LINE = 2
export const POLYGON = 3

/** The result of reading a `spatial` value: a packed geometry, or ckanext-spatial's message. */
export type ReadResult = { ok: true; packed: Packed } | { ok: false; error: string }

const WRONG = 'Error: Wrong GeoJSON object'

class Wrong extends Error {}

type Dict = Record<string, unknown>
const isDict = (v: unknown): v is Dict => !!v && typeof v === 'object' && !Array.isArray(v)

/**
 * Reads a `spatial` value (JSON text, or an already parsed object) into a packed geometry. A
 * Feature counts as its geometry and a FeatureCollection as its features' geometries (ckanext-spatial
 * accepts every valid GeoJSON object on write). Longitudes may run past ±180 up to ±360, as
 * ckanext-spatial's own fixtures do for shapes drawn across the antimeridian; latitudes stay
 * within ±90.
 */
export function readSpatial(value: unknown): ReadResult {
  let obj: unknown = value
  if (typeof value === 'string') {
    try {
      obj = JSON.parse(value)
    } catch (e) {
      return { ok: false, error: `Error decoding JSON object: ${(e as Error).message}` }
    }
  }
  // ckanext-spatial: an object geojson does not read as a GeoJSON type has no validity at all
  if (!isDict(obj) || typeof obj.type !== 'string' || !TYPES.has(obj.type)) return { ok: false, error: WRONG }
  const out: number[] = []
  try {
    packObject(obj, out)
  } catch (e) {
    if (e instanceof Wrong) return { ok: false, error: `${WRONG}: ${e.message}` }
    throw e
  }
  return { ok: true, packed: Float64Array.from(out) }
}

const GEOMETRIES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'])
const TYPES = new Set([...GEOMETRIES, 'Feature', 'FeatureCollection'])

function packObject(o: Dict, out: number[], depth = 0) {
  if (depth > 32) throw new Wrong('objects nested too deeply')
  const type = o.type
  if (type === 'Feature') {
    if (o.geometry === null) return
    if (!isDict(o.geometry) || typeof o.geometry.type !== 'string' || !GEOMETRIES.has(o.geometry.type))
      throw new Wrong('a Feature\'s "geometry" must be a geometry object or null')
    return packObject(o.geometry, out, depth + 1)
  }
  if (type === 'FeatureCollection') {
    if (!Array.isArray(o.features)) throw new Wrong('a FeatureCollection\'s "features" must be an array')
    for (const f of o.features) {
      if (!isDict(f) || f.type !== 'Feature') throw new Wrong('each member of "features" must be a Feature')
      packObject(f, out, depth + 1)
    }
    return
  }
  if (type === 'GeometryCollection') {
    if (!Array.isArray(o.geometries)) throw new Wrong('a GeometryCollection\'s "geometries" must be an array')
    for (const g of o.geometries) {
      if (!isDict(g) || typeof g.type !== 'string' || !GEOMETRIES.has(g.type)) throw new Wrong('each member of "geometries" must be a geometry object')
      packObject(g, out, depth + 1)
    }
    return
  }
  if (typeof type !== 'string' || !GEOMETRIES.has(type)) throw new Wrong(`unknown type ${JSON.stringify(type)}`)
  const c = o.coordinates
  const where = `${type} coordinates`
  switch (type) {
    case 'Point':
      return part(out, POINTS, [[position(c, where)]])
    case 'MultiPoint':
      return part(out, POINTS, [positions(c, where, 0)])
    case 'LineString':
      return part(out, LINE, [positions(c, where, 2)])
    case 'MultiLineString':
      for (const [i, l] of list(c, where).entries()) part(out, LINE, [positions(l, `${where}, line ${i + 1}`, 2)])
      return
    case 'Polygon':
      return part(out, POLYGON, polygon(c, where))
    case 'MultiPolygon':
      for (const [i, p] of list(c, where).entries()) part(out, POLYGON, polygon(p, `${where}, polygon ${i + 1}`))
      return
  }
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new Wrong(`${where} must be an array`)
  return v
}

function position(v: unknown, where: string): [number, number] {
  if (!Array.isArray(v) || v.length < 2 || v.length > 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new Wrong(`${where}: a position must be an array of 2 or 3 numbers, got ${short(v)}`)
  const [x, y] = v as number[]
  if (x! < -360 || x! > 360) throw new Wrong(`${where}: longitude ${x} is out of range (-180 to 180, or up to ±360 across the antimeridian)`)
  if (y! < -90 || y! > 90) throw new Wrong(`${where}: latitude ${y} is out of range (-90 to 90)`)
  return [x!, y!]
}

function positions(v: unknown, where: string, min: number): [number, number][] {
  const ps = list(v, where).map((p) => position(p, where))
  if (ps.length < min) throw new Wrong(`${where}: a line needs ${min} or more positions, got ${ps.length}`)
  return ps
}

function polygon(v: unknown, where: string): [number, number][][] {
  const rings = list(v, where)
  if (!rings.length) throw new Wrong(`${where}: a polygon needs at least one linear ring`)
  return rings.map((r, i) => {
    const ring = positions(r, `${where}, ring ${i + 1}`, 0)
    if (ring.length < 4) throw new Wrong(`${where}, ring ${i + 1}: a linear ring needs 4 or more positions, got ${ring.length}`)
    const a = ring[0]!
    const b = ring[ring.length - 1]!
    if (a[0] !== b[0] || a[1] !== b[1]) throw new Wrong(`${where}, ring ${i + 1}: a linear ring must end where it started`)
    return ring
  })
}

const short = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > 40 ? `${s.slice(0, 40)}…` : s
}

/**
 * Appends one part: [kind, ring count, then per ring: position count, x0, y0, x1, y1, ...].
 * Points of a MultiPoint share one ring; a polygon's first ring is its outer one.
 */
function part(out: number[], kind: number, rings: [number, number][][]) {
  out.push(kind, rings.length)
  for (const r of rings) {
    out.push(r.length)
    for (const [x, y] of r) out.push(x, y)
  }
}
