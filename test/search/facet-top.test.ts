// The facet counts' top-`limit` selection (histogram threshold) against a full sort (property).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { topValueIds } from '../../src/search/rank'

/** The facet order: count descending, ties by value ascending (here the id stands for it). */
const order = (counts: Int32Array) => (a: number, b: number) => counts[b]! - counts[a]! || a - b

function naive(counts: Int32Array, limit: number, mincount: number): number[] {
  const ids = [...counts.keys()].filter((id) => counts[id]! > 0 && counts[id]! >= mincount)
  ids.sort(order(counts))
  return limit < 0 ? ids : ids.slice(0, limit)
}

describe('topValueIds', () => {
  it('keeps every id of the top `limit` counts, ties included, and nothing below them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 12 }), { maxLength: 60 }),
        fc.integer({ min: -1, max: 20 }),
        fc.integer({ min: 0, max: 4 }),
        (raw, limit, mincount) => {
          const counts = Int32Array.from(raw)
          const kept = topValueIds(counts, { limit, mincount }).sort(order(counts))
          const expected = naive(counts, limit, mincount)
          expect(limit < 0 ? kept : kept.slice(0, limit)).toEqual(expected)
          // nothing kept that a full sort would put after the limit's last count
          const last = expected.at(-1)
          if (last !== undefined && limit >= 0) for (const id of kept) expect(counts[id]).toBeGreaterThanOrEqual(counts[last]!)
        },
      ),
      { numRuns: 2000, seed: 5 },
    )
  })

  it('selects without sorting all values (2,000 values, limit 50)', () => {
    const counts = Int32Array.from({ length: 2000 }, (_, i) => (i * 7919) % 1000)
    const kept = topValueIds(counts, { limit: 50, mincount: 1 })
    expect(kept.length).toBeGreaterThanOrEqual(50)
    expect(kept.length).toBeLessThan(60)
  })
})
