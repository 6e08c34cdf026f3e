// What one request body may hold: size, nesting, keys per object/array/form, string length.
// Checked while the bytes stream in (size) and by a linear scan of JSON text before JSON.parse
// builds anything (nesting, keys, strings), so no input can overflow the stack or the memory.
import type { Config } from '../config/load'
import { RequestTooLarge, ValidationError } from '../errors'

export interface BodyLimits {
  maxBytes: number
  maxDepth: number
  maxKeys: number
  maxString: number
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
    maxKeys: positive('service.max_request_keys', 10000),
    maxString: positive('service.max_request_string_length', 10 * MB),
  }
}

export const tooDeep = (l: BodyLimits) =>
  ValidationError.message(
    `The request data is nested deeper than ${l.maxDepth} levels (service.max_request_depth)`,
  )
export const tooManyKeys = (l: BodyLimits) =>
  ValidationError.message(
    `The request data has more than ${l.maxKeys} keys or items in one object, list or form (service.max_request_keys)`,
  )
export const tooLong = (l: BodyLimits) =>
  ValidationError.message(
    `The request data has a value longer than ${l.maxString} characters (service.max_request_string_length)`,
  )

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
        throw new RequestTooLarge(Math.round((maxBytes / MB) * 100) / 100)
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

/** A Content-Length over the limit is refused before a byte is read. */
export function checkDeclaredLength(headers: Headers, maxBytes: number) {
  const len = Number(headers.get('content-length') ?? '0')
  if (len > maxBytes) throw new RequestTooLarge(Math.round((maxBytes / MB) * 100) / 100)
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const COMMA = 0x2c

/**
 * One pass over JSON text, without recursion: refuses nesting deeper than `maxDepth`, more than
 * `maxKeys` members in one object or array, and strings longer than `maxString` code units.
 * Malformed text is left to JSON.parse (the scan only needs to be right for well-formed text).
 */
export function checkJsonShape(text: string, l: BodyLimits) {
  const counts = new Array<number>(Math.min(l.maxDepth, 1024) + 1).fill(0)
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const start = i
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
      if (i - start - 1 > l.maxString) throw tooLong(l)
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > l.maxDepth) throw tooDeep(l)
      counts[depth] = 1
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--
    } else if (c === COMMA && depth > 0) {
      if (++counts[depth]! > l.maxKeys) throw tooManyKeys(l)
    }
  }
}

/** Form fields and query strings: how many, and how long each value. */
export function checkPairs(pairs: readonly [string, string][], l: BodyLimits) {
  if (pairs.length > l.maxKeys) throw tooManyKeys(l)
  for (const [k, v] of pairs) if (k.length > l.maxString || v.length > l.maxString) throw tooLong(l)
}
