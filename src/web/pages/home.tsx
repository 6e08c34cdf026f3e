/** @jsxImportSource hono/jsx */
// The front page: search box, counts, the newest datasets, the largest organizations.
import { DatasetList, Markdown, excerpt } from '../components'
import { Layout } from '../layout'
import { renderMarkdown } from '../markdown'
import { call, siteInfo, type Page } from '../page'

type Dict = Record<string, any>
const text = (v: unknown) => (typeof v === 'string' ? v : '')

export async function homePage(page: Page) {
  const site = siteInfo(page)
  const [newest, orgs, groups] = await Promise.all([
    call<Dict>(page, 'package_search', { rows: 5, sort: 'metadata_created desc', include_private: true }),
    call<Dict[]>(page, 'organization_list', { all_fields: true, sort: 'package_count', limit: 6 }),
    call<string[]>(page, 'group_list', { limit: 1000 }),
  ])
  const orgNames: string[] = await call(page, 'organization_list', { limit: 1000 })
  return (
    <Layout title="" page={page}>
      <section class="hero">
        <h1>{site.title}</h1>
        {site.intro ? <Markdown html={renderMarkdown(site.intro)} /> : site.description ? <p>{site.description}</p> : null}
        <form method="get" action="/dataset" role="search">
          <label class="skip" for="home-q">
            Search datasets
          </label>
          <input id="home-q" type="search" name="q" placeholder="Search datasets" />
          <button type="submit">Search</button>
        </form>
      </section>
      <ul class="stats" aria-label="Statistics">
        <li>
          <a href="/dataset">
            <b>{Number(newest.count).toLocaleString('en-US')}</b> datasets
          </a>
        </li>
        <li>
          <a href="/organization">
            <b>{orgNames.length.toLocaleString('en-US')}</b> organizations
          </a>
        </li>
        <li>
          <a href="/group">
            <b>{groups.length.toLocaleString('en-US')}</b> groups
          </a>
        </li>
      </ul>
      <h2>New datasets</h2>
      {newest.results.length ? <DatasetList items={newest.results} /> : <p>No datasets yet.</p>}
      {orgs.length ? (
        <>
          <h2>Organizations</h2>
          <ul class="cards">
            {orgs.map((o) => (
              <li>
                <h3>
                  <a href={`/organization/${encodeURIComponent(o.name)}`}>{text(o.display_name) || text(o.title) || text(o.name)}</a>
                </h3>
                {o.description ? <p>{excerpt(o.description, 100)}</p> : null}
                <p class="muted">{Number(o.package_count ?? 0).toLocaleString('en-US')} datasets</p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Layout>
  )
}

export function aboutPage(page: Page) {
  const site = siteInfo(page)
  return (
    <Layout title="About" page={page}>
      <h1>About {site.title}</h1>
      {site.about ? <Markdown html={renderMarkdown(site.about)} /> : <p>{site.description}</p>}
    </Layout>
  )
}
