// Bounding boxes of searches (`ext_bbox`) and exact tests of packed geometries against them. Pure.
import { POINTS, POLYGON, type Packed } from './geojson'

/**
 * A search box: `minx` in [-180, 180), `maxx = minx + width` with a width of 0 to 360, so a box
 * across the antimeridian (170,60,-170,70) is one box from 170 to 190. Latitudes within ±90.
 */
export interface QueryBox {
  minx: number
  miny: number
  maxx: number
  maxy: number
}

/**
 * Reads `minx,miny,maxx,maxy` (a string, or a list of 4 numbers or numeric strings) as
 * ckanext-spatial's normalize_bbox does; null when it is not 4 finite numbers or its south edge is
 * north of its north edge. Longitudes wrap (258 is -102; a box whose east edge is west of its west
 * edge crosses the antimeridian), latitudes past ±90 are cut there.
 */
export function parseBbox(value: unknown): QueryBox | null {
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null
  if (!parts || parts.length !== 4) return null
  const n = parts.map((p) => (typeof p === 'number' ? p : typeof p === 'string' && p.trim() !== '' ? Number(p.trim()) : NaN))
  if (!n.every(Number.isFinite)) return null
  const [x0, y0, x1, y1] = n as [number, number, number, number]
  if (y0 > y1) return null
  let width = x1 - x0
  if (width < 0) width += 360
  width = Math.min(width, 360)
  const minx = wrap(x0)
  return { minx, miny: Math.max(-90, y0), maxx: minx + width, maxy: Math.min(90, y1) }
}

/** A longitude in [-180, 180). */
const wrap = (x: number) => (x >= -180 && x < 180 ? x : ((((x + 180) % 360) + 360) % 360) - 180)

/**
 * The copies of the box, shifted by whole turns, that may meet a geometry whose longitudes lie
 * in [-360, 360] (stored geometries may run past ±180): offsets to add to minx and maxx.
 */
export const SHIFTS = [-720, -360, 0, 360] as const

/** Whether the geometry in pool[start, end) meets the closed box [x0, x1] × [y0, y1]. */
export function intersectsBox(pool: Packed, start: number, end: number, x0: number, y0: number, x1: number, y1: number): boolean {
  let i = start
  while (i < end) {
    const kind = pool[i]!
    const rings = pool[i + 1]!
    i += 2
    if (kind === POINTS) {
      const n = pool[i++]!
      for (let j = 0; j < n; j++, i += 2) {
        const x = pool[i]!
        const y = pool[i + 1]!
        if (x >= x0 && x <= x1 && y >= y0 && y <= y1) return true
      }
      continue
    }
    const first = i
    let hit = false
    for (let r = 0; r < rings; r++) {
      const n = pool[i++]!
      if (!hit) {
        for (let j = 0; j + 1 < n; j++) {
          const a = i + 2 * j
          if (segmentMeetsBox(pool[a]!, pool[a + 1]!, pool[a + 2]!, pool[a + 3]!, x0, y0, x1, y1)) {
            hit = true
            break
          }
        }
        // a line of one position (not written by readSpatial) is its point
        if (n === 1 && pool[i]! >= x0 && pool[i]! <= x1 && pool[i + 1]! >= y0 && pool[i + 1]! <= y1) hit = true
      }
      i += 2 * n
    }
    if (hit) return true
    // no edge meets the box: the box is inside the polygon (one corner tells) or outside it
    if (kind === POLYGON && insidePolygon(pool, first, rings, x0, y0)) return true
  }
  return false
}

/** Liang–Barsky: whether the segment meets the closed box (touching counts). */
function segmentMeetsBox(ax: number, ay: number, bx: number, by: number, x0: number, y0: number, x1: number, y1: number): boolean {
  // quick rejects on the segment's own box
  if (Math.max(ax, bx) < x0 || Math.min(ax, bx) > x1 || Math.max(ay, by) < y0 || Math.min(ay, by) > y1) return false
  const dx = bx - ax
  const dy = by - ay
  let t0 = 0
  let t1 = 1
  const p = [-dx, dx, -dy, dy]
  const q = [ax - x0, x1 - ax, ay - y0, y1 - ay]
  for (let k = 0; k < 4; k++) {
    const pk = p[k]!
    const qk = q[k]!
    if (pk === 0) {
      if (qk < 0) return false
    } else {
      const t = qk / pk
      if (pk < 0) {
        if (t > t1) return false
        if (t > t0) t0 = t
      } else {
        if (t < t0) return false
        if (t < t1) t1 = t
      }
    }
  }
  return t0 <= t1
}

