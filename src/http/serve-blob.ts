// Streams a stored blob as an HTTP response: Content-Length, a strong ETag (its SHA-256, else the store's own) with
// If-None-Match → 304, single byte ranges (206, 416) and HEAD. Shared by the download routes.
import type { BlobInfo, BlobStore, ByteRange } from '../storage/blob-store'
import { RangeNotSatisfiable } from '../storage/blob-store'
import { ifNoneMatch } from './http-cache'

/** One `bytes=` range; undefined for none, several or a malformed one (served whole, as RFC 9110 allows). */
export function parseRange(header: string | null): ByteRange | undefined {
  const m = header && /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  if (m[1] === '') return { suffix: Number(m[2]) }
  const offset = Number(m[1])
  if (m[2] === '') return { offset }
  const last = Number(m[2])
  if (last < offset) return undefined
  return { offset, length: last - offset + 1 }
}


/**
 * The blob `key` as a response to `req` (GET or HEAD), or undefined when there is no such blob.
 * `headers` come first (Content-Disposition, security headers); a missing Content-Type is taken
 * from the stored one. `known` is the blob's head() when the caller already has it.
 */
export async function serveBlob(
  req: Request,
  blobs: BlobStore,
  key: string,
  init: Record<string, string>,
  known?: BlobInfo,
): Promise<Response | undefined> {
  const head = req.method === 'HEAD'
  const info = known ?? (await blobs.head(key))
  if (!info) return undefined
  const headers = new Headers(init)
  if (!headers.get('content-type'))
    headers.set('content-type', info.contentType || 'application/octet-stream')
  headers.set('accept-ranges', 'bytes')
  const tag = info.sha256 ?? info.etag
  const etag = tag ? `"${tag.replace(/"/g, '')}"` : undefined
  if (etag) {
    headers.set('etag', etag)
    if (ifNoneMatch(req.headers.get('if-none-match'), etag))
      return new Response(null, { status: 304, headers })
  }
  const range = parseRange(req.headers.get('range'))
  try {
    if (head && !range) {
      headers.set('content-length', String(info.size))
      return new Response(null, { status: 200, headers })
    }
    const blob = await blobs.get(key, range)
    if (!blob) return undefined
    headers.set('content-length', String(blob.range.length))
    let status = 200
    if (range) {
      status = 206
      const { offset, length } = blob.range
      headers.set('content-range', `bytes ${offset}-${offset + length - 1}/${blob.size}`)
    }
    if (head) {
      await blob.body.cancel()
      return new Response(null, { status, headers })
    }
    return new Response(blob.body, { status, headers })
  } catch (e) {
    if (!(e instanceof RangeNotSatisfiable)) throw e
    headers.set('content-range', `bytes */${e.size}`)
    headers.delete('content-type')
    return new Response(null, { status: 416, headers })
  }
}
