// A streaming multipart/form-data reader over web streams (runs on Node and Workers alike).
// @remix-run/multipart-parser 0.16 yields a part only once its whole content is buffered, which
// would hold an uploaded file in memory; this reader hands out each file part as a stream instead.
import { getMultipartBoundary } from '@remix-run/multipart-parser'

/** A malformed body (HTTP 400). */
export class MultipartError extends Error {}

export interface FormPart {
  name: string
  /** Present for file parts (possibly empty when the browser sent no file). */
  filename?: string
  contentType?: string
}

export interface MultipartHandlers {
  /** A text field's value (UTF-8). */
  field(name: string, value: string): void
  /** A file part: `body` must be read to its end (or cancelled) before the next part is parsed. */
  file(part: FormPart, body: ReadableStream<Uint8Array>): Promise<void>
}

/** Limits on the text fields (file parts are the handler's to limit). */
export interface MultipartLimits {
  /** Bytes of one text field; more: `fieldTooLong()` is thrown. */
  maxFieldBytes: number
  /** Bytes of all text fields together; more: `fieldsTooLarge()` is thrown. */
  maxFieldsBytes: number
  fieldTooLong(): Error
  fieldsTooLarge(): Error
}

const MAX_HEADER_BYTES = 16 * 1024
/** Text fields are small; a larger one is refused rather than buffered. */
const MAX_FIELD_BYTES = 8 * 1024 * 1024
const enc = new TextEncoder()
const dec = new TextDecoder()

export const boundaryOf = (contentType: string) => getMultipartBoundary(contentType)

/** Where `needle` starts in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!
  for (let i = hay.indexOf(first, from); i !== -1 && i <= hay.length - needle.length; ) {
    let j = 1
    while (j < needle.length && hay[i + j] === needle[j]) j++
    if (j === needle.length) return i
    i = hay.indexOf(first, i + 1)
  }
  return -1
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

/** Parameters of a Content-Disposition header (quoted strings, RFC 5987 `name*=`). */
export function dispositionParams(value: string): Record<string, string> {
  const out: Record<string, string> = {}
  const re = /;\s*([^\s=;]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]*)/g
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const key = m[1]!.toLowerCase()
    let v = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!.trim()
    if (key.endsWith('*')) {
      const star = /^([\w-]+)'[^']*'(.*)$/.exec(v)
      try {
        if (star) v = decodeURIComponent(star[2]!)
      } catch {
        continue
      }
      out[key.slice(0, -1)] = v
    } else if (!(key in out)) out[key] = v
  }
  return out
}

/**
 * Reads `body` part by part, calling `field` for text fields and awaiting `file` for file parts.
 * @throws MultipartError on a malformed body
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  on: MultipartHandlers,
  limits?: MultipartLimits,
): Promise<void> {
  const maxField = limits?.maxFieldBytes ?? MAX_FIELD_BYTES
  const maxFields = limits?.maxFieldsBytes ?? Infinity
  let fieldsSize = 0
  const reader = body.getReader()
  // The first delimiter may open the body without the CRLF that precedes every other one.
  const delim = enc.encode(`\r\n--${boundary}`)
  let pending: Uint8Array = enc.encode('\r\n')
  let ended = false

  async function more(): Promise<boolean> {
    if (ended) return false
    const { done, value } = await reader.read()
    if (done) {
      ended = true
      return false
    }
    pending = concat(pending, value)
    return true
  }

  /** Streams the bytes before the next delimiter to `emit`, and consumes the delimiter. */
  async function untilDelimiter(emit: (bytes: Uint8Array) => void | Promise<void>) {
    for (;;) {
      const at = indexOf(pending, delim)
      if (at !== -1) {
        if (at) await emit(pending.subarray(0, at))
        pending = pending.subarray(at + delim.length)
        return
      }
      // keep a tail that could be the start of the delimiter
      const safe = pending.length - (delim.length - 1)
      if (safe > 0) {
        await emit(pending.subarray(0, safe))
        pending = pending.subarray(safe)
      }
      if (!(await more())) throw new MultipartError('the body ends inside a part')
    }
  }

  try {
    await untilDelimiter(() => {}) // the preamble
    for (;;) {
      while (pending.length < 2) if (!(await more())) throw new MultipartError('truncated body')
      if (pending[0] === 0x2d && pending[1] === 0x2d) return // "--": the closing delimiter
      let end: number
      while ((end = indexOf(pending, enc.encode('\r\n\r\n'))) === -1) {
        if (pending.length > MAX_HEADER_BYTES) throw new MultipartError('part headers too long')
        if (!(await more())) throw new MultipartError('truncated part headers')
      }
      const part = partOf(dec.decode(pending.subarray(0, end)))
      pending = pending.subarray(end + 4)
      if (part.filename === undefined) {
        const chunks: Uint8Array[] = []
        let size = 0
        await untilDelimiter((b) => {
          size += b.length
          fieldsSize += b.length
          if (size > maxField) {
            throw limits ? limits.fieldTooLong() : new MultipartError(`field ${part.name} too long`)
          }
          if (fieldsSize > maxFields) throw limits!.fieldsTooLarge()
          chunks.push(b.slice())
        })
        on.field(part.name, dec.decode(chunks.reduce(concat, new Uint8Array(0))))
        continue
      }
      let done = false
      let failed: unknown
      const stream = new ReadableStream<Uint8Array>(
        {
          // each pull enqueues something or ends the stream (a pull that does neither stalls it)
          async pull(controller) {
            try {
              for (;;) {
                const at = indexOf(pending, delim)
                if (at !== -1) {
                  if (at) controller.enqueue(pending.slice(0, at))
                  pending = pending.subarray(at + delim.length)
                  done = true
                  controller.close()
                  return
                }
                const safe = pending.length - (delim.length - 1)
                if (safe > 0) {
                  controller.enqueue(pending.slice(0, safe))
                  pending = pending.subarray(safe)
                  return
                }
                if (!(await more())) throw new MultipartError('the body ends inside a file')
              }
            } catch (e) {
              failed = e
              controller.error(e)
            }
          },
        },
        { highWaterMark: 0 },
      )
      await on.file(part, stream)
      if (failed) throw failed
      // a consumer that stopped early: skip the rest of the part
      if (!done) await untilDelimiter(() => {})
    }
  } catch (e) {
    await reader.cancel(e).catch(() => {})
    throw e
  } finally {
    reader.releaseLock()
  }
}

function partOf(headerText: string): FormPart {
  let disposition = ''
  let contentType: string | undefined
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key === 'content-disposition') disposition = value
    else if (key === 'content-type') contentType = value
  }
  if (!/^form-data\b/i.test(disposition)) throw new MultipartError('a part is not form-data')
  const params = dispositionParams(disposition)
  if (params.name === undefined) throw new MultipartError('a part has no name')
  const part: FormPart = { name: params.name }
  if (params.filename !== undefined) part.filename = params.filename
  if (contentType) part.contentType = contentType
  return part
}
