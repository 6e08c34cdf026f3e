// Issue 33, item 5: the sysadmin jobs page (/ckan-admin/jobs) shows the queue's depth, the oldest
// queued job's age, the running jobs and the latest failures, as status_show does for sysadmins;
// /ckan-admin links to it. Anonymous visitors and ordinary users get the 403 page, no figures.
import { beforeAll, describe, expect, it } from 'vitest'
import { formatAge } from '../../src/web/pages/admin-jobs'
import { addMs } from '../../src/lib/time'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { browser, signIn } from '../helpers/web-browser'

let t: TestEnv
let sys: Caller & { name: string }
let user: Caller & { name: string }
let resource: { id: string; package_id: string; name: string }
const ghost = 'no-such-resource-0000'
let waiting: { id: string }[]

/** The HTML of `path` as the caller (an API key in the header, as scripts send it). */
const page = (path: string, as?: Caller | null) => t.get(path, as)

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
  const ds = await t.make.dataset(sys)
  resource = await t.ok('resource_create', { package_id: ds.id, name: 'Rainfall table', url: 'https://example.com/rain.csv', format: 'CSV' }, sys)
  // no runner runs in tests: drop what the resource's creation queued, then make the queue's state
  await t.deps.jobs.clear()
  // one job running: claimed as a runner would
  await t.deps.jobs.enqueue({ kind: 'xloader', payload: { resource_id: resource.id } })
  const claimed = await t.deps.jobs.claim(['default'], 60_000)
  expect(claimed?.payload).toEqual({ resource_id: resource.id })
  // one failed, in a queue of its own
  await t.deps.jobs.enqueue({ kind: 'xloader', payload: { resource_id: ghost }, queue: 'failing', title: 'load that broke' })
  const doomed = await t.deps.jobs.claim(['failing'], 60_000)
  await t.deps.jobs.fail(doomed!, new Error('The file was gone: HTTP 404'))
  // three waiting, the first of them queued three minutes ago
  waiting = []
  for (const title of ['oldest waiting load', 'second load', 'third load']) {
    waiting.push(await t.deps.jobs.enqueue({ kind: 'xloader', payload: { resource_id: ghost }, title }))
  }
  await t.client.execute({ sql: 'UPDATE job SET created = ? WHERE id = ?', args: [addMs(t.deps.now(), -(3 * 60 + 5) * 1000), waiting[0]!.id] })
})

