// The media type of a file judged from its first bytes, as CKAN's uploader asks libmagic
// (python-magic) for it: the name and the client's Content-Type are never trusted.

/** How many leading bytes sniffType looks at (CKAN reads 2 KB). */
export const SNIFF_BYTES = 2048

const startsWith = (b: Uint8Array, sig: number[], at = 0) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x)

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

/** Binary signatures, checked in order. */
const MAGIC: [number[], string, number?][] = [
  [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
  [[0xff, 0xd8, 0xff], 'image/jpeg'],
  [ascii('GIF87a'), 'image/gif'],
  [ascii('GIF89a'), 'image/gif'],
  [ascii('BM'), 'image/bmp'],
  [[0x49, 0x49, 0x2a, 0x00], 'image/tiff'],
  [[0x4d, 0x4d, 0x00, 0x2a], 'image/tiff'],
  [[0x00, 0x00, 0x01, 0x00], 'image/vnd.microsoft.icon'],
  [ascii('%PDF-'), 'application/pdf'],
  [[0x50, 0x4b, 0x03, 0x04], 'application/zip'],
  [[0x1f, 0x8b], 'application/gzip'],
]

/**
 * The media type of a file whose first bytes (up to SNIFF_BYTES) are `head`: images by their
 * signature, text as text/html, image/svg+xml, text/xml or text/plain, an empty file as
 * application/x-empty, anything else application/octet-stream (libmagic's names).
 */
export function sniffType(head: Uint8Array): string {
  if (head.length === 0) return 'application/x-empty'
  for (const [sig, type] of MAGIC) if (startsWith(head, sig)) return type
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'image/webp'
  if (startsWith(head, ascii('ftyp'), 4)) {
    const brand = String.fromCharCode(...head.subarray(8, 12))
    if (brand === 'avif' || brand === 'avis') return 'image/avif'
    if (/^(heic|heix|mif1)$/.test(brand)) return 'image/heic'
  }
  if (head.includes(0)) return 'application/octet-stream'
  let text: string
  try {
    // a multi-byte character cut at the end of the sample is still text
    text = new TextDecoder('utf-8', { fatal: true }).decode(trimPartial(head))
  } catch {
    return 'application/octet-stream'
  }
  const start = text.replace(/^\uFEFF/, '').trimStart().slice(0, 1024).toLowerCase()
  if (/^<(svg|\?xml|!)/.test(start) && /<svg[\s>]/.test(start)) return 'image/svg+xml'
  if (/^<!doctype html|^<(html|head|body|title|script|iframe|div|table|style|meta)\b/.test(start))
    return 'text/html'
  if (/<(html|script|body)[\s>]/.test(start)) return 'text/html'
  if (start.startsWith('<?xml')) return 'text/xml'
  return 'text/plain'
}

/** `b` without a trailing incomplete UTF-8 sequence. */
function trimPartial(b: Uint8Array): Uint8Array {
  let i = b.length - 1
  let back = 0
  while (i >= 0 && back < 3 && (b[i]! & 0xc0) === 0x80) {
    i--
    back++
  }
  if (i < 0) return b
  const lead = b[i]!
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return need > back + 1 ? b.subarray(0, i) : b
}
