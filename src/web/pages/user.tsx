/** @jsxImportSource hono/jsx */
// /user/<name>: who they are and the datasets they created that the caller may see.
import { DatasetList, Markdown, text } from '../components'
import { Crumbs, Layout } from '../layout'
import { renderMarkdown } from '../markdown'
import { call, siteInfo, type Page } from '../page'
import { phrase } from '../search-query'
import { FollowButton } from './publish'

type Dict = Record<string, any>

export async function userPage(page: Page, id: string) {
  const u: Dict = await call(page, 'user_show', { id })
  const found: Dict = await call(page, 'package_search', { fq: `creator_user_id:${phrase(u.id)}`, rows: 20, sort: 'metadata_modified desc', include_private: true })
  const name = text(u.display_name) || text(u.fullname) || text(u.name)
  const t = page.t
  return (
    <Layout title={name} page={page} alternate={`/api/3/action/user_show?id=${encodeURIComponent(u.name)}`}>
      <Crumbs page={page} items={[[name, `/user/${encodeURIComponent(u.name)}`]]} />
      <h1>{name}</h1>
      {page.ctx.user && page.ctx.user.id !== u.id ? <FollowButton page={page} kind="user" id={u.id} /> : null}
      {page.ctx.user && (page.ctx.user.id === u.id || page.ctx.user.sysadmin) ? (
        <p>
          <a class="button" href={`/user/edit/${encodeURIComponent(u.name)}`}>
            {t('user.editProfile')}
          </a>{' '}
          <a href={`/user/${encodeURIComponent(u.name)}/api-tokens`}>{t('user.apiTokens')}</a>
        </p>
      ) : null}
      {u.about ? <Markdown html={renderMarkdown(u.about)} /> : null}
      <dl class="meta">
        <dt>{t('common.username')}</dt>
        <dd>{text(u.name)}</dd>
        <dt>{t('user.memberSince')}</dt>
        <dd>{page.date(u.created)}</dd>
        <dt>{t('user.datasets')}</dt>
        <dd>{page.num(found.count)}</dd>
      </dl>
      <p>
        <a href={`/user/activity/${encodeURIComponent(u.name)}`}>{t('common.activity')}</a>
      </p>
      <h2>{t('user.datasets')}</h2>
      {found.results.length ? <DatasetList items={found.results} t={t} /> : <p>{t('user.noDatasets')}</p>}
    </Layout>
  )
}
