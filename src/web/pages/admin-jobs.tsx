/** @jsxImportSource hono/jsx */
// The sysadmin pages under CKAN's /ckan-admin: the index of the admin pages, and /ckan-admin/jobs,
// the background job queue at a glance so an operator sees a stuck queue (issue 33): how many jobs
// wait, how long the oldest has waited, the running jobs and the latest failures. The figures are
// status_show's `jobs`, which that action gives sysadmins only; anyone else gets CKAN's 403 page.
import type { Child } from 'hono/jsx'
import { NotAuthorized } from '../../errors'
import type { QueueStats } from '../../jobs/job-queue'
import { isoToMs } from '../../lib/time'
import { text } from '../components'
import { Crumbs, Layout } from '../layout'
import { call, type Page } from '../page'
import type { Outcome } from './account'

type Dict = Record<string, any>
const enc = encodeURIComponent

/** How many failed jobs the page lists, the most recent first. */
const FAILED_SHOWN = 5
/** The longest error text shown of a failed job (its stack, as the runner recorded it). */
const ERROR_CHARS = 4000

/** A duration as people read it: "45 s", "3 min", "2 h 5 min", "1 d 3 h". */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.floor(m / 60)
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`
}

const secondsSince = (page: Page, iso: string) => (isoToMs(page.deps.now()) - isoToMs(iso)) / 1000

/**
 * status_show's job figures when the caller is a sysadmin (the API's rule: that action answers
 * `jobs` to sysadmins only, and refuses a deleted account); null: the caller is refused.
 */
async function queueStats(page: Page): Promise<QueueStats | null> {
  if (!page.ctx.user?.sysadmin) return null
  try {
    const status = await call<{ jobs?: QueueStats }>(page, 'status_show')
    return status.jobs ?? null
  } catch (e) {
    if (e instanceof NotAuthorized) return null
    throw e
  }
}

/** ckan: the admin pages answer 403 to anyone but a sysadmin ("Need to be system administrator to administer"). */
export function forbidden(page: Page): Outcome {
  const signIn = `/user/login?came_from=${enc(page.url.pathname)}`
  return {
    view: (
      <Layout page={page} title="Not authorized">
        <h1>Not authorized</h1>
        <p>Need to be system administrator to administer</p>
        {page.ctx.user ? null : (
          <p>
            <a href={signIn}>{page.t('nav.signIn')}</a>
          </p>
        )}
      </Layout>
    ),
    status: 403,
  }
}

// --- /ckan-admin -------------------------------------------------------------------------------

/** /ckan-admin: the admin pages there are, with the queue's state beside the jobs link. */
export async function adminIndexPage(page: Page): Promise<Child | Outcome> {
  const stats = await queueStats(page)
  if (!stats) return forbidden(page)
  return (
    <Layout page={page} title="Administration">
      <h1>Administration</h1>
      <nav aria-label="Administration pages">
        <ul>
          <li>
            <a href="/ckan-admin/jobs">Jobs</a>{' '}
            <span class="muted">
              (background job queue: {page.num(stats.queued)} queued, {page.num(stats.running.length)} running)
            </span>
          </li>
          <li>
            <a href="/ckan-admin/usage">{page.t('admin.usage')}</a>
          </li>
        </ul>
      </nav>
    </Layout>
  )
}

// --- /ckan-admin/jobs --------------------------------------------------------------------------

/** What a job's payload names, as a link where the caller may open it; null when it names nothing known. */
async function subjectOf(page: Page, payload: unknown): Promise<Child> {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Dict
  if (typeof p.resource_id === 'string' && p.resource_id) {
    const r = await call<Dict>(page, 'resource_show', { id: p.resource_id }).catch(() => null)
    if (!r) return <>Resource <span class="mono">{p.resource_id}</span></>
    return (
      <>
        Resource <a href={`/dataset/${enc(text(r.package_id))}/resource/${enc(text(r.id))}`}>{text(r.name) || text(r.id)}</a>
      </>
    )
  }
  if (typeof p.harvest_job_id === 'string' && p.harvest_job_id) {
    const j = await call<Dict>(page, 'harvest_job_show', { id: p.harvest_job_id }).catch(() => null)
    if (!j?.source_id) return <>Harvest job <span class="mono">{p.harvest_job_id}</span></>
    return (
      <>
        Harvest job <a href={`/harvest/${enc(text(j.source_id))}/job/${enc(p.harvest_job_id)}`}>{p.harvest_job_id}</a>
      </>
    )
  }
  return null
}

const When = ({ page, iso }: { page: Page; iso: string | null }) =>
  iso ? <time datetime={iso}>{page.date(iso, true)}</time> : <span class="muted">–</span>

/** /ckan-admin/jobs: queue depth, the oldest waiting job's age, the running jobs, the latest failures. */
export async function adminJobsPage(page: Page): Promise<Child | Outcome> {
  const stats = await queueStats(page)
  if (!stats) return forbidden(page)
  // the payloads (what each job is for) of the running jobs, and the failed jobs, from the queue
  const [running, failed] = await Promise.all([
    page.ctx.jobs.list({ status: ['running'] }),
    page.ctx.jobs.list({ status: ['failed'], latest: FAILED_SHOWN }),
  ])
  const payloads = new Map(running.map((j) => [j.id, j.payload]))
  const [runningFor, failedFor] = await Promise.all([
    Promise.all(stats.running.map((j) => subjectOf(page, payloads.get(j.id)))),
    Promise.all(failed.map((j) => subjectOf(page, j.payload))),
  ])
  const oldest = stats.oldest_queued
  const now = page.deps.now()
  return (
    <Layout page={page} title="Jobs" alternate="/api/3/action/status_show">
      <Crumbs page={page} items={[['Administration', '/ckan-admin'], ['Jobs', '/ckan-admin/jobs']]} />
      <h1>Jobs</h1>
      <ul class="stats" aria-label="The queue at a glance">
        <li id="queued">
          <b>{page.num(stats.queued)}</b> queued
        </li>
        <li id="oldest-age">
          <b>{oldest ? formatAge(oldest.age_seconds) : '–'}</b> oldest queued job's wait
        </li>
        <li id="running">
          <b>{page.num(stats.running.length)}</b> running
        </li>
      </ul>
      {oldest ? (
        <p>
          The job waiting longest is <strong>{oldest.title || oldest.kind}</strong> ({oldest.kind}, queue {oldest.queue}), queued{' '}
          <When page={page} iso={oldest.created} />: it has waited {formatAge(oldest.age_seconds)}.
        </p>
      ) : (
        <p class="muted">No job is waiting.</p>
      )}

      <h2>Running</h2>
      <div class="scroll">
        <table>
          <caption>Running jobs, the longest running first (a lease in the past means its runner stopped)</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Queue</th>
              <th scope="col">For</th>
              <th scope="col">Started</th>
              <th scope="col">Attempts</th>
              <th scope="col">Lease until</th>
            </tr>
          </thead>
          <tbody>
            {stats.running.length ? (
              stats.running.map((j, i) => (
                <tr>
                  <th scope="row">{j.title || j.kind}</th>
                  <td>{j.kind}</td>
                  <td>{j.queue}</td>
                  <td>{runningFor[i] ?? <span class="muted">–</span>}</td>
                  <td>
                    <When page={page} iso={j.started} />
                    {j.started ? <span class="muted"> ({formatAge(secondsSince(page, j.started))} ago)</span> : null}
                  </td>
                  <td>{page.num(j.attempts)}</td>
                  <td>
                    <When page={page} iso={j.lease_until} />
                    {j.lease_until && j.lease_until < now ? <span class="error"> expired: its runner stopped</span> : null}
                  </td>
                </tr>
              ))
            ) : (
              <tr>
                <td colspan={7} class="muted">
                  No job is running.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>

      <h2>Failed</h2>
      <div class="scroll">
        <table>
          <caption>The most recent failed jobs (at most {FAILED_SHOWN}), the latest first</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Queue</th>
              <th scope="col">For</th>
              <th scope="col">Failed</th>
              <th scope="col">Attempts</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {failed.length ? (
              failed.map((j, i) => {
                const error = (j.error ?? '').slice(0, ERROR_CHARS)
                const [first = '', ...rest] = error.split('\n')
                return (
                  <tr>
                    <th scope="row">{j.title || j.kind}</th>
                    <td>{j.kind}</td>
                    <td>{j.queue}</td>
                    <td>{failedFor[i] ?? <span class="muted">–</span>}</td>
                    <td>
                      <When page={page} iso={j.ended} />
                    </td>
                    <td>{page.num(j.attempts)}</td>
                    <td>
                      {first}
                      {rest.length ? (
                        <details>
                          <summary>Details</summary>
                          <pre class="mono">{error}</pre>
                        </details>
                      ) : null}
                    </td>
                  </tr>
                )
              })
            ) : (
              <tr>
                <td colspan={7} class="muted">
                  No job has failed.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </Layout>
  )
}
