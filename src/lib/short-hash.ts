// A short, stable, non-cryptographic hash (two FNV-1a lanes, 64 bits): names a credential or an
// address in counters without keeping it, and probes the usage figures' visitor filter.

/** The two 32-bit lanes of `s` (unsigned). */
export function hashLanes(s: string): [number, number] {
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15)
  }
  return [a >>> 0, b >>> 0]
}

/** The lanes of `salt + s` as 16 hex digits. */
export function shortHash(s: string, salt = ''): string {
  const [a, b] = hashLanes(salt + s)
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0')
}
