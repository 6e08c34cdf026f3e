// WKT → GeoJSON (what DCAT-AP documents carry in locn:geometry as gsp:wktLiteral), and the bounds of a
// GeoJSON geometry. Small code instead of a package: the seven geometry types of the OGC simple
// features, 2D (a Z or M value is read and dropped), an optional CRS IRI in front (GeoSPARQL's form;
// the CRS84 / EPSG:4326 ones are the only ones taken, as GeoJSON is WGS84 longitude/latitude).
type Geometry = { type: string; coordinates?: unknown; geometries?: Geometry[] }

const WGS84 = /^<(?:https?:\/\/www\.opengis\.net\/def\/crs\/(?:OGC\/1\.3\/CRS84|EPSG\/0\/4326))>\s*/i

class Reader {
  private i = 0
  constructor(private readonly s: string) {}
  private ws() {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++
  }
  word(): string {
    this.ws()
    const m = /^[A-Za-z]+/.exec(this.s.slice(this.i))
    if (!m) throw new Error(`a word expected at ${this.i}`)
    this.i += m[0].length
    return m[0].toUpperCase()
  }
  peek(ch: string): boolean {
    this.ws()
    return this.s[this.i] === ch
  }
  take(ch: string) {
    if (!this.peek(ch)) throw new Error(`'${ch}' expected at ${this.i}`)
    this.i++
  }
  number(): number {
    this.ws()
    const m = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.s.slice(this.i))
    if (!m) throw new Error(`a number expected at ${this.i}`)
    this.i += m[0].length
    return Number(m[0])
  }
  /** EMPTY instead of a parenthesised list. */
  empty(): boolean {
    this.ws()
    if (/^EMPTY\b/i.test(this.s.slice(this.i))) {
      this.i += 5
      return true
    }
    return false
  }
  done() {
    this.ws()
    if (this.i !== this.s.length) throw new Error(`unexpected text at ${this.i}`)
  }
}

function position(r: Reader): number[] {
  const x = r.number()
  const y = r.number()
  // a third or fourth ordinate (Z, M) is dropped
  while (!r.peek(',') && !r.peek(')')) r.number()
  return [x, y]
}

function list<T>(r: Reader, item: (r: Reader) => T): T[] {
  if (r.empty()) return []
  r.take('(')
  const out = [item(r)]
  while (r.peek(',')) {
    r.take(',')
    out.push(item(r))
  }
  r.take(')')
  return out
}

// MULTIPOINT takes its points with or without parentheses each
const multiPoint = (r: Reader) => {
  if (!r.peek('(')) return position(r)
  r.take('(')
  const p = position(r)
  r.take(')')
  return p
}

function geometry(r: Reader): Geometry {
  const name = r.word()
  // a dimension tag (POINT Z, LINESTRING ZM...)
  if (r.peek('Z') || r.peek('M') || r.peek('z') || r.peek('m')) r.word()
  switch (name) {
    case 'POINT': {
      const c = list(r, position)
      if (c.length > 1) throw new Error('a point has one position')
      return { type: 'Point', coordinates: c[0] ?? [] }
    }
    case 'LINESTRING':
      return { type: 'LineString', coordinates: list(r, position) }
    case 'POLYGON':
      return { type: 'Polygon', coordinates: list(r, (r) => list(r, position)) }
    case 'MULTIPOINT':
      return { type: 'MultiPoint', coordinates: list(r, multiPoint) }
    case 'MULTILINESTRING':
      return { type: 'MultiLineString', coordinates: list(r, (r) => list(r, position)) }
    case 'MULTIPOLYGON':
      return { type: 'MultiPolygon', coordinates: list(r, (r) => list(r, (r) => list(r, position))) }
    case 'GEOMETRYCOLLECTION':
      return { type: 'GeometryCollection', geometries: list(r, geometry) }
    default:
      throw new Error(`unknown geometry type ${name}`)
  }
}

/**
 * The GeoJSON geometry of a WKT text (with an optional GeoSPARQL CRS IRI in front, WGS84 only),
 * or undefined when it is not WKT this reads.
 */
export function wktToGeoJson(text: string): Geometry | undefined {
  let s = text.trim()
  const crs = WGS84.exec(s)
  if (crs) s = s.slice(crs[0].length)
  else if (s.startsWith('<')) return undefined // another CRS: its axes and units are unknown
  s = s.replace(/^SRID=4326;/i, '')
  try {
    const r = new Reader(s)
    const g = geometry(r)
    r.done()
    return g
  } catch {
    return undefined
  }
}

/** [minx, miny, maxx, maxy] of a GeoJSON geometry, Feature or FeatureCollection; undefined if it has no position. */
export function geoJsonBounds(g: unknown): [number, number, number, number] | undefined {
  const b = [Infinity, Infinity, -Infinity, -Infinity] as [number, number, number, number]
  const visit = (c: unknown) => {
    if (!Array.isArray(c)) return
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      if (!Number.isFinite(c[0]) || !Number.isFinite(c[1])) return
      b[0] = Math.min(b[0], c[0])
      b[1] = Math.min(b[1], c[1])
      b[2] = Math.max(b[2], c[0])
      b[3] = Math.max(b[3], c[1])
      return
    }
    for (const x of c) visit(x)
  }
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object') return
    const d = o as Record<string, unknown>
    if (d.type === 'FeatureCollection' && Array.isArray(d.features)) d.features.forEach(walk)
    else if (d.type === 'Feature') walk(d.geometry)
    else if (d.type === 'GeometryCollection' && Array.isArray(d.geometries)) d.geometries.forEach(walk)
    else visit(d.coordinates)
  }
  walk(g)
  return b[0] <= b[2] ? b : undefined
}

/** The box [minx, miny, maxx, maxy] as a GeoJSON polygon (counter-clockwise from the south-west corner). */
export function boxPolygon([w, s, e, n]: readonly number[]): Geometry {
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }
}

/** The box a polygon stands for when it is exactly boxPolygon's ring, else undefined. */
export function polygonAsBox(g: unknown): [number, number, number, number] | undefined {
  const b = geoJsonBounds(g)
  if (!b || (g as Geometry)?.type !== 'Polygon') return undefined
  return JSON.stringify((g as Geometry).coordinates) === JSON.stringify(boxPolygon(b).coordinates) ? b : undefined
}

/** A "minx,miny,maxx,maxy" text (DCAT-US spatial, ext_bbox) as numbers, or undefined. */
export function parseBoxText(s: string): [number, number, number, number] | undefined {
  const parts = s.split(',').map((x) => x.trim())
  if (parts.length !== 4 || parts.some((x) => !/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(x))) return undefined
  const [w, so, e, n] = parts.map(Number) as [number, number, number, number]
  return [w, so, e, n]
}
