/** @jsxImportSource hono/jsx */
// /dataset (search), /dataset/<name> and /dataset/<name>/resource/<id>.
import { countUse } from '../../http/usage'
import { actorNames, DatasetList, FacetList, Markdown, Pager, datasetHref, type FacetItem } from '../components'
import { Crumbs, Layout } from '../layout'
import { renderMarkdown } from '../markdown'
import { call, siteInfo, type Page } from '../page'
import type { Translate } from '../i18n'
import type { Child } from 'hono/jsx'
import { FACETS, FACET_TITLES, PAGE_SIZE, POPULAR, SORTS, phrase, readDatasetQuery, searchParams, withParams, type DatasetQuery } from '../search-query'
import { datasetSchemaOf, RESOURCE_OWN, SchemaRows } from '../scheming'
import { SearchQueryError, SearchError, ValidationError } from '../../errors'
import { datasetJsonLd, scriptJson, siteBase } from '../seo'
import { structuredData } from '../../dcat/routes'
import { FollowButton } from './publish'
import { harvestedFrom } from './harvest'
import { activityText } from './account'
import { canEditPackage } from '../../auth/package'
import { canManageCollaborators, collaboratorsEnabled } from '../../auth/collaborator'
import { storedFileKey } from '../../model/resource-file'
import { loadResource } from '../../model/resource-write'
import { geoViews } from '../geo-views'
import { DatastoreDownloads } from '../datastore-downloads'
import { chartViews, datastoreTabOf, datastoreTabPanel, DatastoreTabNav } from '../datastore-tabs'
import { BBOX_FIELDS, checkBbox, datasetGeometry, parseBbox, type Bbox } from '../map/geo'
import { AreaFilter, DatasetMap } from '../map/maps'
import type { Errors } from '../forms'

type Dict = Record<string, any>
const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v))

/** The area filter's parameters: the four parts the form sends (`_west`...), checked. */
const AREA_PARTS = BBOX_FIELDS.map((f) => `_${f}`)

/**
 * The search page's area: `ext_bbox` when it is a box (passed on to package_search), the form's
 * four parts when they were sent (a box: the page's URL with it as `ext_bbox`; else their errors).
 */
function readArea(page: Page, base: string): { redirect: string } | { bbox: Bbox | null; raw: string; values: Record<string, string>; errors: Errors } {
  const params = page.url.searchParams
  const errors: Errors = {}
  const values: Record<string, string> = {}
  const raw = params.get('ext_bbox') ?? ''
  const bbox: Bbox | null = raw ? parseBbox(raw) : null
  if (raw && !bbox) errors._ = [page.t('map.error.param')]
  if (bbox) BBOX_FIELDS.forEach((f, i) => (values[f] = String(bbox[i])))
  if (AREA_PARTS.some((k) => params.has(k))) {
    const parts = Object.fromEntries(BBOX_FIELDS.map((f) => [f, params.get(`_${f}`) ?? ''])) as Record<(typeof BBOX_FIELDS)[number], string>
    Object.assign(values, parts)
    const checked = checkBbox(parts)
    const drop = Object.fromEntries(AREA_PARTS.map((k) => [k, undefined]))
    if ('bbox' in checked) return { redirect: withParams(base, params, { ...drop, ext_bbox: checked.bbox.join(',') }) }
    for (const [f, key] of Object.entries(checked.errors)) errors[`_${f}`] = [page.t(key)]
  }
  return { bbox, raw: bbox ? raw : '', values, errors }
}

/** A dataset search (the /dataset page, and an organization's or group's list): results, facets, pager. */
export interface SearchView {
  view: Child
  result: Dict
  query: DatasetQuery
  alternate: string
}

