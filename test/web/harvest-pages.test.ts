// Harvest sources in the browser (ckanext-harvest's URLs): the list, the form, the source with its
// Reharvest and Clear buttons, the jobs and a job's report after a run against a local server, a
// harvested record's content, and "Harvested from" on a harvested dataset. Who sees what is the
// actions' rule: a private source is the 404 page to outsiders, jobs only to its editors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { drainAll, runHarvest, useListHarvester } from '../helpers/harvest'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

useListHarvester()

let feed: { datasets: { guid: string; dataset: Record<string, unknown> }[] } = { datasets: [] }
let remote: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: any
let org: any
let editor: Browser
let member: Browser
let outsider: Browser
let admin: Browser

const visitor = () => browser((path, init) => t.app.request(path, init))

beforeAll(async () => {
  remote = await listen(new Hono().get('/list.json', (c) => c.json(feed)).get('/other.json', (c) => c.json({ datasets: [] })).get('/secret.json', (c) => c.json(feed)) as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
  for (const name of ['hp-editor', 'hp-member', 'hp-outsider']) await t.make.user({ name, password: `${name} password` })
  org = await t.ok('organization_create', { name: 'hp-org', title: 'Harvest Org' }, sys)
  await t.ok('organization_member_create', { id: org.id, username: 'hp-editor', role: 'editor' }, sys)
  await t.ok('organization_member_create', { id: org.id, username: 'hp-member', role: 'member' }, sys)
  editor = visitor()
  member = visitor()
  outsider = visitor()
  admin = visitor()
  await signIn(editor, 'hp-editor', 'hp-editor password')
  await signIn(member, 'hp-member', 'hp-member password')
  await signIn(outsider, 'hp-outsider', 'hp-outsider password')
  await signIn(admin, sys.name, 'password123')
})
afterAll(() => remote.close())

describe('the harvest source form', () => {
  it('is offered to those who may create sources only', async () => {
    expect((await editor.get('/harvest')).html).toContain('href="/harvest/new"')
    expect((await admin.get('/harvest')).html).toContain('href="/harvest/new"')
    expect((await outsider.get('/harvest')).html).not.toContain('href="/harvest/new"')
    expect((await member.get('/harvest')).html).not.toContain('href="/harvest/new"') // members may not create datasets
    expect((await visitor().get('/harvest')).html).not.toContain('href="/harvest/new"')
    const anon = await visitor().get('/harvest/new')
    expect(anon.res.status).toBe(303)
    expect(anon.res.headers.get('location')).toContain('/user/login')
  })

  it('shows the harvesters, frequencies and organizations, and the errors with the form', async () => {
    const form = await editor.get('/harvest/new')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('name="source_type" value="test_list"')
    expect(form.html).toContain('<option value="WEEKLY">')
    expect(form.html).toContain(`<option value="${org.id}">Harvest Org</option>`)
    const csrf = csrfOf(form.html)
    const bad = await editor.post('/harvest/new', { _csrf_token: csrf, url: 'not a url', title: 'Broken', source_type: 'test_list', frequency: 'MANUAL', config: '{oops', owner_org: org.id })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('role="alert"')
    expect(bad.html).toContain('id="url-error"')
    expect(bad.html).toContain('id="config-error"')
    expect(bad.html).toContain('value="Broken"') // the values stay
    expect(bad.html).toContain('{oops</textarea>')
    const noType = await editor.post('/harvest/new', { _csrf_token: csrf, url: `${remote.url}/list.json`, title: 'No type', frequency: 'MANUAL', owner_org: org.id })
    expect(noType.res.status).toBe(409)
    expect(noType.html).toContain('id="source_type-error"')
    expect((await editor.post('/harvest/new', { url: `${remote.url}/list.json`, title: 'No token', source_type: 'test_list' })).res.status).toBe(403)
    // the form posted into an organization the user may not create in: refused with the form
    const form2 = await outsider.get('/harvest/new')
    expect(form2.res.status).toBe(200)
    expect(form2.html).not.toContain(`value="${org.id}"`)
    const refused = await outsider.post('/harvest/new', { _csrf_token: csrfOf(form2.html), url: `${remote.url}/list.json`, title: 'Intruder', source_type: 'test_list', frequency: 'MANUAL', owner_org: org.id })
    expect(refused.res.status).toBe(403)
    expect(refused.html).toContain('You are not allowed to create harvest sources')
    expect(await t.ok('harvest_source_list')).toEqual([])
  })

  it('creates a source and edits it', async () => {
    const csrf = csrfOf((await editor.get('/harvest/new')).html)
    const r = await editor.post('/harvest/new', {
      _csrf_token: csrf,
      url: `${remote.url}/list.json`,
      title: 'Town Feed',
      name: '',
      notes: 'The *town* datasets.',
      source_type: 'test_list',
      frequency: 'WEEKLY',
      config: '{"page_limit": 5}',
      owner_org: org.id,
      private: 'False',
    })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/harvest/town-feed')
    const s = await t.ok('harvest_source_show', { id: 'town-feed' })
    expect(s).toMatchObject({ title: 'Town Feed', source_type: 'test_list', frequency: 'WEEKLY', owner_org: org.id, private: false })
    expect(JSON.parse(s.config)).toEqual({ page_limit: 5 })

    const edit = await editor.get('/harvest/edit/town-feed')
    expect(edit.res.status).toBe(200)
    expect(edit.html).toContain('value="Town Feed"')
    expect(edit.html).toContain('<option value="WEEKLY" selected="">')
    const ecsrf = csrfOf(edit.html)
    const bad = await editor.post('/harvest/edit/town-feed', { _csrf_token: ecsrf, url: `${remote.url}/list.json`, title: 'Town Feed', name: 'town-feed', source_type: 'test_list', frequency: 'SOMETIMES', config: '', owner_org: org.id })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('id="frequency-error"')
    const ok = await editor.post('/harvest/edit/town-feed', { _csrf_token: ecsrf, url: `${remote.url}/list.json`, title: 'Town Feed', name: 'town-feed', notes: 'Changed', source_type: 'test_list', frequency: 'MANUAL', config: '', owner_org: org.id, private: 'False' })
    expect(ok.res.status).toBe(303)
    const after = await t.ok('harvest_source_show', { id: 'town-feed' })
    expect(after).toMatchObject({ notes: 'Changed', frequency: 'MANUAL', config: null })
    for (const b of [member, outsider]) {
      expect((await b.get('/harvest/edit/town-feed')).res.status).toBe(404)
      expect((await b.post('/harvest/edit/town-feed', { _csrf_token: csrfOf((await b.get('/harvest')).html), title: 'Taken over' })).res.status).toBe(404)
    }
    expect((await t.ok('harvest_source_show', { id: 'town-feed' })).title).toBe('Town Feed')
  })
})

describe('a source, its jobs and their reports', () => {
  it('shows the source to everybody, its buttons to editors only', async () => {
    const list = await visitor().get('/harvest')
    expect(list.res.status).toBe(200)
    expect(list.html).toContain('href="/harvest/town-feed"')
    expect(list.html).toContain(`${remote.url}/list.json`)
    expect(list.html).toContain('Test list')
    expect(list.html).toContain('No jobs yet')
    const anon = await visitor().get('/harvest/town-feed')
    expect(anon.res.status).toBe(200)
    expect(anon.html).toContain('Changed')
    expect(anon.html).not.toContain('action="/harvest/refresh/town-feed"')
    expect(anon.html).not.toContain('href="/harvest/clear/town-feed"')
    expect((await member.get('/harvest/town-feed')).html).not.toContain('action="/harvest/refresh/town-feed"')
    const ed = await editor.get('/harvest/town-feed')
    expect(ed.html).toContain('action="/harvest/refresh/town-feed"')
    expect(ed.html).toContain('href="/harvest/clear/town-feed"')
    expect(ed.html).toContain('href="/harvest/town-feed/job"')
    // jobs are the editors' (harvest_job_list's rule)
    for (const b of [visitor(), member, outsider]) expect((await b.get('/harvest/town-feed/job')).res.status).toBe(404)
    expect((await editor.get('/harvest/town-feed/job')).html).toContain('No jobs yet')
    expect((await editor.get('/harvest/town-feed/job/last')).html).toContain('No jobs yet')
    // a source's dataset URL leads to its harvest page (ckanext-harvest's own URL for the type)
    const asDataset = await visitor().get('/dataset/town-feed')
    expect(asDataset.res.status).toBe(303)
    expect(asDataset.res.headers.get('location')).toBe('/harvest/town-feed')
    const missing = await visitor().get('/harvest/no-such-source')
    expect(missing.res.status).toBe(404)
    expect(missing.html).toContain('Harvest source not found')
    // in another language, under its prefix
    const fr = await visitor().get('/fr/harvest')
    expect(fr.html).toContain('Sources de moissonnage')
    expect(fr.html).toContain('href="/fr/harvest/town-feed"')
  })

  it('reharvests with the button, and reports the run', async () => {
    feed = {
      datasets: [
        { guid: 'g-1', dataset: { name: 'hp-one', title: 'One' } },
        { guid: 'g-2', dataset: { name: 'hp-two', title: 'Two' } },
        { guid: 'g-bad', dataset: { name: 'hp-bad', fail: 'record <b>unreadable</b>' } },
      ],
    }
    const page = await editor.get('/harvest/town-feed')
    const csrf = csrfOf(page.html)
    expect((await member.post('/harvest/refresh/town-feed', { _csrf_token: csrfOf((await member.get('/harvest')).html) })).res.status).toBe(404)
    expect((await editor.post('/harvest/refresh/town-feed', {})).res.status).toBe(403)
    const r = await editor.post('/harvest/refresh/town-feed', { _csrf_token: csrf })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/harvest/town-feed')
    const jobs = await t.ok('harvest_job_list', { source_id: 'town-feed' }, sys)
    expect(jobs).toHaveLength(1)
    expect(jobs[0].status).toBe('New')
    // a second press while the job waits: the action's message with the page
    const again = await editor.post('/harvest/refresh/town-feed', { _csrf_token: csrf })
    expect(again.res.status).toBe(409)
    expect(again.html).toContain('There already is an unrun job for this source')
    const waiting = await editor.get('/harvest/town-feed')
    expect(waiting.html).toContain('Waiting')
    expect(waiting.html).toContain(`action="/harvest/town-feed/job/${jobs[0].id}/abort"`)

    await drainAll(t)
    const job = await t.ok('harvest_job_show', { id: jobs[0].id }, sys)
    expect(job.stats).toMatchObject({ added: 2, errored: 1 })
    const report = await editor.get(`/harvest/town-feed/job/${job.id}`)
    expect(report.res.status).toBe(200)
    expect(report.html).toMatch(/<b>2<\/b> added/)
    expect(report.html).toMatch(/<b>1<\/b> errors/)
    expect(report.html).toContain(`href="${remote.url}/list.json#g-bad"`)
    expect(report.html).toContain('record &lt;b&gt;unreadable&lt;/b&gt;')
    const objectId = /href="\/harvest\/object\/([^"]+)"/.exec(report.html)![1]!
    expect(report.html).toContain(`href="/api/3/action/harvest_object_show?id=${objectId}"`)
    expect((await editor.get('/harvest/town-feed/job/last')).html).toContain(`href="/harvest/object/${objectId}"`)
    const list = await editor.get('/harvest/town-feed/job')
    expect(list.html).toContain(`href="/harvest/town-feed/job/${job.id}"`)
    expect(list.html).toContain('Finished')
    // the report of another source's job is not this source's page
    const other = await t.ok('harvest_source_create', { name: 'hp-other', url: `${remote.url}/other.json`, source_type: 'test_list', owner_org: org.id }, sys)
    expect((await editor.get(`/harvest/${other.name}/job/${job.id}`)).res.status).toBe(404)
    for (const b of [visitor(), member]) expect((await b.get(`/harvest/town-feed/job/${job.id}`)).res.status).toBe(404)

    // the raw record, typed JSON, for whoever may see the source
    const raw = await visitor().get(`/harvest/object/${objectId}`)
    expect(raw.res.status).toBe(200)
    expect(raw.res.headers.get('content-type')).toContain('application/json')
    expect(raw.res.headers.get('content-security-policy')).toContain('sandbox')
    expect(JSON.parse(raw.html)).toMatchObject({ name: 'hp-bad' })
    const viaDataset = await visitor().get('/dataset/harvest_object/hp-one')
    expect(JSON.parse(viaDataset.html)).toMatchObject({ name: 'hp-one', title: 'One' })
    expect((await visitor().get('/harvest/object/no-such-object')).res.status).toBe(404)

    // the source now: its last job, its datasets
    const shown = await visitor().get('/harvest/town-feed')
    expect(shown.html).toContain('Finished')
    expect(shown.html).toContain('href="/dataset/hp-one"')
    expect(shown.html).toMatch(/<b>2<\/b> added/)
    expect((await visitor().get('/harvest')).html).toContain('Finished')
  })

  it('links a harvested dataset to its source', async () => {
    const d = await visitor().get('/dataset/hp-one')
    expect(d.html).toContain('Harvested from')
    expect(d.html).toContain('<a href="/harvest/town-feed">Town Feed</a>')
  })

  it('clears the source after a confirmation', async () => {
    for (const b of [visitor(), member]) expect((await b.get('/harvest/clear/town-feed')).res.status).not.toBe(200)
    const confirm = await editor.get('/harvest/clear/town-feed')
    expect(confirm.res.status).toBe(200)
    expect(confirm.html).toContain('2 datasets')
    expect(confirm.html).toContain('action="/harvest/clear/town-feed"')
    expect((await member.post('/harvest/clear/town-feed', { _csrf_token: csrfOf((await member.get('/harvest')).html) })).res.status).toBe(404)
    expect((await t.ok('harvest_source_show_status', { id: 'town-feed' })).total_datasets).toBe(2)
    const r = await editor.post('/harvest/clear/town-feed', { _csrf_token: csrfOf(confirm.html) })
    expect(r.res.status).toBe(303)
    expect(await t.ok('harvest_source_show_status', { id: 'town-feed' })).toMatchObject({ job_count: 0, total_datasets: 0 })
    expect((await t.call('package_show', { id: 'hp-one' })).status).toBe(404)
    expect((await visitor().get('/harvest/town-feed')).html).toContain('No jobs yet')
  })
})

