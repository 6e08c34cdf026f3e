// Bytes as lower-case hex (digests, random tokens), and the MD5 hex digest of a text, from
// @noble/hashes (WebCrypto has no MD5; this must also run on Workers).
import { md5 } from '@noble/hashes/legacy.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return bytesToHex(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
}

/** The MD5 digest of `input` (UTF-8 encoded) as 32 lowercase hex characters (user email_hash). */
export const md5Hex = (input: string): string => bytesToHex(md5(utf8ToBytes(input)))
