// Long text stored deflated: activity rows hold whole dataset dicts (40 % of a catalogue's bytes).
// A row written as text before stays readable: a string is returned as it is.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate'

/** Shorter text is stored as it is (deflate's gain would not pay for its cost). */
const MIN_CHARS = 512

/** Raw DEFLATE (RFC 1951) both ways; fflate everywhere, a native codec where the runtime has one. */
export interface DeflateCodec {
  deflate(bytes: Uint8Array): Uint8Array
  inflate(bytes: Uint8Array): Uint8Array
}

let codec: DeflateCodec = {
  deflate: (bytes) => deflateSync(bytes, { level: 6 }),
  inflate: (bytes) => inflateSync(bytes),
}

/**
 * Replaces the codec (the Node adapter injects node:zlib's, about twice as fast on a dataset dict
 * as fflate's JavaScript). Any codec reads what any other wrote: both are raw DEFLATE.
 */
export function useDeflateCodec(c: DeflateCodec) {
  codec = c
}

/** The stored form of `s`: raw DEFLATE bytes when long enough and smaller, else the text. */
export function packText(s: string): string | Uint8Array {
  if (s.length < MIN_CHARS) return s
  const utf8 = strToU8(s)
  const packed = codec.deflate(utf8)
  return packed.length < utf8.length ? packed : s
}

/** The text of a stored value (text, or DEFLATE bytes as a Uint8Array or ArrayBuffer); null otherwise. */
export function unpackText(v: unknown): string | null {
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return strFromU8(codec.inflate(v))
  if (v instanceof ArrayBuffer) return strFromU8(codec.inflate(new Uint8Array(v)))
  return null
}
