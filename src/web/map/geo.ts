// What the pages' maps draw: the world's land (world-atlas, Natural Earth 1:110m) and a dataset's
// `spatial` geometry on an equirectangular SVG, the bounding box of a geometry, and the search
// page's area filter (`ext_bbox=minx,miny,maxx,maxy`, read and checked as a form is).
import { geoArea, geoEquirectangular, geoPath, type GeoPermissibleObjects } from 'd3-geo'
import { feature } from 'topojson-client'
import type { Topology } from 'topojson-specification'
import land110m from 'world-atlas/land-110m.json'
import type { Geometry, Position } from 'geojson'

/** The SVG's coordinate space: one unit per half degree, longitude −180…180 → 0…720. */
export const WIDTH = 720
export const HEIGHT = 360
const projection = geoEquirectangular()
  .scale(WIDTH / (2 * Math.PI))
  .translate([WIDTH / 2, HEIGHT / 2])
  .precision(0.5)
const path = geoPath(projection).digits(1)

/** x, y in the SVG of a longitude and latitude (no clipping). */
export const project = (lon: number, lat: number): [number, number] => [((lon + 180) * WIDTH) / 360, ((90 - lat) * HEIGHT) / 180]

let landCache: { feature: GeoPermissibleObjects; svg: string; geojson: string } | undefined

function landData() {
  if (landCache) return landCache
  const topo = land110m as unknown as Topology
  const f = feature(topo, topo.objects.land!) as GeoPermissibleObjects
  const d = path(f) ?? ''
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">` +
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#dcebf5"/><path d="${d}" fill="#f4f1e8" stroke="#8f9aa5" stroke-width="0.5"/></svg>`
  // the same land for the script map, two decimals (about a kilometre) to keep it small
  const geojson = JSON.stringify(f, (k, v) => (typeof v === 'number' && k !== 'id' ? Math.round(v * 100) / 100 : v))
  landCache = { feature: f, svg, geojson }
  return landCache
}

/** The world's land as an SVG image (sea and land), computed once per process or isolate. */
export const worldSvg = () => landData().svg
/** The world's land as a GeoJSON FeatureCollection, for the script map. */
export const landGeoJson = () => landData().geojson

const TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'])

/**
 * The dataset's `spatial` geometry (a top-level field, as scheming's spatial preset keeps it, or
 * the `spatial` extra), or null when it has none or it is not a GeoJSON geometry with
 * coordinates in range: a page draws only what it can read.
 */
export function datasetGeometry(d: Record<string, unknown>): Geometry | null {
  let raw: unknown = d.spatial
  if (raw === undefined || raw === null || raw === '') {
    const extra = Array.isArray(d.extras) ? (d.extras as { key?: unknown; value?: unknown }[]).find((e) => e?.key === 'spatial') : undefined
    raw = extra?.value
  }
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw)
    } catch {
      return null
    }
  }
  if (raw && typeof raw === 'object' && (raw as { type?: unknown }).type === 'Feature') raw = (raw as { geometry?: unknown }).geometry
  return isGeometry(raw, 0) ? raw : null
}

function isGeometry(g: unknown, depth: number): g is Geometry {
  if (!g || typeof g !== 'object' || depth > 4) return false
  const { type, coordinates, geometries } = g as { type?: unknown; coordinates?: unknown; geometries?: unknown }
  if (typeof type !== 'string' || !TYPES.has(type)) return false
  if (type === 'GeometryCollection') return Array.isArray(geometries) && geometries.every((x) => isGeometry(x, depth + 1))
  const positions = [...positionsOf(coordinates)]
  return positions.length > 0 && positions.every((p) => p !== null)
}

/** Every position of nested coordinate arrays (null for one that is not a valid [lon, lat]). */
function* positionsOf(c: unknown, depth = 0): Generator<Position | null> {
  if (!Array.isArray(c) || depth > 4) {
    yield null
    return
  }
  if (typeof c[0] === 'number') {
    const [lon, lat] = c as number[]
    const ok = c.length >= 2 && Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon!) <= 180 && Math.abs(lat!) <= 90
    yield ok ? (c as Position) : null
    return
  }
  for (const x of c) yield* positionsOf(x, depth + 1)
}

function* allPositions(g: Geometry): Generator<Position> {
  if (g.type === 'GeometryCollection') {
    for (const x of g.geometries) yield* allPositions(x)
    return
  }
  for (const p of positionsOf(g.coordinates)) if (p) yield p
}