describe('a private source', () => {
  it('is the 404 page to those outside its organization, everywhere', async () => {
    await t.ok('harvest_source_create', { name: 'hp-secret', title: 'Secret Feed', url: `${remote.url}/secret.json`, source_type: 'test_list', owner_org: org.id, private: true }, sys)
    feed = { datasets: [{ guid: 's-1', dataset: { name: 'hp-secret-one', title: 'Secret one' } }] }
    const job = await runHarvest(t, 'hp-secret', sys)
    const objects = await t.ok('harvest_object_list', { source_id: 'hp-secret' }, sys)
    const paths = ['/dataset/hp-secret', '/harvest/hp-secret', '/harvest/hp-secret/job', `/harvest/hp-secret/job/${job.id}`, '/harvest/hp-secret/job/last', '/harvest/edit/hp-secret', '/harvest/clear/hp-secret', `/harvest/object/${objects[0]}`]
    for (const b of [visitor(), outsider]) {
      for (const p of paths) {
        const r = await b.get(p)
        expect([303, 404], p).toContain(r.res.status)
        expect(r.html).not.toContain('Secret Feed')
      }
      expect((await b.get('/harvest')).html).not.toContain('Secret Feed')
    }
    // members see it, without the editors' buttons
    const seen = await member.get('/harvest/hp-secret')
    expect(seen.res.status).toBe(200)
    expect(seen.html).toContain('Secret Feed')
    expect((await member.get('/harvest')).html).toContain('Secret Feed')
    expect((await member.get(`/harvest/object/${objects[0]}`)).res.status).toBe(200)
    expect((await editor.get(`/harvest/hp-secret/job/${job.id}`)).res.status).toBe(200)
  })

  it('names itself on a public harvested dataset without a link for those who may not see it', async () => {
    // the harvested dataset is public (the harvester's dict), the source is not
    const d = await t.ok('package_patch', { id: 'hp-secret-one', private: false }, sys)
    expect(d.private).toBe(false)
    const anon = await visitor().get('/dataset/hp-secret-one')
    expect(anon.res.status).toBe(200)
    expect(anon.html).toContain('Harvested from')
    expect(anon.html).not.toContain('href="/harvest/hp-secret"')
    const inside = await member.get('/dataset/hp-secret-one')
    expect(inside.html).toContain('<a href="/harvest/hp-secret">Secret Feed</a>')
  })
})