export async function datasetSearch(page: Page, base: string, extraFq?: string, opts: { area?: boolean } = {}): Promise<{ redirect: string } | SearchView> {
  const query = readDatasetQuery(page.url.searchParams)
  const t = page.t
  const area = opts.area ? readArea(page, base) : null
  if (area && 'redirect' in area) return { redirect: area.redirect }
  const dict = { ...searchParams(query, extraFq), ...(area?.bbox ? { ext_bbox: area.raw } : {}) }
  let result: Dict = { count: 0, results: [], search_facets: {} }
  let error = ''
  try {
    result = await call(page, 'package_search', dict)
  } catch (e) {
    if (!(e instanceof SearchQueryError || e instanceof SearchError || e instanceof ValidationError)) throw e
    error = t('search.error')
  }
  const params = page.url.searchParams
  const facets = (result.search_facets ?? {}) as Record<string, { items: FacetItem[] }>
  const active = (field: string, name: string) => query.filters.some(([k, v]) => k === field && v === name)
  const noArea = Object.fromEntries(['ext_bbox', ...AREA_PARTS].map((k) => [k, undefined]))
  const view = (
    <div class="layout">
      <aside class="facets" aria-label={t('facets.filters')}>
        {area && !('redirect' in area) ? (
          <AreaFilter
            page={page}
            base={base}
            bbox={area.bbox}
            values={area.values}
            errors={area.errors}
            keep={[...params].filter(([k]) => k !== 'page' && k !== 'ext_bbox' && !AREA_PARTS.includes(k))}
            removeHref={withParams(base, params, noArea)}
            t={t}
          />
        ) : null}
        {FACETS.map((f) => (
          <FacetList
            title={t(FACET_TITLES[f])}
            t={t}
            items={(facets[f]?.items ?? []).filter((i) => i.name !== '').sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))}
            active={(name) => active(f, name)}
            href={(name) => withParams(base, params, {}, active(f, name) ? { remove: [f, name] } : { add: [f, name] })}
          />
        ))}
      </aside>
      <section aria-label={t('search.results')}>
        <form class="searchbar" method="get" action={base} role="search">
          <label class="skip" for="q">
            {t('search.label')}
          </label>
          <input id="q" type="search" name="q" value={query.q} placeholder={t('search.datasets')} />
          {query.filters.map(([k, v]) => (
            <input type="hidden" name={k} value={v} />
          ))}
          {area?.bbox ? <input type="hidden" name="ext_bbox" value={area.raw} /> : null}
          <label for="sort">{t('sort.label')}</label>
          <select id="sort" name="sort">
            {(tracking(page) ? [...SORTS, POPULAR] : SORTS).map(([value, label]) => (
              <option value={value} selected={(query.sort || (query.q ? SORTS[0]![0] : 'metadata_modified desc')) === value}>
                {t(label)}
              </option>
            ))}
          </select>
          <button type="submit">{t('search.button')}</button>
        </form>
        {error ? (
          <p role="alert">{error}</p>
        ) : (
          <p>
            <strong>{page.num(result.count)}</strong> {query.q ? t('search.foundFor', { n: result.count, q: query.q }) : t('search.found', { n: result.count })}
          </p>
        )}
        <DatasetList items={result.results} t={t} />
        <Pager t={t} page={query.page} count={result.count} size={PAGE_SIZE} href={(n) => withParams(base, params, { page: n > 1 ? String(n) : undefined })} />
      </section>
    </div>
  )
  const api = new URLSearchParams()
  for (const [k, v] of Object.entries(dict)) if (v !== '' && k !== 'facet.field' && k !== 'facet.limit') api.set(k, String(v))
  return { view, result, query, alternate: `/api/3/action/package_search?${api}` }
}

/** /<type>/: the datasets of a schema's dataset type (null: the site has no such type). */
export async function typeSearchPage(page: Page, type: string) {
  if (!datasetSchemaOf(page, type)) return null
  const base = `/${type}/`
  const found = await datasetSearch(page, base, `dataset_type:${phrase(type)}`, { area: true })
  if ('redirect' in found) return { redirect: found.redirect }
  const { view, alternate } = found
  const heading = page.t('schema.typeHeading', { type })
  return (
    <Layout title={heading} page={page} alternate={alternate} maps>
      <Crumbs page={page} items={[[page.t('nav.datasets'), '/dataset'], [type, base]]} />
      <h1>{heading}</h1>
      {page.ctx.user ? (
        <p>
          <a class="button" href={`/${type}/new`}>
            {page.t('schema.addOfType', { type })}
          </a>
        </p>
      ) : null}
      {view}
    </Layout>
  )
}

