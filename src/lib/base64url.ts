// URL-safe base64 without padding (RFC 4648 §5), for opaque cursors and random tokens.

export function toBase64Url(data: Uint8Array | string): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
  let bin = ''
  for (const b of bytes) bin += String.fromCharCode(b)
  return btoa(bin).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

/** The UTF-8 text of URL-safe base64; throws on input that is not base64. */
export function fromBase64Url(s: string): string {
  const bin = atob(s.replaceAll('-', '+').replaceAll('_', '/'))
  return new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)))
}
