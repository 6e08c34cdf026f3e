/** @jsxImportSource hono/jsx */
// The web pages on CKAN's URL scheme, server-rendered from the same action code as the API:
// `/`, `/dataset`, `/dataset/<name>`, `/dataset/<name>/resource/<id>`, `/organization[/<name>]`,
// `/group[/<name>]`, `/user/<name>`, `/about`; a 404 page for other non-API paths; the stylesheet.
import type { Context, ExecutionContext, Hono, Next } from 'hono'
import type { Child } from 'hono/jsx'
import type { DepsResolver } from '../http/deps-source'
import { clientAddress } from '../http/client-address'
import { logInternalError } from '../http/internal-error'
import { BadRequest, NotAuthorized, NotFound, RequestTooLarge, ValidationError } from '../errors'
import { Layout } from './layout'
import { call, openPage, type Page } from './page'
import { dashboardPage, login, loginView, logout, type Outcome } from './pages/account'
import { SITEMAP_PAGE, siteBase, sitemapIndex, urlSet } from './seo'
import { datasetPage, resourcePage, searchPage, typeSearchPage } from './pages/datasets'
import { saveChartView } from './datastore-tabs'
import { aboutPage, homePage } from './pages/home'
import { listPage, readPage, type Kind } from './pages/orgs'
import { userPage } from './pages/user'
import { createDataset, createResource, follow, newDatasetView, newResourceView } from './pages/publish'
import { addMember, createGroup, deleteGroup, deleteGroupView, editGroupView, membersView, newGroupView, removeMember, updateGroup } from './pages/group-manage'
import { apiTokensView, createApiToken, editUserView, revokeApiToken, updateUser } from './pages/user-settings'
import { createWebhook, webhookAction, webhooksView, webhookView } from './pages/user-webhooks'
import { register, registerView, requestReset, resetPassword, resetRequestView, resetView } from './pages/register'
import { activityPage } from './pages/activity'
import { abortJob, clearSource, clearView, createSource, editSourceView, jobPage, jobsPage, newSourceView, objectContent, reharvest, sourcePage, sourcesPage, updateSource } from './pages/harvest'
import { addCollaborator, changeDatasetGroup, datasetGroupsView, collaboratorsView, removeCollaborator, deleteDataset, deleteDatasetView, deleteResource, deleteResourceView, editDatasetView, editResourceView, updateDataset, updateResource } from './pages/manage'
import { adminIndexPage, adminJobsPage } from './pages/admin-jobs'
import { adminUsagePage } from './pages/admin-usage'
import { stylesheet } from './style'
import { mapAssets } from './map/client'
import { LAND_GEOJSON, WORLD_SVG } from './map/maps'
import { landGeoJson, worldSvg } from './map/geo'
import { LOCALES, isLocale, localizable, localPath, markPrefixed, offeredLocales, prefixLinks } from './i18n'
import { datasetRoute, homeRoute, mountDcatRoutes } from '../dcat/routes'

const HTML = 'text/html; charset=utf-8'

/** `prefix`: the page's /<locale>, which its links keep. */
async function html(node: Child, status = 200, cookies: string[] = [], prefix = ''): Promise<Response> {
  const body = '<!doctype html>' + prefixLinks(await (node as { toString(): string | Promise<string> }).toString(), prefix)
  const headers = new Headers({ 'content-type': HTML, 'cache-control': 'no-cache' })
  if (!prefix) headers.set('vary', 'Accept-Language') // the language came from the header or the default
  for (const c of cookies) headers.append('set-cookie', c)
  return new Response(body, { status, headers })
}

function redirect(to: string, cookies: string[] = []): Response {
  const headers = new Headers({ location: to, 'cache-control': 'no-cache' })
  for (const c of cookies) headers.append('set-cookie', c)
  return new Response(null, { status: 303, headers })
}

export type What = 'Page' | 'Dataset' | 'Resource' | 'Organization' | 'Group' | 'User' | 'HarvestSource'

function notFoundView(page: Page | null, what: What = 'Page') {
  const t = page?.t
  const heading = t ? t('notFound.title', { what }) : `${what} not found`
  return (
    <Layout title={heading} page={page}>
      <h1>{heading}</h1>
      <p>{t ? t('notFound.text') : 'The page you asked for does not exist, or you are not allowed to see it.'}</p>
      <p>
        <a href="/dataset">{t ? t('notFound.search') : 'Search the datasets'}</a>
      </p>
    </Layout>
  )
}