export async function searchPage(page: Page) {
  const found = await datasetSearch(page, '/dataset', undefined, { area: true })
  if ('redirect' in found) return { redirect: found.redirect }
  const { view, alternate } = found
  return (
    <Layout title={page.t('dataset.title')} page={page} alternate={alternate} maps>
      <h1>{page.t('dataset.title')}</h1>
      {page.ctx.user ? (
        <p>
          <a class="button" href="/dataset/new">
            {page.t('dataset.add')}
          </a>
        </p>
      ) : null}
      {view}
    </Layout>
  )
}

function Resources({ d, siteUrl, t }: { d: Dict; siteUrl: string; t: Translate }) {
  const resources = (d.resources ?? []) as Dict[]
  if (!resources.length) return <p class="muted">{t('dataset.noResources')}</p>
  return (
    <ul class="items">
      {resources.map((r) => (
        <li>
          <h3>
            <a href={`${datasetHref(d)}/resource/${encodeURIComponent(r.id)}`}>{text(r.name) || t('dataset.unnamedResource')}</a>{' '}
            {r.format ? <span class="badge">{text(r.format)}</span> : null}
          </h3>
          {r.description ? <p>{text(r.description)}</p> : null}
          {r.url ? (
            <a href={safeUrl(r.url, siteUrl)} rel="nofollow">
              {r.url_type === 'upload' || r.url_type === 'datastore' ? t('dataset.download') : t('dataset.goToResource')}
            </a>
          ) : null}
        </li>
      ))}
    </ul>
  )
}

/**
 * A link target from stored data: http(s) and relative URLs only (no javascript: or data:); this
 * site's own URLs (an upload's download URL is service.site_url + path) as paths, so they work
 * whatever host the page was reached on.
 */
const TEXT_PREVIEW_BYTES = 64 * 1024
interface TextPreview {
  text: string
  truncated: boolean
}

/**
 * The start of an uploaded file for its text_view (ckan's text_view fetches it in the browser; a page
 * without scripts reads it from the file store): only uploads, never a linked URL (no request to an
 * address a user chose), at most TEXT_PREVIEW_BYTES, decoded as UTF-8.
 */
async function textPreview(page: Page, views: Dict[], r: Dict): Promise<TextPreview | null> {
  if (!views.some((v) => v.view_type === 'text_view')) return null
  const key = storedFileKey(await loadResource(page.ctx, r.id))
  if (!key) return null
  const blob = await page.deps.blobs.get(key, { offset: 0, length: TEXT_PREVIEW_BYTES }).catch(() => undefined)
  if (!blob) return null
  const bytes = new Uint8Array(await new Response(blob.body).arrayBuffer())
  return { text: new TextDecoder('utf-8').decode(bytes), truncated: blob.size > TEXT_PREVIEW_BYTES }
}

/**
 * The resource's views that show something besides the DataStore preview (ckan's image_view,
 * webpage_view and text_view): an image, an uploaded text file's start, or a page in a sandboxed frame (no scripts, no same-origin rights) with
 * a link beside it, since many sites refuse to be framed.
 */
function ResourceViews({ views, r, siteUrl, text: shownText, t }: { views: Dict[]; r: Dict; siteUrl: string; text: TextPreview | null; t: Translate }) {
  const shown = views.filter((v) => v.view_type === 'image_view' || v.view_type === 'webpage_view' || (v.view_type === 'text_view' && shownText))
  if (!shown.length) return null
  return (
    <section>
      {shown.map((v) => {
        const title = text(v.title) || (v.view_type === 'image_view' ? t('resource.image') : t('resource.webPage'))
        if (v.view_type === 'text_view') {
          return (
            <figure class="view">
              <pre class="text-view" tabindex={0}>{shownText!.text}</pre>
              <figcaption>{shownText!.truncated ? t('resource.firstKb', { title, kb: Math.round(TEXT_PREVIEW_BYTES / 1024) }) : title}</figcaption>
            </figure>
          )
        }
        if (v.view_type === 'image_view') {
          const src = safeUrl(v.config?.image_url || v.image_url || r.url, siteUrl)
          return (
            <figure class="view">
              <img src={src} alt={text(v.description) || title} loading="lazy" referrerpolicy="no-referrer" />
              <figcaption>{title}</figcaption>
            </figure>
          )
        }
        const src = safeUrl(v.config?.page_url || v.page_url || r.url, siteUrl)
        return (
          <figure class="view">
            <iframe src={src} title={title} sandbox="" loading="lazy" referrerpolicy="no-referrer" />
            <figcaption>
              {title}: <a href={src} rel="nofollow">{t('resource.openPage')}</a>
            </figcaption>
          </figure>
        )
      })}
    </section>
  )
}

