// GET|HEAD /dataset/:id/resource/:resource_id/download[/:filename]: an uploaded resource's file
// (ranges, ETag), or a redirect to a linked one. Read rights as resource_show; anything the caller
// may not read answers 404, as an unknown resource does, so a private file's existence never leaks.
import type { Hono } from 'hono'
import type { DepsResolver } from './deps-source'
import { requestContext } from './action-route'
import { canReadPackage } from '../auth/package'
import { NotFound, ValidationError } from '../errors'
import { loadPackage } from '../model/package'
import { resourceToDict } from '../model/resource'
import { storedFileKey } from '../model/resource-file'
import { loadResource } from '../model/resource-write'
import { RangeNotSatisfiable, type ByteRange } from '../storage/blob-store'

const notFound = () =>
  new Response('404 Not Found: Resource not found', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  })

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

/** If-None-Match lists `etag` (or is `*`). */
const matches = (header: string | null, etag: string) =>
  !!header &&
  header.split(',').some((t) => {
    const v = t.trim()
    return v === '*' || v.replace(/^W\//, '') === etag
  })

export function mountDownloadRoute(app: Hono, source: DepsResolver) {
  const handler = async (req: Request, id: string, resourceId: string): Promise<Response> => {
    const deps = await source.of(req)
    const ctx = await requestContext(deps, req.headers)
    let res, pkg
    try {
      res = await loadResource(ctx, resourceId)
      pkg = await loadPackage(ctx, id)
    } catch (e) {
      if (e instanceof NotFound || e instanceof ValidationError) return notFound()
      throw e
    }
    if (res.state !== 'active' || res.package_id !== pkg.id || !(await canReadPackage(ctx, pkg)))
      return notFound()
    const key = storedFileKey(res)
    if (!key) {
      // ckan: a linked resource's download is a redirect to its URL
      const url = resourceToDict(res, ctx.config.str('service.site_url')).url as string
      return url ? Response.redirect(url, 302) : notFound()
    }
    const head = req.method === 'HEAD'
    const info = await ctx.blobs.head(key)
    if (!info) return notFound()
    const headers = new Headers({
      'content-type': res.mimetype || info.contentType || 'application/octet-stream',
      'content-disposition': `attachment; filename="${res.url}"`,
      'accept-ranges': 'bytes',
    })
    const etag = info.sha256 ? `"${info.sha256}"` : undefined
    if (etag) {
      headers.set('etag', etag)
      if (matches(req.headers.get('if-none-match'), etag))
        return new Response(null, { status: 304, headers })
    }
    const range = parseRange(req.headers.get('range'))
    try {
      if (head && !range) {
        headers.set('content-length', String(info.size))
        return new Response(null, { status: 200, headers })
      }
      const blob = await ctx.blobs.get(key, range)
      if (!blob) return notFound()
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
  for (const path of [
    '/dataset/:id/resource/:resource_id/download',
    '/dataset/:id/resource/:resource_id/download/:filename',
  ])
    app.on(['GET', 'HEAD'], path, (c) =>
      handler(c.req.raw, c.req.param('id')!, c.req.param('resource_id')!),
    )
}
