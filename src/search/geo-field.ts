// The datasets' `spatial` geometries: a box per document in a typed array (the prefilter) and the
// packed geometry in one shared pool (the exact test), both kept in the index snapshot.
import type { Bits } from './bits'
import { boundsOf, intersectsBox, polygonArea, SHIFTS, type QueryBox } from '../lib/geo/box'
import type { Packed } from '../lib/geo/geojson'

export interface GeoDump {
  /** minx, miny, maxx, maxy per document number (NaN: no geometry). */
  bounds: Float64Array
  /** Where each document's geometry starts in `pool`, and its length. */
  start: Uint32Array
  length: Uint32Array
  pool: Float64Array
}

export class GeoField {
  private bounds = new Float64Array(0)
  private start = new Uint32Array(0)
  private length = new Uint32Array(0)
  private pool = new Float64Array(1024)
  private used = 0
  /** Pool entries no document points at any more (replaced or removed geometries). */
  private garbage = 0
  private count = 0

  /** Documents with a geometry. */
  get size() {
    return this.count
  }

  /** Bytes held (typed arrays only). */
  get bytes() {
    return this.bounds.byteLength + this.start.byteLength + this.length.byteLength + this.pool.byteLength
  }

  set(n: number, packed: Packed | undefined) {
    this.remove(n)
    if (!packed || !packed.length) return
    const b = boundsOf(packed)
    if (Number.isNaN(b[0])) return
    this.grow(n + 1)
    if (this.used + packed.length > this.pool.length) {
      if (this.garbage > this.used / 2) this.repack()
      if (this.used + packed.length > this.pool.length) {
        const bigger = new Float64Array(Math.max(this.pool.length * 2, this.used + packed.length))
        bigger.set(this.pool.subarray(0, this.used))
        this.pool = bigger
      }
    }
    this.pool.set(packed, this.used)
    this.start[n] = this.used
    this.length[n] = packed.length
    this.used += packed.length
    this.bounds.set(b, 4 * n)
    this.count++
  }

  remove(n: number) {
    if (n >= this.length.length || this.length[n] === 0) return
    this.garbage += this.length[n]!
    this.length[n] = 0
    this.bounds.fill(NaN, 4 * n, 4 * n + 4)
    this.count--
  }

  private grow(cap: number) {
    if (cap <= this.length.length) return
    const size = Math.max(1024, cap, this.length.length * 2)
    const bounds = new Float64Array(4 * size).fill(NaN)
    bounds.set(this.bounds)
    const start = new Uint32Array(size)
    start.set(this.start)
    const length = new Uint32Array(size)
    length.set(this.length)
    this.bounds = bounds
    this.start = start
    this.length = length
  }

  /** Moves every live geometry to the front of the pool. */
  private repack() {
    const pool = new Float64Array(Math.max(1024, this.used - this.garbage))
    let at = 0
    for (let n = 0; n < this.length.length; n++) {
      const len = this.length[n]!
      if (!len) continue
      pool.set(this.pool.subarray(this.start[n]!, this.start[n]! + len), at)
      this.start[n] = at
      at += len
    }
    this.pool = pool
    this.used = at
    this.garbage = 0
  }

  /** Whether document n's geometry meets the box (exactly: the box's copies a turn apart too). */
  intersects(n: number, box: QueryBox): boolean {
    const g = 4 * n
    const gx0 = this.bounds[g]!
    const gy0 = this.bounds[g + 1]!
    const gx1 = this.bounds[g + 2]!
    const gy1 = this.bounds[g + 3]!
    // NaN (no geometry) fails every comparison
    if (!(gy0 <= box.maxy && gy1 >= box.miny)) return false
    for (const k of SHIFTS) {
      const x0 = box.minx + k
      const x1 = box.maxx + k
      if (!(gx0 <= x1 && gx1 >= x0)) continue
      // the geometry's own box inside the search box: it meets it
      if (gx0 >= x0 && gx1 <= x1 && gy0 >= box.miny && gy1 <= box.maxy) return true
      const s = this.start[n]!
      if (intersectsBox(this.pool, s, s + this.length[n]!, x0, box.miny, x1, box.maxy)) return true
    }
    return false
  }

  /** Clears, in `bits`, every document whose geometry does not meet the box. */
  filter(bits: Bits, box: QueryBox) {
    for (let i = 0; i < bits.length; i++) {
      let w = bits[i]!
      let keep = w
      while (w !== 0) {
        const t = w & -w
        const n = (i << 5) + (31 - Math.clz32(t))
        if (!this.intersects(n, box)) keep &= ~t
        w ^= t
      }
      bits[i] = keep
    }
  }

  /**
   * How well document n's geometry fits the box, from 0 to 1: twice the area they share over the
   * sum of their areas (ckanext-spatial's overlap ratio, here over the geometry itself rather than
   * its envelope). Points and lines have no area: 0.
   */
  overlap(n: number, box: QueryBox): number {
    const len = this.length[n] ?? 0
    if (!len) return 0
    const s = this.start[n]!
    const own = polygonArea(this.pool, s, s + len)
    let shared = 0
    for (const k of SHIFTS) {
      const x0 = box.minx + k
      const x1 = box.maxx + k
      if (this.bounds[4 * n]! > x1 || this.bounds[4 * n + 2]! < x0) continue
      shared += polygonArea(this.pool, s, s + len, [x0, box.miny, x1, box.maxy])
    }
    const q = (box.maxx - box.minx) * (box.maxy - box.miny)
    return q + own > 0 ? Math.min(1, (2 * shared) / (q + own)) : 0
  }

  dump(capacity: number): GeoDump {
    this.repack()
    const cap = Math.min(capacity, this.length.length)
    return {
      bounds: this.bounds.slice(0, 4 * cap),
      start: this.start.slice(0, cap),
      length: this.length.slice(0, cap),
      pool: this.pool.slice(0, this.used),
    }
  }

  static load(d: GeoDump): GeoField {
    const f = new GeoField()
    f.grow(d.length.length)
    f.bounds.set(d.bounds)
    f.start.set(d.start)
    f.length.set(d.length)
    f.pool = new Float64Array(Math.max(1024, d.pool.length))
    f.pool.set(d.pool)
    f.used = d.pool.length
    for (let n = 0; n < d.length.length; n++) if (d.length[n]) f.count++
    return f
  }
}