export function safeUrl(u: unknown, siteUrl = ''): string {
  let s = text(u).trim()
  const base = siteUrl.replace(/\/+$/, '')
  if (base && s.startsWith(base + '/')) s = s.slice(base.length)
  return /^(https?:\/\/|\/(?!\/))/i.test(s) ? s : /^[a-z][a-z0-9+.-]*:/i.test(s) || s.startsWith('//') ? '#' : s
}


/** Whether the site counts usage figures (service.tracking_enabled): pages count and show them. */
const tracking = (page: Page) => page.deps.config.bool('service.tracking_enabled')

/** A dataset's or resource's figures as its page shows them (CKAN: "N recent views"). */
function UsageLine({ page, summary, downloads }: { page: Page; summary: Dict | undefined; downloads?: boolean }) {
  if (!summary) return null
  const views = { total: Number(summary.total ?? 0), recent: page.num(summary.recent ?? 0) }
  return (
    <p class="muted usage">
      {page.t('usage.views', views)}
      {downloads ? <> · {page.t('usage.downloads', { total: Number(summary.downloads?.total ?? 0), recent: page.num(summary.downloads?.recent ?? 0) })}</> : null}
    </p>
  )
}

export async function datasetPage(page: Page, id: string) {
  const d: Dict = await call(page, 'package_show', { id, ...(tracking(page) ? { include_tracking: true } : {}) })
  // ckanext-harvest: a harvest source's page is /harvest/<name>
  if (d.type === 'harvest') return { redirect: `/harvest/${encodeURIComponent(text(d.name))}` }
  countUse(page.deps, page.req.headers, page.address, 'page', { id: d.id, packageId: d.id, resource: false })
  let activity: Dict[] = []
  try {
    activity = await call(page, 'package_activity_list', { id: d.id, limit: 5 })
  } catch {
    activity = [] // activity may be switched off or not readable by this caller
  }
  const names = await actorNames(page, activity)
  // ckanext-dcat's structured_data / croissant plugins, else the page's own schema.org JSON-LD
  const embedded = await structuredData(page, d)
  const t = page.t
  const extras = (d.extras ?? []) as Dict[]
  const org = d.organization as Dict | null
  const schema = datasetSchemaOf(page, text(d.type) || 'dataset')
  const harvested = await harvestedFrom(page, d)
  const geometry = datasetGeometry(d)
  return (
    <Layout
      maps={!!geometry}
      title={text(d.title) || text(d.name)}
      page={page}
      alternate={`/api/3/action/package_show?id=${encodeURIComponent(d.id)}`}
      rdf={`/dataset/${encodeURIComponent(d.name)}`}
      description={text(d.notes)}
      jsonLd={embedded ?? scriptJson(datasetJsonLd(d, siteBase(page.deps.config.str('service.site_url')), siteInfo(page).title))}
    >
      <Crumbs page={page} items={[[t('nav.datasets'), '/dataset'], ...(org ? ([[text(org.title) || text(org.name), `/organization/${encodeURIComponent(org.name)}`]] as [string, string][]) : []), [text(d.title) || text(d.name), datasetHref(d)]]} />
      <h1>
        {text(d.title) || text(d.name)} {d.private ? <span class="badge private">{t('common.private')}</span> : null}
      </h1>
      <FollowButton page={page} kind="dataset" id={d.id} />
      <UsageLine page={page} summary={d.tracking_summary} />
      {d.notes ? <Markdown html={renderMarkdown(d.notes)} /> : <p class="muted">{t('common.noDescription')}</p>}
      <h2>{t('dataset.dataAndResources')}</h2>
      {page.ctx.user && (await canEditPackage(page.ctx, { owner_org: d.owner_org ?? null, id: d.id })) ? (
        <p>
          <a class="button" href={`${datasetHref(d)}/resource/new`}>
            {t('dataset.addData')}
          </a>{' '}
          <a class="button" href={`/dataset/edit/${encodeURIComponent(d.name)}`}>
            {t('common.manage')}
          </a>{' '}
          <a href={`/dataset/groups/${encodeURIComponent(d.name)}`}>{t('dataset.groups')}</a>{' '}
          <a href={`/dataset/delete/${encodeURIComponent(d.name)}`}>{t('common.delete')}</a>
          {collaboratorsEnabled(page.ctx) && (await canManageCollaborators(page.ctx, { id: d.id, owner_org: d.owner_org ?? null, creator_user_id: d.creator_user_id ?? null })) ? (
            <>
              {' '}
              <a href={`/dataset/collaborators/${encodeURIComponent(d.name)}`}>{t('dataset.collaborators')}</a>
            </>
          ) : null}
        </p>
      ) : null}
      <Resources d={d} siteUrl={page.deps.config.str('service.site_url')} t={t} />
      {(d.tags ?? []).length ? (
        <>
          <h2>{t('dataset.tags')}</h2>
          <ul class="tags">
            {(d.tags as Dict[]).map((t) => (
              <li>
                <a href={`/dataset?tags=${encodeURIComponent(t.name)}`}>{text(t.display_name || t.name)}</a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {geometry ? <DatasetMap page={page} geometry={geometry} /> : null}
      <h2>{t('dataset.additionalInfo')}</h2>
      <dl class="meta">
        {org ? (
          <>
            <dt>{t('dataset.organization')}</dt>
            <dd>
              <a href={`/organization/${encodeURIComponent(org.name)}`}>{text(org.title) || text(org.name)}</a>
            </dd>
          </>
        ) : null}
        {(d.groups ?? []).length ? (
          <>
            <dt>{t('dataset.groups')}</dt>
            <dd>
              {(d.groups as Dict[]).map((g, i) => (
                <>
                  {i ? ', ' : ''}
                  <a href={`/group/${encodeURIComponent(g.name)}`}>{text(g.display_name || g.title || g.name)}</a>
                </>
              ))}
            </dd>
          </>
        ) : null}
        <dt>{t('dataset.license')}</dt>
        <dd>{d.license_url ? <a href={safeUrl(d.license_url)}>{text(d.license_title || d.license_id)}</a> : text(d.license_title || d.license_id) || t('dataset.licenseNotSpecified')}</dd>
        {(
          [
            [t('dataset.author'), d.author],
            [t('dataset.maintainer'), d.maintainer],
            [t('dataset.version'), d.version],
          ] as [string, unknown][]
        ).map(([label, value]) =>
          value ? (
            <>
              <dt>{label}</dt>
              <dd>{text(value)}</dd>
            </>
          ) : null,
        )}
        {d.url ? (
          <>
            <dt>{t('dataset.source')}</dt>
            <dd>
              <a href={safeUrl(d.url)} rel="nofollow">
                {text(d.url)}
              </a>
            </dd>
          </>
        ) : null}
        {harvested ? (
          <>
            <dt>{t('dataset.harvestedFrom')}</dt>
            <dd>{harvested.href ? <a href={harvested.href}>{harvested.title}</a> : harvested.title}</dd>
          </>
        ) : null}
        <dt>{t('dataset.lastUpdated')}</dt>
        <dd>
          <time datetime={text(d.metadata_modified)}>{page.date(d.metadata_modified)}</time>
        </dd>
        <dt>{t('dataset.created')}</dt>
        <dd>
          <time datetime={text(d.metadata_created)}>{page.date(d.metadata_created)}</time>
        </dd>
        {schema ? <SchemaRows page={page} schema={schema} d={d} /> : null}
        {extras.map((e) => (
          <>
            <dt>{text(e.key)}</dt>
            <dd>{text(e.value)}</dd>
          </>
        ))}
      </dl>
      {activity.length ? (
        <>
          <h2>{t('dataset.activity')}</h2>
          <ul class="items">
            {activity.map((a) => (
              <li>
                {names.get(a.user_id) ?? t('common.someone')} {activityText(a, t, false)} <span class="muted">{page.date(a.timestamp, true)}</span>
              </li>
            ))}
          </ul>
          <p>
            <a href={`/dataset/activity/${encodeURIComponent(d.name)}`}>{t('dataset.allActivity')}</a>
          </p>
        </>
      ) : null}
    </Layout>
  )
}

const PREVIEW_ROWS = 20

export async function resourcePage(page: Page, id: string, resourceId: string) {
  const d: Dict = await call(page, 'package_show', { id, ...(tracking(page) ? { include_tracking: true } : {}) })
  const r = ((d.resources ?? []) as Dict[]).find((x) => x.id === resourceId)
  if (!r) return null
  countUse(page.deps, page.req.headers, page.address, 'page', { id: r.id, packageId: d.id, resource: true })
  // the dataset type's resource_fields, each by its display_snippet, under the resource's own
  const rschema = datasetSchemaOf(page, text(d.type) || 'dataset')
  const params = page.url.searchParams
  let preview: Dict | null = null
  let previewError = ''
  const pageNo = Math.max(1, Math.min(100_000, Number.parseInt(params.get('page') ?? '1', 10) || 1))
  const sort = params.get('sort') ?? ''
  const q = params.get('q') ?? ''
  const tab = datastoreTabOf(params)
  if (r.datastore_active && tab === 'grid') {
    try {
      preview = await call(page, 'datastore_search', {
        resource_id: r.id,
        limit: PREVIEW_ROWS,
        offset: (pageNo - 1) * PREVIEW_ROWS,
        ...(sort ? { sort } : {}),
        ...(q ? { q } : {}),
      })
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e
      previewError = page.t('resource.previewError')
    }
  }
  // a load in progress (the loader's job): shown, and the page refreshes itself (no script needed)
  let load: Dict | null = null
  if (!r.datastore_active) load = await call<Dict>(page, 'xloader_status', { resource_id: r.id }).catch(() => null)
  const loading = !!load && (load.status === 'pending' || load.status === 'running')
  const base = `${datasetHref(d)}/resource/${encodeURIComponent(r.id)}`
  const views = await call<Dict[]>(page, 'resource_view_list', { id: r.id }).catch(() => [] as Dict[])
  const fields = ((preview?.fields ?? []) as Dict[]).filter((f) => f.id !== '_id')
  const t = page.t
  return (
    <Layout refresh={loading ? 5 : undefined} title={`${text(r.name) || t('dataset.resource')} - ${text(d.title) || text(d.name)}`} page={page} alternate={`/api/3/action/resource_show?id=${encodeURIComponent(r.id)}`} description={text(r.description)}>
      <Crumbs page={page} items={[[t('nav.datasets'), '/dataset'], [text(d.title) || text(d.name), datasetHref(d)], [text(r.name) || t('dataset.resource'), base]]} />
      <h1>{text(r.name) || t('dataset.unnamedResource')}</h1>
      <UsageLine page={page} summary={r.tracking_summary} downloads />
      {page.ctx.user && (await canEditPackage(page.ctx, { owner_org: d.owner_org ?? null, id: d.id })) ? (
        <p>
          <a class="button" href={`${base}/edit`}>
            {t('common.edit')}
          </a>{' '}
          <a href={`${base}/delete`}>{t('common.delete')}</a>
        </p>
      ) : null}
      {r.url ? (
        <p>
          <a class="button" href={safeUrl(r.url, page.deps.config.str('service.site_url'))} rel="nofollow">
            {r.url_type === 'upload' || r.url_type === 'datastore' ? t('dataset.download') : t('dataset.goToResource')}
          </a>{' '}
          <span class="muted">{text(r.url)}</span>
        </p>
      ) : null}
      {r.description ? <Markdown html={renderMarkdown(r.description)} /> : null}
      <ResourceViews views={views} r={r} siteUrl={page.deps.config.str('service.site_url')} text={await textPreview(page, views, r)} t={t} />
      {await geoViews(page, views, d, r)}
      {await chartViews(page, views, r)}
      {!r.datastore_active && load ? (
        <section aria-live="polite">
          <h2>{t('resource.preview')}</h2>
          {load.status === 'error' ? (
            <p class="error">{t('resource.loadFailed', { error: text(load.error?.message) || t('resource.unknownError') })}</p>
          ) : (
            <p class="notice">
              {load.task_info?.rows_loaded
                ? t('resource.loadingRows', { status: text(load.status), rows: page.num(load.task_info.rows_loaded) })
                : t('resource.loading', { status: text(load.status) })}
            </p>
          )}
        </section>
      ) : null}
      {r.datastore_active ? (
        <>
          <h2>{t('resource.preview')}</h2>
          <DatastoreDownloads id={text(r.id)} t={t} />
          <DatastoreTabNav page={page} base={base} tab={tab} />
          {tab !== 'grid' ? await datastoreTabPanel(page, tab, d, r, base) : <>
          <form class="searchbar" method="get" action={base} role="search">
            <label for="rq">{t('resource.filterRows')}</label>
            <input id="rq" type="search" name="q" value={q} />
            {sort ? <input type="hidden" name="sort" value={sort} /> : null}
            <button type="submit">{t('resource.filter')}</button>
          </form>
          {previewError ? <p role="alert">{previewError}</p> : null}
          {preview ? (
            <>
              <p>{t(q ? 'resource.rowsMatch' : 'resource.rows', { n: Number(preview.total ?? 0) })}</p>
              <div class="scroll" tabindex={0} role="region" aria-label={t('resource.preview')}>
                <table>
                  <thead>
                    <tr>
                      {fields.map((f) => {
                        const asc = sort === `${f.id} asc` || sort === f.id
                        const next = asc ? `${f.id} desc` : `${f.id} asc`
                        return (
                          <th scope="col" aria-sort={asc ? 'ascending' : sort === `${f.id} desc` ? 'descending' : undefined}>
                            <a href={withParams(base, params, { sort: quoteField(next, f.id) })}>{text(f.id)}</a>
                          </th>
                        )
                      })}
                    </tr>
                  </thead>
                  <tbody>
                    {((preview.records ?? []) as Dict[]).map((rec) => (
                      <tr>
                        {fields.map((f) => (
                          <td>{cell(rec[f.id])}</td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager t={t} page={pageNo} count={Number(preview.total ?? 0)} size={PREVIEW_ROWS} href={(n) => withParams(base, params, { page: n > 1 ? String(n) : undefined })} />
              <h2>{t('resource.dictionary')}</h2>
              <div class="scroll" tabindex={0} role="region" aria-label={t('resource.dictionary')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('resource.column')}</th>
                    <th scope="col">{t('resource.type')}</th>
                    <th scope="col">{t('resource.label')}</th>
                    <th scope="col">{t('common.description')}</th>
                  </tr>
                </thead>
                <tbody>
                  {fields.map((f) => (
                    <tr>
                      <td>{text(f.id)}</td>
                      <td>{text(f.type)}</td>
                      <td>{text(f.info?.label)}</td>
                      <td>{text(f.info?.notes)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              </div>
            </>
          ) : null}
          </>}
        </>
      ) : null}
      <h2>{t('dataset.additionalInfo')}</h2>
      <dl class="meta">
        {(
          [
            ['format', t('resource.field.format')],
            ['mimetype', t('resource.field.mimetype')],
            ['size', t('resource.field.size')],
            ['created', t('resource.field.created')],
            ['last_modified', t('resource.field.last_modified')],
          ] as const
        ).map(([k, label]) =>
          r[k] !== null && r[k] !== undefined && r[k] !== '' ? (
            <>
              <dt>{label}</dt>
              <dd>{k === 'created' || k === 'last_modified' ? page.date(r[k], true) : k === 'size' && typeof r[k] === 'number' ? page.num(r[k]) : text(r[k])}</dd>
            </>
          ) : null,
        )}
        <dt>{t('resource.datastore')}</dt>
        <dd>{r.datastore_active ? t('common.yes') : t('common.no')}</dd>
        {rschema ? <SchemaRows page={page} schema={rschema} fields={rschema.resourceFields} d={r} skip={RESOURCE_OWN} /> : null}
      </dl>
    </Layout>
  )
}

/** A sort clause naming a column in double quotes when it is not a plain identifier. */
function quoteField(clause: string, id: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(id)) return clause
  return `"${id.replace(/"/g, '""')}"${clause.slice(id.length)}`
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}
