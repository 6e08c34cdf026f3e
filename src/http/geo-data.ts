// What the map views (geojson_view, wms_view, wmts_view) show, read on the server as the caller:
// a resource's GeoJSON (its uploaded file, its linked file through the SSRF guard, or its DataStore
// table's lat/lon or geometry columns through datastore_search, hence that action's authorization),
// and a WMS/WMTS service's layers from its GetCapabilities (through the same guard, with time and
// size limits). Every failure is a message for the page, never an exception; the route
// GET /dataset/:id/resource/:resource_id/geojson serves the GeoJSON.
import type { Hono } from 'hono'
import type { ActionContext, Deps } from '../context'
import { callAction } from '../actions/call'
import { NotAuthorized, NotFound } from '../errors'
import { harvestFetcher } from '../jobs/harvest/fetch'
import { HarvestError } from '../jobs/harvest/types'
import { storedFileKey } from '../model/resource-file'
import { loadResource } from '../model/resource-write'
import { GEOJSON_FORMATS } from '../model/view-types'
import { isGeoJson } from '../lib/geojson-svg'
import { wktToGeoJson } from '../lib/wkt'
import { CapabilitiesError, capabilitiesUrl, parseCapabilities, type OgcCapabilities, type OgcService } from '../lib/ogc-capabilities'
import type { DepsResolver } from './deps-source'
import { requestContext } from './request-context'

type Dict = Record<string, any>

export type GeoJsonResult =
  | { ok: true; doc: Dict; rows?: { shown: number; total: number; skipped: number } }
  | { ok: false; error: string; status: number }

const fail = (error: string, status = 422): GeoJsonResult => ({ ok: false, error, status })

const LAT = /^(lat|latitude|y|lat_dd|decimallatitude|breitengrad)$/i
const LON = /^(lon|lng|long|longitude|x|lon_dd|decimallongitude|laengengrad)$/i
const GEOM = /^(geom|geometry|the_geom|wkb_geometry|wkt|geojson|shape|location)$/i

/** The DataStore columns a geojson_view reads, or undefined when the table has none. */
export function positionColumns(fields: { id: string }[]): { lat: string; lon: string } | { geom: string } | undefined {
  const ids = fields.map((f) => f.id).filter((id) => id !== '_id')
  const geom = ids.find((id) => GEOM.test(id))
  if (geom) return { geom }
  const lat = ids.find((id) => LAT.test(id))
  const lon = ids.find((id) => LON.test(id))
  return lat && lon ? { lat, lon } : undefined
}

function rowGeometry(row: Dict, cols: { lat: string; lon: string } | { geom: string }): Dict | undefined {
  if ('geom' in cols) {
    const v = row[cols.geom]
    if (v && typeof v === 'object') return isGeoJson(v) ? v : undefined
    if (typeof v !== 'string' || !v.trim()) return undefined
    if (v.trim().startsWith('{')) {
      try {
        const g = JSON.parse(v)
        return isGeoJson(g) ? g : undefined
      } catch {
        return undefined
      }
    }
    return wktToGeoJson(v)
  }
  const lat = Number(row[cols.lat])
  const lon = Number(row[cols.lon])
  if (row[cols.lat] === null || row[cols.lon] === null || row[cols.lat] === '' || row[cols.lon] === '') return undefined
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return undefined
  return { type: 'Point', coordinates: [lon, lat] }
}

/** A DataStore table as a FeatureCollection, read with datastore_search as the caller. */
async function tableGeoJson(ctx: ActionContext, resourceId: string): Promise<GeoJsonResult> {
  const max = Math.max(1, Math.min(ctx.config.int('service.views.geo.max_rows'), ctx.config.int('service.datastore.search.rows_max')))
  const found = await callAction<Dict>(ctx, 'datastore_search', { resource_id: resourceId, limit: max, include_total: true })
  const cols = positionColumns(found.fields ?? [])
  if (!cols) return fail('The table has no latitude and longitude columns (lat/lon, latitude/longitude…) and no geometry column (geom, geometry, wkt…).')
  const features: Dict[] = []
  let skipped = 0
  for (const row of (found.records ?? []) as Dict[]) {
    const geometry = rowGeometry(row, cols)
    if (!geometry) {
      skipped++
      continue
    }
    const properties: Dict = {}
    for (const [k, v] of Object.entries(row)) if (k !== '_id' && !('geom' in cols && k === cols.geom)) properties[k] = v
    features.push({ type: 'Feature', id: row._id, geometry, properties })
  }
  const shown = (found.records ?? []).length
  return { ok: true, doc: { type: 'FeatureCollection', features }, rows: { shown, total: Number(found.total ?? shown), skipped } }
}

