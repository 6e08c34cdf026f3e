// A short, stable, non-cryptographic hash (two FNV-1a lanes, 64 bits as hex): names a credential
// or an address in counters without keeping it.

export function shortHash(s: string, salt = ''): string {
  let a = 0x811c9dc5
  let b = 0x050c5d1f
  const text = salt + s
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15)
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}
