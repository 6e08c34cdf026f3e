// ckanext-dcat's endpoints: the catalogue at ckanext.dcat.catalog_endpoint (/catalog.<format>),
// /dataset/<id>.<format> and /dataset_series/<id>.<format> (rdf, xml, ttl, n3, jsonld; profiles=),
// content negotiation on / and /dataset/<id> when ckanext.dcat.enable_content_negotiation is on,
// Croissant at /dataset/<id>/croissant.jsonld (croissant plugin), the structured data of dataset
// pages, and DCAT-US 1.1 at /data.json. Documents through the dcat_* actions, as the caller
// (catalogues: anonymously; they list public datasets only, as package_search does).
import type { Context, Next } from 'hono'
import { NotAuthorized, NotFound, SearchError, SearchQueryError, ValidationError } from '../errors'
import type { DepsResolver } from '../http/deps-source'
import { call, openPage, type Page } from '../web/page'
import { answerTag, callerTag, ifNoneMatch } from '../http/http-cache'
import { siteBase } from '../web/seo'
import { MEDIA_TYPES, isRdfFormat, htmlSafeJson, type RdfFormat } from '../lib/dcat/serialize'
import { dataJson } from './data-json'

type Dict = Record<string, any>
type Handler = (c: Context) => Response | Promise<Response>

/**
 * ckanext-dcat's reading of an Accept header: media types by q (ties in header order); text/html
 * first means the page; an RDF media type its format (application/rdf+xml → rdf); `text/*` or
 * `application/*` the first format of that type; anything else is skipped.
 */
export function negotiate(accept: string | null | undefined): RdfFormat | undefined {
  if (!accept) return undefined
  const byType: Record<string, RdfFormat> = { 'application/rdf+xml': 'rdf', 'text/n3': 'n3', 'text/turtle': 'ttl', 'application/ld+json': 'jsonld' }
  const wildcard: Record<string, RdfFormat> = { application: 'rdf', text: 'n3' }
  const q = new Map<string, number>()
  for (const part of accept.split(',')) {
    const m = /^([^;]+)[ \t]*(;[ \t]*q=([0-9.]+))?$/.exec(part)
    if (m) q.set(m[1]!.trim(), m[3] ? Number.parseFloat(m[3]) : 1)
  }
  for (const [type] of [...q].sort((a, b) => b[1] - a[1])) {
    if (type === 'text/html') return undefined
    if (byType[type]) return byType[type]
    const [major, minor] = type.split('/')
    if (minor === '*' && major && wildcard[major]) return wildcard[major]
  }
  return undefined
}

/** A plain-text answer (CKAN's abort: the message). */
function problem(status: number, message: string) {
  return new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })
}

const messageOf = (e: ValidationError) =>
  Object.values(e.errors)
    .flat()
    .map((m) => (typeof m === 'string' ? m : JSON.stringify(m)))
    .join('; ')

/**
 * Validators as the read actions have them: the document (path, query, format), the caller and the
 * change-log position (every write to what a document holds moves it); anonymous answers may be
 * shared for `sharedSeconds`.
 */
function validators(page: Page, format: string, sharedSeconds = 60): Record<string, string> {
  const scope = `${page.deps.config.str('service.site_url')} dcat ${format}`
  return {
    etag: answerTag(scope, { path: page.url.pathname, query: page.url.search }, callerTag(page.ctx.user), page.deps.changes.lastSeq),
    'cache-control': page.ctx.user ? 'private, max-age=0, must-revalidate' : `public, max-age=0, s-maxage=${sharedSeconds}`,
    vary: 'Accept, Authorization, Cookie',
  }
}

/** A 304 when the caller's copy is current: before any search or serialisation. */
const notModified = (page: Page, headers: Record<string, string>) =>
  ifNoneMatch(page.req.headers.get('if-none-match'), headers.etag!, false) ? new Response(null, { status: 304, headers }) : null

/** The document with ckanext-dcat's Content-Type, as it sends it (no charset). */
const document = (body: string, type: string, headers: Record<string, string>) => new Response(body, { headers: { 'content-type': type, ...headers } })

const endpointsOn = (source: DepsResolver, c: Context) => source.config(c.req.raw).bool('ckanext.dcat.enable_rdf_endpoints')
const negotiationOn = (source: DepsResolver, c: Context) => source.config(c.req.raw).bool('ckanext.dcat.enable_content_negotiation')
const pluginOn = (source: DepsResolver, c: Context, name: string) => source.config(c.req.raw).list('service.plugins').includes(name)