const fetcherFor = (deps: Deps, maxBytes: number) =>
  harvestFetcher(deps, { timeoutMs: Math.max(1, deps.config.int('service.views.geo.timeout')) * 1000, maxBytes })

/** A GeoJSON file's text: the upload from the file store, a link through the guarded fetch. */
async function fileText(ctx: ActionContext, deps: Deps, res: Dict): Promise<string | GeoJsonResult> {
  const max = deps.config.int('ckanext.geoview.geojson.max_file_size')
  if (typeof res.size === 'number' && res.size > max) return fail(`The file is larger (${res.size} bytes) than the ${max} bytes this preview reads.`, 413)
  const key = storedFileKey(await loadResource(ctx, res.id))
  if (key) {
    const blob = await deps.blobs.get(key).catch(() => undefined)
    if (!blob) return fail('The uploaded file was not found in the file store.', 404)
    if (blob.size > max) {
      await blob.body.cancel?.()
      return fail(`The file is larger (${blob.size} bytes) than the ${max} bytes this preview reads.`, 413)
    }
    return new Response(blob.body).text()
  }
  if (typeof res.url !== 'string' || !/^https?:\/\//i.test(res.url)) return fail('The resource has no http(s) URL to read.')
  try {
    return (await fetcherFor(deps, max).text(res.url, { accept: 'application/geo+json, application/json' })).text
  } catch (e) {
    if (e instanceof HarvestError) return fail(e.message, 502)
    throw e
  }
}

/**
 * The GeoJSON a geojson_view of the resource shows, read as the caller: a resource it may not read
 * is an error (403/404), as for resource_show and datastore_search.
 */
export async function resourceGeoJson(ctx: ActionContext, deps: Deps, resourceId: string): Promise<GeoJsonResult> {
  let res: Dict
  try {
    res = await callAction<Dict>(ctx, 'resource_show', { id: resourceId })
  } catch (e) {
    if (e instanceof NotAuthorized) return fail('Not authorized to read this resource.', 403)
    if (e instanceof NotFound) return fail('Resource not found.', 404)
    throw e
  }
  try {
    if (!GEOJSON_FORMATS.includes(String(res.format ?? '').toLowerCase()) && res.datastore_active) return await tableGeoJson(ctx, res.id)
    const text = await fileText(ctx, deps, res)
    if (typeof text !== 'string') return text
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (e) {
      return fail(`The file is not valid JSON: ${(e as Error).message}`)
    }
    if (!isGeoJson(doc)) return fail('The file is JSON but not GeoJSON (no FeatureCollection, Feature or geometry at its top).')
    return { ok: true, doc: doc as Dict }
  } catch (e) {
    if (e instanceof NotAuthorized) return fail('Not authorized to read this resource.', 403)
    if (e instanceof NotFound) return fail('Resource not found.', 404)
    return fail(`The data could not be read: ${(e as Error).message}`, 500)
  }
}

export type CapabilitiesResult = { ok: true; url: string; capabilities: OgcCapabilities } | { ok: false; url?: string; error: string }

/** The layers of the WMS/WMTS service a resource links to, from its GetCapabilities. */
export async function serviceLayers(deps: Deps, res: Dict, service: OgcService): Promise<CapabilitiesResult> {
  let url: string
  try {
    url = capabilitiesUrl(String(res.url ?? ''), service)
  } catch {
    return { ok: false, error: 'The resource has no valid service URL.' }
  }
  try {
    const got = await fetcherFor(deps, deps.config.int('service.views.geo.capabilities_max_bytes')).text(url, { accept: 'application/xml, text/xml' })
    return { ok: true, url, capabilities: parseCapabilities(got.text) }
  } catch (e) {
    if (e instanceof HarvestError || e instanceof CapabilitiesError) return { ok: false, url, error: e.message }
    return { ok: false, url, error: `The capabilities could not be read: ${(e as Error).message}` }
  }
}

export const geoJsonPath = (datasetId: string, resourceId: string) =>
  `/dataset/${encodeURIComponent(datasetId)}/resource/${encodeURIComponent(resourceId)}/geojson`

export function mountGeoJsonRoute(app: Hono, source: DepsResolver) {
  app.get('/dataset/:id/resource/:resource_id/geojson', async (c) => {
    const deps = await source.of(c.req.raw)
    const ctx = await requestContext(deps, c.req.raw.headers)
    const got = await resourceGeoJson(ctx, deps, c.req.param('resource_id'))
    if (!got.ok) return c.text(got.error, got.status as 400)
    return new Response(JSON.stringify(got.doc), {
      headers: { 'content-type': 'application/geo+json; charset=utf-8', 'cache-control': ctx.user ? 'private, no-store' : 'public, max-age=60' },
    })
  })
}
