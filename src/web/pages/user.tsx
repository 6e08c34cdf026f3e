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
  return (
    <Layout title={name} page={page} alternate={`/api/3/action/user_show?id=${encodeURIComponent(u.name)}`}>
      <Crumbs items={[[name, `/user/${encodeURIComponent(u.name)}`]]} />
      <h1>{name}</h1>
      {page.ctx.user && page.ctx.user.id !== u.id ? <FollowButton page={page} kind="user" id={u.id} /> : null}
      {page.ctx.user && (page.ctx.user.id === u.id || page.ctx.user.sysadmin) ? (
        <p>
          <a class="button" href={`/user/edit/${encodeURIComponent(u.name)}`}>
            Edit profile
          </a>{' '}
          <a href={`/user/${encodeURIComponent(u.name)}/api-tokens`}>API tokens</a>
        </p>
      ) : null}
      {u.about ? <Markdown html={renderMarkdown(u.about)} /> : null}
      <dl class="meta">
        <dt>Username</dt>
        <dd>{text(u.name)}</dd>
        <dt>Member since</dt>
        <dd>{text(u.created).slice(0, 10)}</dd>
        <dt>Datasets</dt>
        <dd>{Number(found.count).toLocaleString('en-US')}</dd>
      </dl>
      <p>
        <a href={`/user/activity/${encodeURIComponent(u.name)}`}>Activity</a>
      </p>
      <h2>Datasets</h2>
      {found.results.length ? <DatasetList items={found.results} /> : <p>No datasets.</p>}
    </Layout>
  )
}
