// What one request body may hold: size, nesting, keys per object/array/form, string length.
// Checked while the bytes stream in (size) and by a linear scan of JSON text before JSON.parse
// builds anything (nesting, keys, strings), so no input can overflow the stack or the memory.
import type { Config } from '../config/load'
import { RequestTooLarge, ValidationError } from '../errors'
import {
  checkJsonShape as scanJson,
  JsonLimitError,
  type JsonLimits,
  tooLongText,
  tooManyKeysText,
} from '../lib/bounded-json'

export interface BodyLimits extends JsonLimits {
  maxBytes: number
}

const MB = 1024 * 1024

export function bodyLimits(config: Config): BodyLimits {
  const positive = (key: string, fallback: number) => {
    const v = config.int(key)
    return Number.isFinite(v) && v > 0 ? v : fallback
  }
  return {
    maxBytes: positive('service.max_request_body_mb', 10) * MB,
    maxDepth: positive('service.max_request_depth', 64),
    maxKeys: positive('service.max_request_keys', 100000),
    maxString: positive('service.max_request_string_length', 10 * MB),
  }
}

export const tooManyKeys = (l: BodyLimits) => ValidationError.message(tooManyKeysText(l))
export const tooLong = (l: BodyLimits) => ValidationError.message(tooLongText(l))
/** 413 naming the limit in MB. */
export const tooLarge = (maxBytes: number) =>
  new RequestTooLarge(Math.round((maxBytes / MB) * 100) / 100)

/**
 * Reads `body` to its end, refusing (413) and cancelling it as soon as more than `maxBytes`
 * arrived: never more than the limit is held.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel().catch(() => {})
        throw tooLarge(maxBytes)
      }
      chunks.push(value)
    }
  } finally {
    reader.releaseLock()
  }
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/**
 * Reads `body` to its end keeping nothing; more than `maxBytes`: 413 (naming `limitBytes`, the
 * configured limit). Returns the byte count.
 */
export async function drainCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  limitBytes = maxBytes,
): Promise<number> {
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return size
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel().catch(() => {})
        throw tooLarge(limitBytes)
      }
    }
  } finally {
    reader.releaseLock()
  }
}

/** A Content-Length over the limit is refused before a byte is read. */
export function checkDeclaredLength(headers: Headers, maxBytes: number) {
  const len = Number(headers.get('content-length') ?? '0')
  if (len > maxBytes) throw tooLarge(maxBytes)
}

/**
 * The body length a request declares (Content-Length as digits, no Transfer-Encoding beside it),
 * else undefined: the body's end is then known only by reading it.
 */
export function declaredLength(headers: Headers): number | undefined {
  const v = headers.get('content-length')
  if (v === null || !/^\s*\d{1,15}\s*$/.test(v) || headers.has('transfer-encoding')) return undefined
  return Number(v)
}

/** `checkJsonShape` of lib/bounded-json.ts, refusing with a Validation Error. */
export function checkJsonShape(text: string, l: BodyLimits) {
  try {
    scanJson(text, l)
  } catch (e) {
    if (e instanceof JsonLimitError) throw ValidationError.message(e.message)
    throw e
  }
}

/** Form fields and query strings: how many, and how long each value. */
export function checkPairs(pairs: readonly [string, string][], l: BodyLimits) {
  if (pairs.length > l.maxKeys) throw tooManyKeys(l)
  for (const [k, v] of pairs) if (k.length > l.maxString || v.length > l.maxString) throw tooLong(l)
}