/** Runs a page: Not Found and Authorization errors show the 404 page (a private object's page looks like a missing one). */
function route(source: DepsResolver, what: What, render: (page: Page, c: Context) => Promise<Child | Outcome | Response | null> | Child | Outcome | Response | null) {
  return async (c: Context) => {
    let page: Page | null = null
    try {
      page = await openPage(source, c.req.raw)
      page.address = clientAddress(c, page.deps.config)
      const out = await render(page, c)
      if (out instanceof Response) return out
      if (out === null) return await html(notFoundView(page, what), 404, page.cookies, page.prefix)
      if (isOutcome(out)) {
        if ('redirect' in out) return redirect(localPath(page.prefix, out.redirect), [...page.cookies, ...(out.cookies ?? [])])
        return await html(out.view as Child, out.status ?? 200, page.cookies, page.prefix)
      }
      return await html(out, 200, page.cookies, page.prefix)
    } catch (e) {
      if (e instanceof NotFound || e instanceof NotAuthorized || e instanceof ValidationError) {
        return html(notFoundView(page, what), 404, page?.cookies, page?.prefix)
      }
      if (e instanceof BadRequest || e instanceof RequestTooLarge) {
        return new Response(e.message, { status: e instanceof RequestTooLarge ? 413 : 400, headers: { 'content-type': 'text/plain; charset=utf-8' } })
      }
      const id = logInternalError(e)
      return new Response(`<!doctype html><title>Server error</title><h1>Server error</h1><p>Request ${id}</p>`, {
        status: 500,
        headers: { 'content-type': HTML, 'x-request-id': id },
      })
    }
  }
}

/** An XML sitemap for anonymous visitors (null: no such page). */
function sitemap(source: DepsResolver, make: (page: Page, base: string, c: Context) => Promise<string | null>) {
  return async (c: Context) => {
    const page = await openPage(source, c.req.raw, { anonymous: true })
    const xml = await make(page, siteBase(page.deps.config.str('service.site_url')), c)
    if (xml === null) return c.text('404 Not Found', 404)
    return new Response(xml, { headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'public, max-age=3600' } })
  }
}

const isOutcome = (v: unknown): v is Outcome =>
  typeof v === 'object' && v !== null && ('redirect' in v || 'view' in v) && !('tag' in v)

