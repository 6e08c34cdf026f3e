// ckanext-spatial's spatial query API: GET /api/2/search/dataset/geo?bbox=minx,miny,maxx,maxy
// (also /package/geo) → {"count": n, "results": [dataset ids]}, every dataset whose `spatial`
// geometry meets the box. Answered by package_search with ext_bbox for the caller, so it shows
// only what that caller may read (ckanext's old PostGIS table knew no permissions).
import type { Hono } from 'hono'
import { callAction } from '../actions/call'
import type { DepsResolver } from './deps-source'
import { asciiJson } from '../lib/json'
import { BadRequest } from '../errors'
import { parseBbox } from '../lib/geo/box'
import { fail, helpUrl } from './envelope'
import { apiRequestContext } from './request-context'

const NEED_BBOX = 'Please provide a suitable bbox parameter [minx,miny,maxx,maxy]'

/** The SRID of a `crs` parameter as ckanext-spatial reads it: urn:ogc:def:crs:EPSG::4326, EPSG:4326, 4326. */
const srid = (crs: string) => crs.split(':').pop()?.trim() ?? ''

export function mountGeoRoute(app: Hono, source: DepsResolver) {
  const handler = async (req: Request) => {
    const help = helpUrl(source.config(req).str('service.site_url'), 'package_search')
    try {
      const args = new URL(req.url).searchParams
      const bbox = args.get('bbox')
      if (!bbox || !parseBbox(bbox)) throw new BadRequest(NEED_BBOX)
      const crs = args.get('crs')
      // the boxes are searched as given: only WGS 84 longitudes and latitudes
      if (crs !== null && srid(crs) !== '4326') throw new BadRequest(`Only EPSG:4326 is supported, not ${crs}`)
      const ctx = await apiRequestContext(await source.of(req), req.headers)
      const ids: string[] = []
      let cursor = '*'
      for (;;) {
        const r = await callAction<{ count: number; results: { id: string }[]; next_cursor?: string }>(ctx, 'package_search', {
          ext_bbox: bbox,
          fl: 'id',
          facet: 'false',
          include_private: true,
          rows: ctx.config.int('service.search.rows_max'),
          cursor,
        })
        for (const d of r.results) ids.push(d.id)
        if (!r.next_cursor) break
        cursor = r.next_cursor
      }
      return new Response(asciiJson({ count: ids.length, results: ids }), {
        headers: { 'content-type': 'application/json;charset=utf-8' },
      })
    } catch (err) {
      return fail(help, err)
    }
  }
  for (const register of ['dataset', 'package']) {
    const path = `/api/2/search/${register}/geo`
    app.get(path, (c) => handler(c.req.raw))
    app.on(['POST', 'PUT', 'DELETE', 'PATCH'], path, (c) => c.text('Method Not Allowed', 405))
  }
}
