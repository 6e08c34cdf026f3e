// The routes of ckanext-dcat: /catalog.{ttl,jsonld,rdf,xml} (Hydra-paged, modified_since, q, fq),
// /dataset/<id>.{ttl,jsonld,rdf,xml}, content negotiation on /catalog and /dataset/<id>, and
// DCAT-US 1.1 at /data.json. Data through the actions, as the caller (catalogues: anonymously,
// so only public datasets are listed).
import type { Context } from 'hono'
import { NotAuthorized, NotFound, SearchError, SearchQueryError, ValidationError } from '../errors'
import type { DepsResolver } from '../http/deps-source'
import { call, openPage, type Page } from '../web/page'
import { answerTag, callerTag, ifNoneMatch } from '../http/http-cache'
import { siteBase } from '../web/seo'
import { GraphBuilder } from './graph'
import { MEDIA_TYPES, serialize, type RdfFormat } from './serialize'
import { dataJson } from './data-json'

type Dict = Record<string, any>
export const RDF_FORMATS = ['ttl', 'jsonld', 'rdf', 'xml'] as const

/** The RDF format an Accept header asks for first, if any. */
export function negotiate(accept: string | null): RdfFormat | undefined {
  if (!accept) return undefined
  const wanted = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().split(';')
      const q = Number(params.find((p) => p.trim().startsWith('q='))?.trim().slice(2) ?? '1')
      return { type: type!.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, i }
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
  for (const w of wanted) {
    if (w.type === 'text/html' || w.type === 'application/xhtml+xml') return undefined
    if (w.type === 'text/turtle' || w.type === 'text/n3') return 'ttl'
    if (w.type === 'application/ld+json') return 'jsonld'
    if (w.type === 'application/rdf+xml') return 'rdf'
  }
  return undefined
}

const PER_PAGE = 100

function problem(status: number, message: string) {
  return new Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } })
}

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

async function respond(format: RdfFormat, builder: GraphBuilder, headers: Record<string, string>) {
  return new Response(await serialize(builder.quads, format), {
    headers: { 'content-type': `${MEDIA_TYPES[format]}; charset=utf-8`, ...headers },
  })
}

export async function catalogResponse(source: DepsResolver, c: Context, format: RdfFormat) {
  const page = await openPage(source, c.req.raw, { anonymous: true })
  const headers = validators(page, format)
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  const base = siteBase(page.deps.config.str('service.site_url'))
  const params = page.url.searchParams
  const n = Number.parseInt(params.get('page') ?? '1', 10)
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) return problem(400, 'page must be a positive integer')
  const fq: string[] = []
  if (params.get('fq')) fq.push(params.get('fq')!)
  const since = params.get('modified_since')
  if (since) {
    const t = Date.parse(since)
    if (Number.isNaN(t)) return problem(400, 'modified_since must be an ISO 8601 date')
    fq.push(`metadata_modified:[${new Date(t).toISOString()} TO *]`)
  }
  let found: Dict
  try {
    found = await call(page, 'package_search', {
      q: params.get('q') ?? '',
      fq: fq.join(' AND '),
      rows: PER_PAGE,
      start: (n - 1) * PER_PAGE,
      sort: 'metadata_modified desc, name asc',
    })
  } catch (e) {
    if (e instanceof SearchError || e instanceof SearchQueryError || e instanceof ValidationError) return problem(400, 'The search could not be understood')
    throw e
  }
  const builder = new GraphBuilder(base)
  const site = { title: page.deps.config.str('service.site_title'), description: page.deps.config.str('service.site_description') }
  builder.catalog(site, found.results)
  const pageUrl = (k: number) => {
    const q = new URLSearchParams(params)
    q.set('page', String(k))
    return `${base}/catalog.${format}?${q}`
  }
  builder.paging(pageUrl, n, found.count, PER_PAGE)
  return respond(format, builder, headers)
}

export async function datasetRdfResponse(source: DepsResolver, c: Context, id: string, format: RdfFormat) {
  const page = await openPage(source, c.req.raw)
  // the caller is in the tag: an ETag only ever names what that caller was given
  const headers = validators(page, format)
  const unchanged = notModified(page, headers)
  if (unchanged) return unchanged
  let d: Dict
  try {
    d = await call(page, 'package_show', { id })
  } catch (e) {
    if (e instanceof NotFound || e instanceof NotAuthorized || e instanceof ValidationError) return problem(404, 'Dataset not found')
    throw e
  }
  const builder = new GraphBuilder(siteBase(page.deps.config.str('service.site_url')))
  builder.dataset(d)
  return respond(format, builder, headers)
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

/** Mounts /catalog(.fmt) and /data.json; /dataset/<id>.fmt is dispatched from the dataset page route. */
export function mountDcatRoutes(app: { get: (path: string, h: (c: Context) => Promise<Response> | Response) => unknown }, source: DepsResolver) {
  for (const f of RDF_FORMATS) app.get(`/catalog.${f}`, (c) => catalogResponse(source, c, f))
  app.get('/catalog', (c) => catalogResponse(source, c, negotiate(c.req.header('accept') ?? null) ?? 'rdf'))
  app.get('/data.json', (c) => dataJsonResponse(source, c))
}