export function mountWebRoutes(app: Hono, source: DepsResolver) {
  // /<locale>/<page> (ckan.locales_offered): the same page in that language, answered by the same
  // routes for a copy of the request without the prefix (i18n/index.ts remembers which locale)
  const localeRoute = async (c: Context, next: Next) => {
    const lang = c.req.param('lang')!
    const rest = c.req.path.slice(lang.length + 1) || '/'
    if (!isLocale(lang) || !offeredLocales(source.config(c.req.raw)).includes(lang) || !localizable(rest)) return next()
    const url = new URL(c.req.url)
    url.pathname = rest
    const raw = c.req.raw
    const body = raw.method === 'GET' || raw.method === 'HEAD' ? undefined : raw.body
    const req = new Request(url, { method: raw.method, headers: raw.headers, body, signal: raw.signal, ...(body ? { duplex: 'half' } : {}) } as RequestInit)
    markPrefixed(req, lang)
    let ctx: ExecutionContext | undefined
    try {
      ctx = c.executionCtx
    } catch {
      ctx = undefined // Node: no execution context
    }
    return app.fetch(req, c.env, ctx)
  }
  const langs = LOCALES.join('|')
  app.all(`/:lang{${langs}}`, localeRoute)
  app.all(`/:lang{${langs}}/*`, localeRoute)
  app.get(stylesheet.path, () =>
    new Response(stylesheet.text, {
      headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' },
    }),
  )
  for (const asset of Object.values(mapAssets)) {
    app.get(asset.path, () => new Response(asset.text, { headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable' } }))
  }
  app.get(WORLD_SVG, () => new Response(worldSvg(), { headers: { 'content-type': 'image/svg+xml; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' } }))
  app.get(LAND_GEOJSON, () => new Response(landGeoJson(), { headers: { 'content-type': 'application/geo+json; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' } }))
  app.get('/robots.txt', async (c) => {
    const base = siteBase(source.config(c.req.raw).str('service.site_url'))
    return c.text(`User-agent: *\nDisallow: /api/\nDisallow: /datastore/dump/\nSitemap: ${base}/sitemap.xml\n`)
  })
  app.get('/sitemap.xml', sitemap(source, async (page, base) => {
    const found: { count: number } = await call(page, 'package_search', { rows: 0 })
    return sitemapIndex(base, Math.ceil(found.count / SITEMAP_PAGE))
  }))
  app.get('/:file{sitemap-[0-9]+\\.xml}', sitemap(source, async (page, base, c) => {
    const n = Number(/([0-9]+)/.exec(c.req.param('file')!)![1])
    if (n === 0) {
      const [orgs, groups] = await Promise.all([
        call<string[]>(page, 'organization_list', { limit: 1000 }),
        call<string[]>(page, 'group_list', { limit: 1000 }),
      ])
      return urlSet(base, [
        ...['/', '/dataset', '/organization', '/group'].map((path) => ({ path })),
        ...orgs.map((o) => ({ path: `/organization/${encodeURIComponent(o)}` })),
        ...groups.map((g) => ({ path: `/group/${encodeURIComponent(g)}` })),
      ], page.offered)
    }
    if (n > 100_000) return null
    const entries: { path: string; lastmod?: string }[] = []
    for (let start = (n - 1) * SITEMAP_PAGE; entries.length < SITEMAP_PAGE; start += 1000) {
      const found: { results: { name: string; metadata_modified?: string }[] } = await call(page, 'package_search', {
        rows: 1000,
        start,
        sort: 'metadata_created asc, name asc',
        fl: 'name,metadata_modified',
      })
      for (const d of found.results) entries.push({ path: `/dataset/${encodeURIComponent(d.name)}`, lastmod: d.metadata_modified })
      if (found.results.length < 1000) break
    }
    return entries.length || n === 1 ? urlSet(base, entries, page.offered) : null
  }))
  app.get('/', homeRoute(source, route(source, 'Page', (page) => homePage(page))))
  app.get('/about', route(source, 'Page', (page) => aboutPage(page)))
  app.get('/dataset', route(source, 'Page', (page) => searchPage(page)))
  app.get('/dataset/', route(source, 'Page', (page) => searchPage(page)))
  const signedInTyped = (render: (page: Page, type: string) => Promise<Child | Outcome | null>) => (page: Page, _c: Context, type: string) =>
    page.ctx.user ? render(page, type) : { redirect: `/user/login?came_from=${encodeURIComponent(page.url.pathname)}` }
  const signInFirst = (page: Page): Outcome => ({ redirect: `/user/login?came_from=${encodeURIComponent(page.url.pathname)}` })
  const signedIn = (render: (page: Page, c: Context) => Promise<Child | Outcome | null>) => (page: Page, c: Context) =>
    page.ctx.user ? render(page, c) : { redirect: `/user/login?came_from=${encodeURIComponent(page.url.pathname)}` }
  app.get('/dataset/new', route(source, 'Page', signedIn((page) => newDatasetView(page))))
  app.post('/dataset/new', route(source, 'Page', signedIn((page) => createDataset(page))))
  app.get('/dataset/:id/resource/new', route(source, 'Dataset', signedIn((page, c) => newResourceView(page, c.req.param('id')!))))
  app.post('/dataset/:id/resource/new', route(source, 'Dataset', signedIn((page, c) => createResource(page, c.req.param('id')!))))
  const id = (c: Context) => c.req.param('id')!
  const rid = (c: Context) => c.req.param('rid')!
  app.get('/dataset/edit/:id', route(source, 'Dataset', signedIn((page, c) => editDatasetView(page, id(c)))))
  app.post('/dataset/edit/:id', route(source, 'Dataset', signedIn((page, c) => updateDataset(page, id(c)))))
  app.get('/dataset/delete/:id', route(source, 'Dataset', signedIn((page, c) => deleteDatasetView(page, id(c)))))
  app.post('/dataset/delete/:id', route(source, 'Dataset', signedIn((page, c) => deleteDataset(page, id(c)))))
  for (const kind of ['dataset', 'organization', 'group', 'user'] as const) {
    app.get(`/${kind}/activity/:id`, route(source, ({ dataset: 'Dataset', organization: 'Organization', group: 'Group', user: 'User' } as const)[kind], (page, c) => activityPage(page, kind, id(c))))
  }
  app.get('/dataset/groups/:id', route(source, 'Dataset', signedIn((page, c) => datasetGroupsView(page, id(c)))))
  app.post('/dataset/groups/:id/add', route(source, 'Dataset', signedIn((page, c) => changeDatasetGroup(page, id(c), true))))
  app.post('/dataset/groups/:id/remove', route(source, 'Dataset', signedIn((page, c) => changeDatasetGroup(page, id(c), false))))
  app.get('/dataset/collaborators/:id', route(source, 'Dataset', signedIn((page, c) => collaboratorsView(page, id(c)))))
  app.post('/dataset/collaborators/:id/new', route(source, 'Dataset', signedIn((page, c) => addCollaborator(page, id(c)))))
  app.post('/dataset/collaborators/:id/delete', route(source, 'Dataset', signedIn((page, c) => removeCollaborator(page, id(c)))))
  app.get('/dataset/:id/resource/:rid/edit', route(source, 'Resource', signedIn((page, c) => editResourceView(page, id(c), rid(c)))))
  app.post('/dataset/:id/resource/:rid/edit', route(source, 'Resource', signedIn((page, c) => updateResource(page, id(c), rid(c)))))
  app.get('/dataset/:id/resource/:rid/delete', route(source, 'Resource', signedIn((page, c) => deleteResourceView(page, id(c), rid(c)))))
  app.post('/dataset/:id/resource/:rid/delete', route(source, 'Resource', signedIn((page, c) => deleteResource(page, id(c), rid(c)))))
  app.post('/dataset/:id/resource/:rid/new_view', route(source, 'Resource', signedIn((page, c) => saveChartView(page, id(c), rid(c)))))
  for (const kind of ['dataset', 'organization', 'group', 'user']) {
    for (const on of [true, false]) {
      app.post(`/${kind}/${on ? 'follow' : 'unfollow'}/:id`, route(source, 'Page', (page, c) => follow(page, kind, c.req.param('id')!, on)))
    }
  }
  mountDcatRoutes(app, source)
  const datasetHtml = route(source, 'Dataset', (page, c) => datasetPage(page, c.req.param('id')!))
  // DCAT: /dataset/<id>.<format>, or an Accept header asking for RDF (ckanext-dcat's options)
  app.get('/dataset/:id', datasetRoute(source, datasetHtml))
  app.get(
    '/dataset/:id/resource/:rid',
    route(source, 'Resource', (page, c) => resourcePage(page, c.req.param('id')!, c.req.param('rid')!)),
  )
  for (const kind of ['organization', 'group'] as const) {
    const what = kind === 'group' ? 'Group' : 'Organization'
    app.get(`/${kind}/new`, route(source, 'Page', signedIn((page) => Promise.resolve(newGroupView(page, kind)))))
    app.post(`/${kind}/new`, route(source, 'Page', signedIn((page) => createGroup(page, kind))))
    app.get(`/${kind}/edit/:id`, route(source, what, signedIn((page, c) => editGroupView(page, kind, id(c)))))
    app.post(`/${kind}/edit/:id`, route(source, what, signedIn((page, c) => updateGroup(page, kind, id(c)))))
    app.get(`/${kind}/delete/:id`, route(source, what, signedIn((page, c) => deleteGroupView(page, kind, id(c)))))
    app.post(`/${kind}/delete/:id`, route(source, what, signedIn((page, c) => deleteGroup(page, kind, id(c)))))
    app.get(`/${kind}/members/:id`, route(source, what, signedIn((page, c) => membersView(page, kind, id(c)))))
    app.post(`/${kind}/member_new/:id`, route(source, what, signedIn((page, c) => addMember(page, kind, id(c)))))
    app.post(`/${kind}/member_delete/:id`, route(source, what, signedIn((page, c) => removeMember(page, kind, id(c)))))
    app.get(`/${kind}`, route(source, 'Page', (page) => listPage(page, kind)))
    app.get(`/${kind}/`, route(source, 'Page', (page) => listPage(page, kind)))
    app.get(`/${kind}/:id`, route(source, kind === 'group' ? 'Group' : 'Organization', (page, c) => readPage(page, kind, c.req.param('id')!)))
  }
  // harvest sources (ckanext-harvest's URLs)
  const hs = (c: Context) => c.req.param('source')!
  app.get('/harvest', route(source, 'Page', (page) => sourcesPage(page)))
  app.get('/harvest/', route(source, 'Page', (page) => sourcesPage(page)))
  app.get('/harvest/new', route(source, 'Page', signedIn((page) => newSourceView(page))))
  app.post('/harvest/new', route(source, 'Page', signedIn((page) => createSource(page))))
  app.get('/harvest/edit/:id', route(source, 'HarvestSource', signedIn((page, c) => editSourceView(page, id(c)))))
  app.post('/harvest/edit/:id', route(source, 'HarvestSource', signedIn((page, c) => updateSource(page, id(c)))))
  app.post('/harvest/refresh/:id', route(source, 'HarvestSource', signedIn((page, c) => reharvest(page, id(c)))))
  app.get('/harvest/clear/:id', route(source, 'HarvestSource', signedIn((page, c) => clearView(page, id(c)))))
  app.post('/harvest/clear/:id', route(source, 'HarvestSource', signedIn((page, c) => clearSource(page, id(c)))))
  app.get('/harvest/about/:id', (c) => c.redirect(`/harvest/${encodeURIComponent(id(c))}`, 301))
  app.get('/harvest/admin/:id', (c) => c.redirect(`/harvest/${encodeURIComponent(id(c))}/job`, 301))
  app.get('/harvest/object/:id', route(source, 'Page', (page, c) => objectContent(page, { id: id(c) })))
  app.get('/dataset/harvest_object/:id', route(source, 'Page', (page, c) => objectContent(page, { dataset_id: id(c) })))
  app.get('/harvest/:source/job', route(source, 'HarvestSource', (page, c) => jobsPage(page, hs(c))))
  app.get('/harvest/:source/job/:id', route(source, 'Page', (page, c) => jobPage(page, hs(c), id(c))))
  app.post('/harvest/:source/job/:id/abort', route(source, 'Page', signedIn((page, c) => abortJob(page, hs(c), id(c)))))
  app.get('/harvest/:id', route(source, 'HarvestSource', (page, c) => sourcePage(page, id(c))))
  // the sysadmin pages (CKAN's /ckan-admin): 403 to anyone else
  app.get('/ckan-admin', route(source, 'Page', (page) => adminIndexPage(page)))
  app.get('/ckan-admin/', route(source, 'Page', (page) => adminIndexPage(page)))
  app.get('/ckan-admin/jobs', route(source, 'Page', (page) => adminJobsPage(page)))
  app.get('/ckan-admin/usage', route(source, 'Page', (page) => adminUsagePage(page)))
  app.get('/user/login', route(source, 'Page', (page) => (page.ctx.user ? { redirect: '/dashboard' } : loginView(page))))
  app.post('/user/login', route(source, 'Page', (page) => login(page)))
  app.post('/user/logout', route(source, 'Page', (page) => logout(page)))
  app.get('/dashboard', route(source, 'Page', (page) => (page.ctx.user ? dashboardPage(page) : { redirect: '/user/login?came_from=%2Fdashboard' })))
  app.get('/user/edit/:id', route(source, 'User', signedIn((page, c) => editUserView(page, id(c)))))
  app.post('/user/edit/:id', route(source, 'User', signedIn((page, c) => updateUser(page, id(c)))))
  app.get('/user/:id/api-tokens', route(source, 'User', signedIn((page, c) => apiTokensView(page, id(c)))))
  app.post('/user/:id/api-tokens', route(source, 'User', signedIn((page, c) => createApiToken(page, id(c)))))
  app.post('/user/:id/api-tokens/:jti/revoke', route(source, 'User', signedIn((page, c) => revokeApiToken(page, id(c), c.req.param('jti')!))))
  app.get('/user/:id/webhooks', route(source, 'User', signedIn((page, c) => webhooksView(page, id(c)))))
  app.post('/user/:id/webhooks', route(source, 'User', signedIn((page, c) => createWebhook(page, id(c)))))
  app.get('/user/:id/webhooks/:hook', route(source, 'User', signedIn((page, c) => webhookView(page, id(c), c.req.param('hook')!))))
  app.post('/user/:id/webhooks/:hook/test', route(source, 'User', signedIn((page, c) => webhookAction(page, id(c), c.req.param('hook')!, 'test'))))
  app.post('/user/:id/webhooks/:hook/delete', route(source, 'User', signedIn((page, c) => webhookAction(page, id(c), c.req.param('hook')!, 'delete'))))
  app.get('/user/register', route(source, 'Page', (page) => (page.ctx.user ? { redirect: '/dashboard' } : registerView(page))))
  app.post('/user/register', route(source, 'Page', (page) => register(page)))
  app.get('/user/reset', route(source, 'Page', (page) => resetRequestView(page)))
  app.post('/user/reset', route(source, 'Page', (page) => requestReset(page)))
  app.get('/user/reset/:id', route(source, 'Page', (page, c) => resetView(page, c.req.param('id')!)))
  app.post('/user/reset/:id', route(source, 'Page', (page, c) => resetPassword(page, c.req.param('id')!)))
  app.get('/user/:id', route(source, 'User', (page, c) => userPage(page, c.req.param('id')!)))
  // /<dataset type>/, /<type>/new, /<type>/<name>: the pages of each dataset type a schema declares
  // (as CKAN registers them for every scheming type), and /<type>/new, /<type>/<name> of each
  // organization and group type; any other such path is the 404 as before
  const SCHEMA_LISTS = ['scheming.dataset_schemas', 'scheming.organization_schemas', 'scheming.group_schemas']
  const typed = (what: What, render: (page: Page, c: Context, type: string) => Promise<Child | Outcome | null> | Outcome, groupRender?: (page: Page, c: Context, type: string, kind: Kind) => Promise<Child | Outcome | null> | Child | Outcome) => {
    const run = route(source, what, async (page, c) => {
      const type = c.req.param('type')!
      if (page.deps.schemas?.datasets.has(type)) return render(page, c, type)
      const kind = groupRender && groupTypeOf(page, type)
      return kind ? groupRender(page, c, type, kind) : null
    })
    return (c: Context, next: Next) => {
      const type = c.req.param('type')!
      const config = source.config(c.req.raw)
      if (type === 'api' || type === 'datastore' || type === 'dataset' || !SCHEMA_LISTS.some((k) => config.list(k).length)) return next()
      return run(c)
    }
  }
  /** The kind of an organization or group type a schema declares (not the default ones, whose routes are above). */
  const groupTypeOf = (page: Page, type: string): Kind | null =>
    type !== 'organization' && type !== 'group' && page.deps.schemas?.organizations.has(type) ? 'organization' : type !== 'organization' && type !== 'group' && page.deps.schemas?.groups.has(type) ? 'group' : null
  app.get('/:type', typed('Page', (page, _c, type) => typeSearchPage(page, type)))
  app.get('/:type/', typed('Page', (page, _c, type) => typeSearchPage(page, type)))
  app.get('/:type/new', typed('Page', signedInTyped((page, type) => newDatasetView(page, {}, {}, type)), (page, _c, type, kind) => (page.ctx.user ? newGroupView(page, kind, {}, {}, type) : signInFirst(page))))
  app.post('/:type/new', typed('Page', signedInTyped((page, type) => createDataset(page, type)), (page, _c, type, kind) => (page.ctx.user ? createGroup(page, kind, type) : signInFirst(page))))
  app.get('/:type/:id', typed('Dataset', (page, c) => datasetPage(page, id(c)), (page, c, type, kind) => readPage(page, kind, id(c), type)))
  // other paths: the API's plain 404 under /api and /datastore, the 404 page elsewhere
  app.notFound(async (c) => {
    const path = new URL(c.req.url).pathname
    if (c.req.method !== 'GET' || path.startsWith('/api') || path.startsWith('/datastore')) return c.text('404 Not Found', 404)
    return route(source, 'Page', () => null)(c)
  })
}