/** Even–odd test over every ring of a polygon part (holes cut out) starting at pool[at]. */
function insidePolygon(pool: Packed, at: number, rings: number, px: number, py: number): boolean {
  let inside = false
  let i = at
  for (let r = 0; r < rings; r++) {
    const n = pool[i++]!
    for (let j = 0, k = n - 1; j < n; k = j++) {
      const xj = pool[i + 2 * j]!
      const yj = pool[i + 2 * j + 1]!
      const xk = pool[i + 2 * k]!
      const yk = pool[i + 2 * k + 1]!
      if (yj > py !== yk > py && px < ((xk - xj) * (py - yj)) / (yk - yj) + xj) inside = !inside
    }
    i += 2 * n
  }
  return inside
}

/** [minx, miny, maxx, maxy] of a packed geometry; NaNs when it has no positions. */
export function boundsOf(pool: Packed, start = 0, end = pool.length): [number, number, number, number] {
  let x0 = Infinity
  let y0 = Infinity
  let x1 = -Infinity
  let y1 = -Infinity
  forEachRing(pool, start, end, (_kind, at, n) => {
    for (let j = 0; j < n; j++) {
      const x = pool[at + 2 * j]!
      const y = pool[at + 2 * j + 1]!
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
    }
  })
  return x0 === Infinity ? [NaN, NaN, NaN, NaN] : [x0, y0, x1, y1]
}

function forEachRing(pool: Packed, start: number, end: number, fn: (kind: number, at: number, n: number, ring: number) => void) {
  let i = start
  while (i < end) {
    const kind = pool[i]!
    const rings = pool[i + 1]!
    i += 2
    for (let r = 0; r < rings; r++) {
      const n = pool[i++]!
      fn(kind, i, n, r)
      i += 2 * n
    }
  }
}

/**
 * The area (square degrees, plane) of the geometry's polygons within the box, or of all of them
 * when no box is given: outer rings count, holes are taken away. Points and lines have none.
 */
export function polygonArea(pool: Packed, start: number, end: number, box?: [number, number, number, number]): number {
  let area = 0
  forEachRing(pool, start, end, (kind, at, n, ring) => {
    if (kind !== POLYGON) return
    const a = box ? clippedArea(pool, at, n, box) : ringArea(pool, at, n)
    area += ring === 0 ? a : -a
  })
  return Math.max(0, area)
}

function ringArea(pool: Packed, at: number, n: number): number {
  let s = 0
  for (let j = 0, k = n - 1; j < n; k = j++) s += pool[at + 2 * k]! * pool[at + 2 * j + 1]! - pool[at + 2 * j]! * pool[at + 2 * k + 1]!
  return Math.abs(s) / 2
}

/** Sutherland–Hodgman against the box's four sides, then the area of what is left. */
function clippedArea(pool: Packed, at: number, n: number, [x0, y0, x1, y1]: [number, number, number, number]): number {
  let pts: number[] = []
  for (let j = 0; j < n; j++) pts.push(pool[at + 2 * j]!, pool[at + 2 * j + 1]!)
  const sides: [number, boolean, number][] = [
    [0, true, x0],
    [0, false, x1],
    [1, true, y0],
    [1, false, y1],
  ]
  for (const [axis, lower, edge] of sides) {
    const out: number[] = []
    const m = pts.length / 2
    if (!m) return 0
    const inside = (i: number) => (lower ? pts[2 * i + axis]! >= edge : pts[2 * i + axis]! <= edge)
    for (let i = 0; i < m; i++) {
      const k = (i + m - 1) % m
      const inI = inside(i)
      const inK = inside(k)
      if (inI !== inK) {
        const t = (edge - pts[2 * k + axis]!) / (pts[2 * i + axis]! - pts[2 * k + axis]!)
        out.push(pts[2 * k]! + t * (pts[2 * i]! - pts[2 * k]!), pts[2 * k + 1]! + t * (pts[2 * i + 1]! - pts[2 * k + 1]!))
      }
      if (inI) out.push(pts[2 * i]!, pts[2 * i + 1]!)
    }
    pts = out
  }
  return ringArea(Float64Array.from(pts), 0, pts.length / 2)
}