/** A page of the catalogue (dcat_catalog_show): 409 with ckanext-dcat's message for a bad page, date, profile or format. */
export async function catalogResponse(source: DepsResolver, c: Context, format: string) {
  const page = await openPage(source, c.req.raw, { anonymous: true })
  const headers = validators(page, format)
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  const q = page.url.searchParams
  const data: Dict = { format }
  for (const k of ['page', 'modified_since', 'q', 'fq', 'profiles']) if (q.get(k) !== null) data[k] = q.get(k)
  try {
    const body = await call<string>(page, 'dcat_catalog_show', data)
    return document(body, MEDIA_TYPES[format as RdfFormat], headers)
  } catch (e) {
    if (e instanceof ValidationError) return problem(409, messageOf(e))
    if (e instanceof SearchError || e instanceof SearchQueryError) return problem(409, e.message || 'The search could not be understood')
    throw e
  }
}

/** One dataset (dcat_dataset_show) as the caller: 403 without the right to read it, 404 unknown, 409 bad profile or format. */
export async function datasetRdfResponse(source: DepsResolver, c: Context, id: string, format: string) {
  const page = await openPage(source, c.req.raw)
  // the caller is in the tag: an ETag only ever names what that caller was given
  const headers = validators(page, format)
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  const profiles = page.url.searchParams.get('profiles')
  try {
    const body = await call<string>(page, 'dcat_dataset_show', { id, format, ...(profiles ? { profiles } : {}) })
    return document(body, MEDIA_TYPES[format as RdfFormat], headers)
  } catch (e) {
    if (e instanceof NotAuthorized) return problem(403, 'Unauthorized to read dataset')
    if (e instanceof NotFound) return problem(404, 'Dataset not found')
    if (e instanceof ValidationError) return problem(409, messageOf(e))
    throw e
  }
}

/** Croissant's JSON-LD of a dataset: 404 when it is unknown or the caller may not read it. */
export async function croissantResponse(source: DepsResolver, c: Context, id: string) {
  const page = await openPage(source, c.req.raw)
  const headers = validators(page, 'croissant')
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  const profiles = page.deps.config.list('ckanext.dcat.croissant.profiles')
  try {
    const body = await call<string>(page, 'dcat_dataset_show', { id, format: 'jsonld', profiles: profiles.length ? profiles : ['croissant'] })
    return document(body, 'application/ld+json', headers)
  } catch (e) {
    if (e instanceof NotFound || e instanceof NotAuthorized || e instanceof ValidationError) return problem(404, 'Dataset not found or you have no permission to view it')
    throw e
  }
}

/**
 * The JSON-LD a dataset page embeds, as ckanext-dcat's plugins do: with `structured_data` in
 * ckan.plugins, the dataset under ckanext.dcat.structured_data.profiles (schemaorg); with
 * `croissant`, its Croissant; both: a list of the two. Neither: undefined (the page keeps its own).
 * Ready for a <script> element.
 */
export async function structuredData(page: Page, d: Dict): Promise<string | undefined> {
  const cfg = page.deps.config
  const plugins = cfg.list('service.plugins')
  const docs: string[] = []
  try {
    if (plugins.includes('structured_data')) {
      const profiles = cfg.list('ckanext.dcat.structured_data.profiles')
      docs.push(await call<string>(page, 'dcat_dataset_show', { id: d.id, format: 'jsonld', profiles: profiles.length ? profiles : ['schemaorg'] }))
    }
    if (plugins.includes('croissant')) {
      const profiles = cfg.list('ckanext.dcat.croissant.profiles')
      docs.push(await call<string>(page, 'dcat_dataset_show', { id: d.id, format: 'jsonld', profiles: profiles.length ? profiles : ['croissant'] }))
    }
  } catch (e) {
    if (e instanceof ValidationError) return undefined
    throw e
  }
  if (!docs.length) return undefined
  const json = docs.length === 1 ? JSON.stringify(JSON.parse(docs[0]!), null, 4) : JSON.stringify(docs.map((s) => JSON.parse(s)), null, 4)
  return htmlSafeJson(json)
}

