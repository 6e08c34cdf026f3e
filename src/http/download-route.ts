// GET|HEAD /dataset/:id/resource/:resource_id/download[/:filename]: an uploaded resource's file
// (ranges, ETag), or a redirect to a linked one. Read rights as resource_show; anything the caller
// may not read answers 404, as an unknown resource does, so a private file's existence never leaks.
import type { Hono } from 'hono'
import type { DepsResolver } from './deps-source'
import { requestContext } from './request-context'
import { canReadPackage } from '../auth/package'
import { NotFound, ValidationError } from '../errors'
import { loadPackage } from '../model/package'
import { resourceToDict } from '../model/resource'
import { storedFileKey } from '../model/resource-file'
import { loadResource } from '../model/resource-write'
import { serveBlob } from './serve-blob'
import { checkRouteLimit, withLimitHeaders } from './rate-limit'
import { clientAddress, type AddressSource } from './client-address'
import { countUse } from './usage'

const notFound = () =>
  new Response('404 Not Found: Resource not found', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  })

/** What a download served, once the caller may read it (for the usage figures). */
type Used = { target?: { id: string; packageId: string; resource: true } }

export function mountDownloadRoute(app: Hono, source: DepsResolver) {
  const handler = async (c: AddressSource, id: string, resourceId: string): Promise<Response> => {
    const req = c.req.raw
    const deps = await source.of(req)
    const ctx = await requestContext(deps, req.headers)
    const { refusal, verdict } = await checkRouteLimit(deps, c, ctx.user)
    if (refusal) return refusal
    const used: Used = {}
    const res = await answer(req, ctx, id, resourceId, used)
    // a download (usage figures): a file served, or a redirect to a linked one; not a HEAD or a 304
    if (used.target && req.method === 'GET' && (res.status === 200 || res.status === 206 || res.status === 302))
      countUse(deps, req.headers, clientAddress(c, deps.config), 'download', used.target)
    return withLimitHeaders(res, verdict)
  }
  const answer = async (req: Request, ctx: Awaited<ReturnType<typeof requestContext>>, id: string, resourceId: string, used: Used): Promise<Response> => {
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
    used.target = { id: res.id, packageId: pkg.id, resource: true }
    const key = storedFileKey(res)
    if (!key) {
      // ckan: a linked resource's download is a redirect to its URL
      const url = resourceToDict(res, ctx.config.str('service.site_url')).url as string
      return url ? Response.redirect(url, 302) : notFound()
    }
    const served = await serveBlob(req, ctx.blobs, key, {
      'content-type': res.mimetype || '',
      'content-disposition': `attachment; filename="${res.url}"`,
    })
    return served ?? notFound()
  }
  for (const path of [
    '/dataset/:id/resource/:resource_id/download',
    '/dataset/:id/resource/:resource_id/download/:filename',
  ])
    app.on(['GET', 'HEAD'], path, (c) =>
      handler(c, c.req.param('id')!, c.req.param('resource_id')!),
    )
}
