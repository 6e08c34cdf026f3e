// Salted slow password hashes with WebCrypto PBKDF2 (runs on Node and Workers alike).
import { toHex } from './hex'

const enc = new TextEncoder()

const fromHex = (hex: string): Uint8Array<ArrayBuffer> => new Uint8Array((hex.match(/../g) ?? []).map((h) => parseInt(h, 16)))

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', enc.encode(password), 'PBKDF2', false, [
    'deriveBits',
  ])
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    256,
  )
  return toHex(bits)
}

/** `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>` */
export async function hashPassword(password: string, iterations: number): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  return `pbkdf2-sha256$${iterations}$${toHex(salt)}$${await derive(password, salt, iterations)}`
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, salt, hash] = stored.split('$')
  if (scheme !== 'pbkdf2-sha256' || !iter || !salt || !hash) return false
  const got = await derive(password, fromHex(salt), Number(iter))
  // constant-time comparison
  let diff = got.length ^ hash.length
  for (let i = 0; i < Math.min(got.length, hash.length); i++)
    diff |= got.charCodeAt(i) ^ hash.charCodeAt(i)
  return diff === 0
}