export async function dataJsonResponse(source: DepsResolver, c: Context) {
  const page = await openPage(source, c.req.raw, { anonymous: true })
  const headers = validators(page, 'data.json', 300)
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  const base = siteBase(page.deps.config.str('service.site_url'))
  const datasets: Dict[] = []
  for (let start = 0; ; start += 1000) {
    const found: Dict = await call(page, 'package_search', { rows: 1000, start, sort: 'metadata_created asc, name asc' })
    datasets.push(...found.results)
    if (found.results.length < 1000 || datasets.length >= 100_000) break
  }
  const cfg = page.deps.config
  const body = dataJson(base, cfg.str('service.site_title'), datasets, {
    bureau: cfg.str('ckanext.datajson.bureau_code') || '000:00',
    program: cfg.str('ckanext.datajson.program_code') || '000:000',
  })
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=utf-8', ...headers } })
}

/** The format a path asks for under the catalogue endpoint template (`/catalog.{_format}`), if it is one. */
export function catalogFormat(template: string, path: string): string | undefined {
  if (!template.startsWith('/') || !template.includes('{_format}')) return undefined
  const [before, after] = template.split('{_format}', 2) as [string, string]
  if (!path.startsWith(before) || !path.endsWith(after) || path.length <= before.length + after.length) return undefined
  const format = path.slice(before.length, path.length - after.length)
  return /^[^/]+$/.test(format) ? format : undefined
}

/** `<id>.<format>` → [id, format] (dataset names hold no dots, so the last one splits). */
const splitFormat = (s: string): [string, string] | undefined => {
  const i = s.lastIndexOf('.')
  return i > 0 && i < s.length - 1 ? [s.slice(0, i), s.slice(i + 1)] : undefined
}

/** An RDF answer for a format ckanext-dcat serves, else its 409. */
const rdfOr409 = (format: string, make: (f: RdfFormat) => Promise<Response>) =>
  isRdfFormat(format) ? make(format) : Promise.resolve(problem(409, `Unknown RDF format: ${format}`))

/**
 * The dataset page's route hook: /dataset/<id>.<format> (RDF endpoints on), or /dataset/<id> with
 * an Accept header asking for RDF (content negotiation on); otherwise the page.
 */
export function datasetRoute(source: DepsResolver, html: Handler): Handler {
  return (c) => {
    const id = c.req.param('id')!
    const ext = splitFormat(id)
    if (ext && endpointsOn(source, c)) return rdfOr409(ext[1], (f) => datasetRdfResponse(source, c, ext[0], f))
    const wanted = negotiationOn(source, c) ? negotiate(c.req.header('accept')) : undefined
    return wanted ? datasetRdfResponse(source, c, id, wanted) : html(c)
  }
}

/** The home page's route hook: the catalogue for an Accept header asking for RDF (content negotiation on). */
export function homeRoute(source: DepsResolver, html: Handler): Handler {
  return (c) => {
    const wanted = negotiationOn(source, c) ? negotiate(c.req.header('accept')) : undefined
    return wanted ? catalogResponse(source, c, wanted) : html(c)
  }
}

/**
 * Mounts the catalogue endpoint (ckanext.dcat.catalog_endpoint, read per request), /catalog
 * (negotiated, RDF/XML by default), /dataset_series/<id>.<format>, Croissant and /data.json;
 * /dataset/<id>.<format> and / are the page routes' hooks (datasetRoute, homeRoute).
 */
export function mountDcatRoutes(
  app: { get: (path: string, h: (c: Context, next: Next) => Promise<Response | void> | Response) => unknown },
  source: DepsResolver,
) {
  app.get('/catalog', (c) => (endpointsOn(source, c) ? catalogResponse(source, c, negotiate(c.req.header('accept')) ?? 'rdf') : c.notFound()))
  app.get('/dataset_series/:idfmt', async (c, next) => {
    const ext = splitFormat(c.req.param('idfmt')!)
    if (!ext || !endpointsOn(source, c)) return next()
    return rdfOr409(ext[1], (f) => datasetRdfResponse(source, c, ext[0], f))
  })
  app.get('/dataset/:id/croissant.jsonld', async (c, next) => {
    if (!pluginOn(source, c, 'croissant')) return next()
    return croissantResponse(source, c, c.req.param('id')!)
  })
  app.get('/data.json', (c) => dataJsonResponse(source, c))
  // last: any path the configured template matches (the routes before this one answered theirs)
  app.get('*', async (c, next) => {
    if (!endpointsOn(source, c)) return next()
    const template = source.config(c.req.raw).str('ckanext.dcat.catalog_endpoint') || '/catalog.{_format}'
    const format = catalogFormat(template, c.req.path)
    if (format === undefined) return next()
    return rdfOr409(format, (f) => catalogResponse(source, c, f))
  })
}
