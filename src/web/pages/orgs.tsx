/** @jsxImportSource hono/jsx */
// /organization, /organization/<name>, /group, /group/<name>: the lists and each one's datasets.
import { excerpt, Markdown, text } from '../components'
import { Crumbs, Layout } from '../layout'
import { renderMarkdown } from '../markdown'
import { call, siteInfo, type Page } from '../page'
import { phrase } from '../search-query'
import { datasetSearch } from './datasets'
import { FollowButton } from './publish'
import { isGroupAdmin } from '../../auth/group'
import { groupSchemaOf, SchemaRows } from '../scheming'
import { findGroup } from '../../model/group'

type Dict = Record<string, any>
export type Kind = 'organization' | 'group'

export async function listPage(page: Page, kind: Kind) {
  const q = page.url.searchParams.get('q') ?? ''
  const t = page.t
  const title = t('orgs.title', { kind })
  // dataset counts from the search's facet (one index lookup) rather than counted in SQL per list
  const facet = kind === 'organization' ? 'organization' : 'groups'
  const [items, counted] = await Promise.all([
    call<Dict[]>(page, `${kind}_list`, { all_fields: true, include_dataset_count: false, sort: 'title asc', ...(q ? { q } : {}), limit: 1000 }),
    call<Dict>(page, 'package_search', { rows: 0, 'facet.field': JSON.stringify([facet]), 'facet.limit': -1, include_private: true }),
  ])
  const counts = new Map<string, number>(((counted.search_facets?.[facet]?.items ?? []) as Dict[]).map((i) => [String(i.name), Number(i.count)]))
  for (const o of items) o.package_count = counts.get(o.name) ?? 0
  return (
    <Layout title={title} page={page} alternate={`/api/3/action/${kind}_list?all_fields=true`}>
      <h1>{title}</h1>
      {page.ctx.user && (page.ctx.user.sysadmin || page.deps.config.bool(`service.auth.user_create_${kind}s`)) ? (
        <p>
          <a class="button" href={`/${kind}/new`}>
            {t('orgs.add', { kind })}
          </a>
        </p>
      ) : null}
      <form class="searchbar" method="get" action={`/${kind}`} role="search">
        <label for="oq">{t('orgs.search', { kind })}</label>
        <input id="oq" type="search" name="q" value={q} />
        <button type="submit">{t('search.button')}</button>
      </form>
      {items.length ? (
        <ul class="cards">
          {items.map((o) => (
            <li>
              <h2>
                <a href={`/${kind}/${encodeURIComponent(o.name)}`}>{text(o.display_name) || text(o.title) || text(o.name)}</a>
              </h2>
              {o.description ? <p>{excerpt(o.description, 120)}</p> : null}
              <p class="muted">
                {page.num(o.package_count)} {t('common.datasetWord', { n: Number(o.package_count ?? 0) })}
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t('orgs.none', { kind })}</p>
      )}
    </Layout>
  )
}

/** An organization's or group's own schema fields (its type's), by their display_snippet. */
function GroupSchemaInfo({ page, kind, o }: { page: Page; kind: Kind; o: Dict }) {
  const schema = groupSchemaOf(page, kind, text(o.type) || kind)
  if (!schema || !schema.fields.some((cf) => !cf.core && o[cf.name] !== undefined && o[cf.name] !== '')) return null
  return (
    <dl class="meta">
      <SchemaRows page={page} schema={schema} d={o} />
    </dl>
  )
}

/** /<kind>/<name>, and /<type>/<name> for an organization or group of a schema's type (`type`: the page is that type's only). */
export async function readPage(page: Page, kind: Kind, id: string, type?: string) {
  // the page shows the name, title and description; the datasets and counts come from the search
  const o: Dict = await call(page, `${kind}_show`, {
    id,
    include_datasets: false,
    include_dataset_count: false,
    include_extras: !!page.deps.schemas,
    include_users: false,
    include_groups: false,
    include_tags: false,
    include_followers: false,
  })
  if (type && o.type !== type) return null
  const fq = kind === 'organization' ? `owner_org:${phrase(o.id)}` : `groups:${phrase(o.name)}`
  const found = await datasetSearch(page, `/${kind}/${encodeURIComponent(o.name)}`, fq)
  const view = 'view' in found ? found.view : null // no area filter here, so never a redirect
  const title = text(o.display_name) || text(o.title) || text(o.name)
  return (
    <Layout title={title} page={page} alternate={`/api/3/action/${kind}_show?id=${encodeURIComponent(o.id)}`} description={text(o.description)}>
      <Crumbs page={page} items={[[page.t('orgs.title', { kind }), `/${kind}`], [title, `/${kind}/${encodeURIComponent(o.name)}`]]} />
      <h1>{title}</h1>
      <FollowButton page={page} kind={kind} id={o.id} />
      {page.ctx.user && (await isGroupAdmin(page.ctx, (await findGroup(page.ctx, o.id))!)) ? (
        <p>
          <a class="button" href={`/${kind}/edit/${encodeURIComponent(o.name)}`}>
            {page.t('common.manage')}
          </a>{' '}
          <a href={`/${kind}/members/${encodeURIComponent(o.name)}`}>{page.t('common.members')}</a>
        </p>
      ) : null}
      {o.description ? <Markdown html={renderMarkdown(o.description)} /> : null}
      <GroupSchemaInfo page={page} kind={kind} o={o} />
      <p>
        <a href={`/${kind}/activity/${encodeURIComponent(o.name)}`}>{page.t('common.activity')}</a>
      </p>
      {view}
    </Layout>
  )
}
