// A GeoJSON document drawn as SVG without a script: features counted, the geometries projected
// equirectangularly (longitude → x, latitude → −y) into a viewBox fitted to their bounds, as path
// data (lines and polygons, even-odd fill for holes) and point positions. Bounded: at most
// MAX_POINTS positions are drawn, the rest counted; coordinates rounded to the drawing's scale.
import { geoJsonBounds } from './wkt'

export interface GeoSummary {
  /** features (a bare geometry counts as one) */
  features: number
  /** the geometry types seen, with how many of each */
  types: Record<string, number>
  bbox?: [number, number, number, number]
}

export interface GeoDrawing extends GeoSummary {
  width: number
  height: number
  /** path data of the lines and polygons (one per geometry) */
  paths: { d: string; area: boolean }[]
  points: [number, number][]
  /** positions left out of the drawing (past MAX_POINTS) */
  omitted: number
}

const MAX_POINTS = 50_000
type Dict = Record<string, any>

/** The geometries of a GeoJSON document (FeatureCollection, Feature, geometry, GeometryCollection). */
function geometries(doc: unknown, out: Dict[] = []): Dict[] {
  if (!doc || typeof doc !== 'object') return out
  const d = doc as Dict
  if (d.type === 'FeatureCollection' && Array.isArray(d.features)) for (const f of d.features) geometries(f, out)
  else if (d.type === 'Feature') geometries(d.geometry, out)
  else if (d.type === 'GeometryCollection' && Array.isArray(d.geometries)) for (const g of d.geometries) geometries(g, out)
  else if (typeof d.type === 'string' && Array.isArray(d.coordinates)) out.push(d)
  return out
}

/** Whether `doc` is GeoJSON this reads (a FeatureCollection, Feature or geometry object). */
export function isGeoJson(doc: unknown): boolean {
  const t = doc && typeof doc === 'object' ? (doc as Dict).type : undefined
  return ['FeatureCollection', 'Feature', 'GeometryCollection', 'Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon'].includes(t)
}

export function summarize(doc: unknown): GeoSummary {
  const d = doc as Dict
  const features = d?.type === 'FeatureCollection' && Array.isArray(d.features) ? d.features.length : isGeoJson(doc) ? 1 : 0
  const types: Record<string, number> = {}
  for (const g of geometries(doc)) types[g.type] = (types[g.type] ?? 0) + 1
  const bbox = geoJsonBounds(doc)
  return { features, types, ...(bbox ? { bbox } : {}) }
}

/** The drawing of `doc`, `width` units wide (the height follows the bounds' aspect, at least 1/8 of it). */
export function drawGeoJson(doc: unknown, width = 640): GeoDrawing {
  const summary = summarize(doc)
  const [w, s, e, n] = summary.bbox ?? [0, 0, 0, 0]
  const spanX = Math.max(e - w, 1e-9)
  const spanY = Math.max(n - s, 1e-9)
  // a single point or a line along an axis: a square around it
  const span = Math.max(spanX, spanY)
  const sx = spanX < span / 8 ? span : spanX
  const sy = spanY < span / 8 ? span : spanY
  const pad = 0.04
  const scale = (width * (1 - 2 * pad)) / sx
  const height = Math.max(Math.round(sy * scale + width * 2 * pad), Math.round(width / 8))
  const cx = (w + e) / 2
  const cy = (s + n) / 2
  const digits = 1
  const f = (v: number) => Number(v.toFixed(digits))
  const x = (lon: number) => f(width / 2 + (lon - cx) * scale)
  const y = (lat: number) => f(height / 2 - (lat - cy) * scale)
  let budget = MAX_POINTS
  let omitted = 0
  const take = (c: unknown): [number, number] | undefined => {
    if (!Array.isArray(c) || typeof c[0] !== 'number' || typeof c[1] !== 'number' || !Number.isFinite(c[0]) || !Number.isFinite(c[1])) return undefined
    if (budget <= 0) {
      omitted++
      return undefined
    }
    budget--
    return [x(c[0]), y(c[1])]
  }
  const line = (cs: unknown, close: boolean) => {
    if (!Array.isArray(cs)) return ''
    const pts = cs.map(take).filter((p): p is [number, number] => !!p)
    if (!pts.length) return ''
    return 'M' + pts.map((p) => `${p[0]} ${p[1]}`).join('L') + (close ? 'Z' : '')
  }
  const paths: GeoDrawing['paths'] = []
  const points: [number, number][] = []
  for (const g of geometries(doc)) {
    const c = g.coordinates as unknown[]
    switch (g.type) {
      case 'Point': {
        const p = take(c)
        if (p) points.push(p)
        break
      }
      case 'MultiPoint':
        for (const q of c) {
          const p = take(q)
          if (p) points.push(p)
        }
        break
      case 'LineString':
        paths.push({ d: line(c, false), area: false })
        break
      case 'MultiLineString':
        paths.push({ d: c.map((l) => line(l, false)).join(''), area: false })
        break
      case 'Polygon':
        paths.push({ d: c.map((r) => line(r, true)).join(''), area: true })
        break
      case 'MultiPolygon':
        paths.push({ d: c.flatMap((p) => (Array.isArray(p) ? p.map((r) => line(r, true)) : [])).join(''), area: true })
        break
    }
  }
  return { ...summary, width, height, paths: paths.filter((p) => p.d), points, omitted }
}
