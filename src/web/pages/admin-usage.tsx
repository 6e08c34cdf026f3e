/** @jsxImportSource hono/jsx */
// /ckan-admin/usage (sysadmins; service.tracking_enabled): the usage figures at a glance, the most
// used datasets and resources and the uses per day, in the page's language. Private datasets are
// listed too: only sysadmins see the page.
import type { Child } from 'hono/jsx'
import { recentSince, usageReport, type UsageRow } from '../../model/usage'
import { Crumbs, Layout } from '../layout'
import type { Page } from '../page'
import { forbidden } from './admin-jobs'
import type { Outcome } from './account'

const enc = encodeURIComponent
/** Rows of each table. */
const SHOWN = 25

function Figures({ page, rows, resources }: { page: Page; rows: UsageRow[]; resources: boolean }) {
  const t = page.t
  return (
    <div class="scroll">
      <table>
        <caption>{resources ? t('usage.resources') : t('usage.datasets')}</caption>
        <thead>
          <tr>
            <th scope="col">{resources ? t('usage.resource') : t('usage.dataset')}</th>
            <th scope="col">{t('usage.recent')}</th>
            <th scope="col">{t('usage.total')}</th>
            <th scope="col">{t('usage.pageViews')}</th>
            <th scope="col">{t('usage.apiReads')}</th>
            <th scope="col">{t('usage.downloadsCol')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <th scope="row">
                <a href={resources ? `/dataset/${enc(r.package_name)}/resource/${enc(r.id)}` : `/dataset/${enc(r.package_name)}`}>{r.title || r.package_name}</a>
              </th>
              <td>{page.num(r.recent)}</td>
              <td>{page.num(r.total)}</td>
              <td>{page.num(r.page)}</td>
              <td>{page.num(r.api)}</td>
              <td>{page.num(r.download)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export async function adminUsagePage(page: Page): Promise<Child | Outcome> {
  if (!page.ctx.user?.sysadmin) return forbidden(page)
  const t = page.t
  const config = page.deps.config
  const days = config.int('service.tracking.recent_days')
  const on = config.bool('service.tracking_enabled')
  const report = on ? await usageReport(page.ctx.read, recentSince(days), SHOWN) : null
  return (
    <Layout page={page} title={t('usage.title')}>
      <Crumbs page={page} items={[['Administration', '/ckan-admin'], [t('usage.title'), '/ckan-admin/usage']]} />
      <h1>{t('usage.title')}</h1>
      {!report ? (
        <p class="muted">{t('usage.off')}</p>
      ) : (
        <>
          <p>{t('usage.intro', { days })}</p>
          {report.datasets.length || report.resources.length ? (
            <>
              <Figures page={page} rows={report.datasets} resources={false} />
              <Figures page={page} rows={report.resources} resources />
              <div class="scroll">
                <table>
                  <caption>{t('usage.days')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('usage.day')}</th>
                      <th scope="col">{t('usage.pageViews')}</th>
                      <th scope="col">{t('usage.apiReads')}</th>
                      <th scope="col">{t('usage.downloadsCol')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.days.map((d) => (
                      <tr>
                        <th scope="row">
                          <time datetime={d.day}>{page.date(d.day)}</time>
                        </th>
                        <td>{page.num(d.page)}</td>
                        <td>{page.num(d.api)}</td>
                        <td>{page.num(d.download)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : (
            <p class="muted">{t('usage.none')}</p>
          )}
        </>
      )}
    </Layout>
  )
}
