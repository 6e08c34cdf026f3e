// GET|HEAD /uploads/user/:name and /uploads/group/:name: uploaded user, group and organization
// images. ckan: these are static files, public to anyone whatever the owner's state or privacy.
import type { Hono } from 'hono'
import type { DepsResolver } from './deps-source'
import { imageKey, type ImageOwner } from '../model/image-upload'
import { assertBlobKey, InvalidBlobKey } from '../storage/blob-store'
import { serveBlob } from './serve-blob'

/** Types a browser shows as pictures and never runs: served inline; anything else is a download. */
const RASTER = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/avif',
  'image/tiff',
  'image/vnd.microsoft.icon',
])

const notFound = () =>
  new Response('404 Not Found', {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  })

export function mountImageRoute(app: Hono, source: DepsResolver) {
  for (const owner of ['user', 'group'] as ImageOwner[])
    app.on(['GET', 'HEAD'], `/uploads/${owner}/:name`, async (c) => {
      let key: string
      try {
        key = assertBlobKey(imageKey(owner, c.req.param('name')))
      } catch (e) {
        if (e instanceof InvalidBlobKey) return notFound()
        throw e
      }
      const deps = await source.of(c.req.raw)
      const info = await deps.blobs.head(key)
      if (!info) return notFound()
      const type = info.contentType || 'application/octet-stream'
      // An SVG (or any other type a site allows) opened directly could run script on the site's
      // origin: it is served as a download, and every image under a sandboxing CSP (an <img> of
      // it still shows).
      const served = await serveBlob(
        c.req.raw,
        deps.blobs,
        key,
        {
          'content-type': type,
          'content-disposition': RASTER.has(type) ? 'inline' : 'attachment',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
          'x-content-type-options': 'nosniff',
        },
        info,
      )
      return served ?? notFound()
    })
}