describe('/ckan-admin/jobs', () => {
  it('shows a sysadmin the queue depth, the oldest queued job and its age, as status_show does', async () => {
    const r = await page('/ckan-admin/jobs', sys)
    expect(r.status).toBe(200)
    expect(r.text).toMatch(/<li id="queued"><b>3<\/b> queued<\/li>/)
    expect(r.text).toMatch(/<li id="oldest-age"><b>3 min<\/b> oldest queued job/)
    expect(r.text).toContain('<strong>oldest waiting load</strong>')
    expect(r.text).toMatch(/<li id="running"><b>1<\/b> running<\/li>/)
    const status = await t.ok('status_show', {}, sys)
    expect(status.jobs.queued).toBe(3)
    expect(status.jobs.oldest_queued.title).toBe('oldest waiting load')
    expect(status.jobs.oldest_queued.age_seconds).toBeGreaterThanOrEqual(185)
  })

  it('lists the running job with what it is for, when it started and its attempts', async () => {
    const r = await page('/ckan-admin/jobs', sys)
    const running = r.text.slice(r.text.indexOf('<caption>Running jobs'), r.text.indexOf('<caption>The most recent failed'))
    expect(running).toContain(`<th scope="row">xloader: ${resource.id}</th>`)
    expect(running).toContain(`href="/dataset/${resource.package_id}/resource/${resource.id}">Rainfall table</a>`)
    expect(running).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">/)
    expect(running).toMatch(/<td>1<\/td>/) // attempts
    expect(running).not.toContain('oldest waiting load') // waiting jobs are not running
    expect(running).not.toContain('expired')
  })

  it('lists the latest failed jobs with their error', async () => {
    const r = await page('/ckan-admin/jobs', sys)
    const failed = r.text.slice(r.text.indexOf('<caption>The most recent failed'))
    expect(failed).toContain('<th scope="row">load that broke</th>')
    expect(failed).toContain('Error: The file was gone: HTTP 404')
    expect(failed).toContain('<details><summary>Details</summary>') // the stack, without JavaScript
    expect(failed).toContain(`<span class="mono">${ghost}</span>`) // a resource that does not exist: its id
  })

  it('is a plain, accessible page: table captions and column headers', async () => {
    const r = await page('/ckan-admin/jobs', sys)
    expect(r.type).toContain('text/html')
    expect(r.text.match(/<caption>/g)).toHaveLength(2)
    expect(r.text.match(/<th scope="col">/g)!.length).toBeGreaterThanOrEqual(14)
    expect(r.text).not.toContain('<script')
    expect(r.text).toContain('href="/ckan-admin"') // the breadcrumb back to the index
  })

  it('shows a signed-in sysadmin (session cookie) the page too', async () => {
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, sys.name, 'password123')
    const r = await b.get('/ckan-admin/jobs')
    expect(r.res.status).toBe(200)
    expect(r.html).toMatch(/<b>3<\/b> queued/)
    // the header links a sysadmin to the admin pages; an ordinary user's has no such link
    expect((await b.get('/dataset')).html).toContain('<a href="/ckan-admin">Sysadmin</a>')
    const plain = browser((path, init) => t.app.request(path, init))
    await signIn(plain, user.name, 'password123')
    expect((await plain.get('/dataset')).html).not.toContain('href="/ckan-admin"')
  })

  it('refuses an anonymous visitor with the 403 page and no figures', async () => {
    const r = await page('/ckan-admin/jobs')
    expect(r.status).toBe(403)
    expect(r.text).toContain('Need to be system administrator to administer')
    expect(r.text).toContain('href="/user/login?came_from=%2Fckan-admin%2Fjobs"')
    for (const leak of ['queued', 'oldest waiting load', 'xloader', 'The file was gone', '<table']) expect(r.text).not.toContain(leak)
  })

  it('refuses an ordinary user, by API key or signed in, with the 403 page and no figures', async () => {
    const byKey = await page('/ckan-admin/jobs', user)
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, user.name, 'password123')
    const signed = await b.get('/ckan-admin/jobs')
    for (const [status, html] of [
      [byKey.status, byKey.text],
      [signed.res.status, signed.html],
    ] as const) {
      expect(status).toBe(403)
      expect(html).toContain('Need to be system administrator to administer')
      for (const leak of ['queued', 'oldest waiting load', 'xloader', 'The file was gone', '<table']) expect(html).not.toContain(leak)
    }
    // the API agrees: no queue figures for them
    expect((await t.ok('status_show', {}, user)).jobs).toBeUndefined()
    expect((await t.call('job_list', {}, user)).status).toBe(403)
  })
})

describe('/ckan-admin', () => {
  it('links a sysadmin to the jobs page, with the queue in brief', async () => {
    for (const path of ['/ckan-admin', '/ckan-admin/']) {
      const r = await page(path, sys)
      expect(r.status).toBe(200)
      expect(r.text).toContain('<a href="/ckan-admin/jobs">Jobs</a>')
      expect(r.text).toContain('3 queued, 1 running')
    }
  })

  it('refuses everybody else with the 403 page', async () => {
    for (const as of [null, user]) {
      const r = await page('/ckan-admin', as)
      expect(r.status).toBe(403)
      expect(r.text).not.toContain('/ckan-admin/jobs')
      expect(r.text).not.toContain('queued')
    }
  })
})

describe('formatAge', () => {
  it('reads as people read durations', () => {
    expect([0, 45, 60, 185, 3600, 7500, 86400, 97200].map(formatAge)).toEqual(['0 s', '45 s', '1 min', '3 min', '1 h', '2 h 5 min', '1 d', '1 d 3 h'])
  })
})
