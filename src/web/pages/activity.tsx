/** @jsxImportSource hono/jsx */
// Activity streams on CKAN's URLs: /dataset/activity/<name>, /organization/activity/<name>,
// /group/activity/<name>, /user/activity/<name>, newest first, paged by `offset` as CKAN 2.9 does.
// The *_activity_list actions decide what the caller may see (private datasets' activity included
// only for their readers).
import { actorNames, text } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import { activityText } from './account'

type Dict = Record<string, any>
export type ActivityKind = 'dataset' | 'organization' | 'group' | 'user'

const PAGE = 30
const LIST: Record<ActivityKind, string> = {
  dataset: 'package_activity_list',
  organization: 'organization_activity_list',
  group: 'group_activity_list',
  user: 'user_activity_list',
}
const SHOW: Record<ActivityKind, [string, Dict]> = {
  dataset: ['package_show', {}],
  organization: ['organization_show', { include_datasets: false, include_users: false, include_extras: false, include_followers: false }],
  group: ['group_show', { include_datasets: false, include_users: false, include_extras: false, include_followers: false }],
  user: ['user_show', {}],
}
const PLURAL = {
  dataset: ['nav.datasets', '/dataset'],
  organization: ['nav.organizations', '/organization'],
  group: ['nav.groups', '/group'],
  user: ['nav.users', '/user'],
} as const

export async function activityPage(page: Page, kind: ActivityKind, id: string) {
  const [show, extra] = SHOW[kind]
  const o: Dict = await call(page, show, { id, ...extra })
  const offset = Math.min(100_000, Math.max(0, Number.parseInt(page.url.searchParams.get('offset') ?? '0', 10) || 0))
  // one more than a page: whether there is an older page
  const list = await call<Dict[]>(page, LIST[kind], { id: o.id, offset, limit: PAGE + 1 })
  const items = list.slice(0, PAGE)
  const names = await actorNames(page, items)
  const title = text(o.display_name) || text(o.title) || text(o.fullname) || text(o.name)
  const href = `/${kind}/${encodeURIComponent(o.name)}`
  const base = `/${kind}/activity/${encodeURIComponent(o.name)}`
  const t = page.t
  const crumbs: [string, string][] =
    kind === 'user' ? [[title, href], [t('common.activity'), base]] : [[t(PLURAL[kind][0]), PLURAL[kind][1]], [title, href], [t('common.activity'), base]]
  return (
    <Layout page={page} title={t('activity.title', { title })}>
      <Crumbs page={page} items={crumbs} />
      <h1>{t('activity.heading', { title })}</h1>
      {items.length ? (
        <ul class="items">
          {items.map((a) => (
            <li>
              <span>{names.get(a.user_id) ?? t('common.someone')}</span> {activityText(a, t)} <span class="muted">{page.date(a.timestamp, true)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">{offset ? t('activity.noneOlder') : t('activity.none')}</p>
      )}
      <nav aria-label={t('activity.pages')}>
        <ul class="pager">
          {offset > 0 ? (
            <li>
              <a href={offset - PAGE > 0 ? `${base}?offset=${offset - PAGE}` : base}>{t('activity.newer')}</a>
            </li>
          ) : null}
          {list.length > PAGE ? (
            <li>
              <a href={`${base}?offset=${offset + PAGE}`}>{t('activity.older')}</a>
            </li>
          ) : null}
        </ul>
      </nav>
    </Layout>
  )
}
