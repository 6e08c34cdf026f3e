// Fixed-size bitsets over document numbers: how the engine combines filters without per-hit callbacks.

export type Bits = Uint32Array

export const newBits = (size: number): Bits => new Uint32Array((size + 31) >>> 5)

export function setBit(b: Bits, n: number) {
  b[n >>> 5]! |= 1 << (n & 31)
}

export function fromDocs(size: number, docs: Iterable<number>): Bits {
  const b = newBits(size)
  for (const n of docs) b[n >>> 5]! |= 1 << (n & 31)
  return b
}

/** a &= b (in place); bits beyond b's end are cleared (b was made before the index grew). */
export function andInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i]! &= b[i]!
  return a
}

/** a |= b (in place). */
export function orInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i]! |= b[i]!
  return a
}

/** a &= ~b (in place). */
export function andNotInto(a: Bits, b: Bits): Bits {
  for (let i = 0; i < a.length; i++) a[i]! &= ~b[i]!
  return a
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

export function count(b: Bits): number {
  let c = 0
  for (let i = 0; i < b.length; i++) if (b[i]) c += popcount32(b[i]!)
  return c
}

/** The number of bits set in both. */
export function countAnd(a: Bits, b: Bits): number {
  let c = 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const w = a[i]! & b[i]!
    if (w) c += popcount32(w)
  }
  return c
}

/** Calls fn for every set bit, in ascending order. */
export function forEachBit(b: Bits, fn: (n: number) => void) {
  for (let i = 0; i < b.length; i++) {
    let w = b[i]!
    while (w !== 0) {
      const t = w & -w
      fn((i << 5) + (31 - Math.clz32(t)))
      w ^= t
    }
  }
}