/** [minx, miny, maxx, maxy] of a geometry's coordinates, as ckanext-spatial states a dataset's extent. */
export function boundsOf(g: Geometry): Bbox {
  let [minx, miny, maxx, maxy] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [x, y] of allPositions(g)) {
    minx = Math.min(minx, x!)
    maxx = Math.max(maxx, x!)
    miny = Math.min(miny, y!)
    maxy = Math.max(maxy, y!)
  }
  return [minx, miny, maxx, maxy]
}

/**
 * The SVG path of a geometry. GeoJSON (RFC 7946) has no rule d3-geo can rely on for the
 * orientation of a polygon's rings, and d3-geo reads a ring around more than half the globe as
 * its complement: such polygons are drawn with their rings reversed.
 */
export function geometryPath(g: Geometry): string {
  return path(rewind(g) as GeoPermissibleObjects) ?? ''
}

function rewind(g: Geometry): Geometry {
  const fix = (rings: Position[][]) => {
    const poly = { type: 'Polygon' as const, coordinates: rings }
    return geoArea(poly) > 2 * Math.PI ? rings.map((r) => [...r].reverse()) : rings
  }
  switch (g.type) {
    case 'Polygon':
      return { type: 'Polygon', coordinates: fix(g.coordinates) }
    case 'MultiPolygon':
      return { type: 'MultiPolygon', coordinates: g.coordinates.map(fix) }
    case 'GeometryCollection':
      return { type: 'GeometryCollection', geometries: g.geometries.map(rewind) }
    default:
      return g
  }
}

export type Bbox = [minx: number, miny: number, maxx: number, maxy: number]

/** The rectangles of a box in the SVG: two when it crosses the antimeridian (minx > maxx). */
export function boxRects([minx, miny, maxx, maxy]: Bbox): { x: number; y: number; width: number; height: number }[] {
  const spans: [number, number][] = minx <= maxx ? [[minx, maxx]] : [[minx, 180], [-180, maxx]]
  return spans.map(([w, e]) => {
    const [x0, y0] = project(w, maxy)
    const [x1, y1] = project(e, miny)
    // a point or a line still shows: at least one unit wide and high
    return { x: round(Math.min(x0, x1 - 1)), y: round(Math.min(y0, y1 - 1)), width: round(Math.max(1, x1 - x0)), height: round(Math.max(1, y1 - y0)) }
  })
}

const round = (n: number) => Math.round(n * 10) / 10

/** What is wrong with a box's parts, by the search form's field (west, south, east, north), as message keys. */
export type BboxError = 'map.error.missing' | 'map.error.number' | 'map.error.longitude' | 'map.error.latitude' | 'map.error.southNorth'
export type BboxErrors = Partial<Record<'west' | 'south' | 'east' | 'north', BboxError>>

export const BBOX_FIELDS = ['west', 'south', 'east', 'north'] as const

/**
 * The four parts of a box as the form sends them (west, south, east, north), checked: numbers,
 * longitudes within ±180, latitudes within ±90, south not above north. West may exceed east: the
 * box then crosses the antimeridian, as a map drawn across it gives.
 */
export function checkBbox(parts: Record<(typeof BBOX_FIELDS)[number], string>): { bbox: Bbox } | { errors: BboxErrors } {
  const errors: BboxErrors = {}
  const n: Partial<Record<(typeof BBOX_FIELDS)[number], number>> = {}
  for (const f of BBOX_FIELDS) {
    const s = parts[f].trim()
    const v = Number(s)
    if (s === '') errors[f] = 'map.error.missing'
    else if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s) || !Number.isFinite(v)) errors[f] = 'map.error.number'
    else if ((f === 'west' || f === 'east') && Math.abs(v) > 180) errors[f] = 'map.error.longitude'
    else if ((f === 'south' || f === 'north') && Math.abs(v) > 90) errors[f] = 'map.error.latitude'
    else n[f] = v
  }
  if (n.south !== undefined && n.north !== undefined && n.south > n.north) errors.south = 'map.error.southNorth'
  if (Object.keys(errors).length) return { errors }
  return { bbox: [n.west!, n.south!, n.east!, n.north!] }
}

/** An `ext_bbox` value (`minx,miny,maxx,maxy`), checked as the form's parts are; null when it is not one. */
export function parseBbox(value: string): Bbox | null {
  const parts = value.split(',')
  if (parts.length !== 4) return null
  const r = checkBbox({ west: parts[0]!, south: parts[1]!, east: parts[2]!, north: parts[3]! })
  return 'bbox' in r ? r.bbox : null
}

/** A box as `ext_bbox` writes it. */
export const bboxParam = (b: Bbox) => b.map((n) => String(n)).join(',')
