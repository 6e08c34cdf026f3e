// Issue 18, publishing in the browser: an editor creates a dataset and adds a CSV by upload, the
// loader's progress shows until the preview appears; validation errors sit by their fields;
// following from a page; forms without their CSRF token are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { runOptionsFrom } from '../../src/jobs/runner'
import { nodeJobRunners, type NodeJobRunner } from '../../src/runtime/node-job-runner'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let b: Browser
let org: any
let runners: NodeJobRunner | undefined

beforeAll(async () => {
  t = await setup({ 'service.jobs.poll_ms': '50' })
  const sys = await t.make.sysadmin()
  const editor = await t.make.user({ name: 'pub-editor', password: 'editor password' })
  org = await t.make.organization(sys, { name: 'pub-org', title: 'Publishing Org' })
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
  b = browser((path, init) => t.app.request(path, init))
  await signIn(b, 'pub-editor', 'editor password')
})
afterAll(async () => {
  await runners?.stop()
})

describe('publishing', () => {
  it('sends a visitor to sign in first', async () => {
    const anon = browser((path, init) => t.app.request(path, init))
    const r = await anon.get('/dataset/new')
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/user/login?came_from=%2Fdataset%2Fnew')
  })

  it('creates a dataset with a name made from its title, then shows the add-data form', async () => {
    const form = await b.get('/dataset/new')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain(`<option value="${org.id}"`)
    const r = await b.post('/dataset/new', {
      _csrf_token: csrfOf(form.html),
      title: 'Tide Gauges — 2024!',
      name: '',
      notes: 'Hourly *tide* readings',
      tag_string: 'sea, tides',
      owner_org: org.id,
      license_id: 'cc-by',
      private: 'False',
    })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/dataset/tide-gauges-2024/resource/new')
    const d = await t.ok('package_show', { id: 'tide-gauges-2024' })
    expect(d).toMatchObject({ title: 'Tide Gauges — 2024!', private: false, owner_org: org.id, license_id: 'cc-by' })
    expect(d.tags.map((x: any) => x.name).sort()).toEqual(['sea', 'tides'])
  })

  it('shows the API\'s validation messages by the fields and keeps what was typed', async () => {
    const form = await b.get('/dataset/new')
    const r = await b.post('/dataset/new', { _csrf_token: csrfOf(form.html), title: 'Again', name: 'tide-gauges-2024', notes: 'kept text', owner_org: org.id })
    expect(r.res.status).toBe(409)
    expect(r.html).toContain('That URL is already in use.')
    expect(r.html).toContain('id="name-error"')
    expect(r.html).toContain('aria-invalid="true"')
    expect(r.html).toContain('kept text')
  })

  it('refuses the dataset form without its CSRF token', async () => {
    const r = await b.post('/dataset/new', { title: 'No token', owner_org: org.id })
    expect(r.res.status).toBe(403)
    expect((await t.call('package_show', { id: 'no-token' })).status).toBe(404)
  })

  it('uploads a CSV; the page shows the load in progress, then the preview', async () => {
    const form = await b.get('/dataset/tide-gauges-2024/resource/new')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('enctype="multipart/form-data"')
    const csv = 'station,level\n' + Array.from({ length: 30 }, (_, i) => `T${i},${i / 2}`).join('\n') + '\n'
    const fd = new FormData()
    fd.set('_csrf_token', csrfOf(form.html))
    fd.set('name', 'Readings')
    fd.set('upload', new Blob([csv], { type: 'text/csv' }), 'readings.csv')
    const r = await b.post('/dataset/tide-gauges-2024/resource/new', fd)
    expect(r.res.status).toBe(303)
    const location = r.res.headers.get('location')!
    expect(location).toMatch(/^\/dataset\/tide-gauges-2024\/resource\/[0-9a-f-]{36}$/)

    const waiting = await b.get(location)
    expect(waiting.html).toContain('being loaded into the DataStore')
    expect(waiting.html).toContain('http-equiv="refresh"')
    expect(waiting.html).toMatch(/<a class="button" href="[^"]*\/resource\/[0-9a-f-]{36}\/download\/readings\.csv"/)

    runners = nodeJobRunners(t.deps.jobs, jobKinds, t.deps, runOptionsFrom(t.deps.config))
    runners.start()
    let page = waiting.html
    for (let i = 0; i < 200 && !page.includes('Data dictionary'); i++) {
      await new Promise((r) => setTimeout(r, 50))
      page = (await b.get(location)).html
    }
    expect(page).toContain('30 rows')
    expect(page).toContain('<td>T0</td>')
    expect(page).not.toContain('http-equiv="refresh"')
  })

  it('needs an upload or a URL, and refuses a resource form without its token', async () => {
    const form = await b.get('/dataset/tide-gauges-2024/resource/new')
    const empty = new FormData()
    empty.set('_csrf_token', csrfOf(form.html))
    empty.set('name', 'nothing')
    const r = await b.post('/dataset/tide-gauges-2024/resource/new', empty)
    expect(r.res.status).toBe(409)
    expect(r.html).toContain('Upload a file or give a URL')
    const link = new FormData()
    link.set('url', 'https://example.com/data.csv')
    const refused = await b.post('/dataset/tide-gauges-2024/resource/new', link)
    expect(refused.res.status).toBe(403)
    const d = await t.ok('package_show', { id: 'tide-gauges-2024' })
    expect(d.resources.map((x: any) => x.url)).not.toContain('https://example.com/data.csv')
  })

  it('an editor of another organization cannot add data to this dataset', async () => {
    const outsider = await t.make.user({ name: 'pub-outsider', password: 'outsider password' })
    const o = browser((path, init) => t.app.request(path, init))
    await signIn(o, outsider.name, 'outsider password')
    expect((await o.get('/dataset/tide-gauges-2024/resource/new')).res.status).toBe(404)
  })

  it('follows and unfollows a dataset from its page', async () => {
    const before = await b.get('/dataset/tide-gauges-2024')
    expect(before.html).toContain('action="/dataset/follow/')
    const id = /action="\/dataset\/follow\/([^"]+)"/.exec(before.html)![1]!
    const r = await b.post(`/dataset/follow/${id}`, { _csrf_token: csrfOf(before.html) })
    expect(r.res.status).toBe(303)
    expect(await t.ok('dataset_follower_count', { id })).toBe(1)
    const after = await b.get('/dataset/tide-gauges-2024')
    expect(after.html).toContain('action="/dataset/unfollow/')
    await b.post(`/dataset/unfollow/${id}`, { _csrf_token: csrfOf(after.html) })
    expect(await t.ok('dataset_follower_count', { id })).toBe(0)
    expect((await b.post(`/dataset/follow/${id}`, {})).res.status).toBe(403)
  })
})
