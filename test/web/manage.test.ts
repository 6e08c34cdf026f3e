// Editing and deleting in the browser (CKAN's /dataset/edit, /dataset/delete and the resource
// edit/delete pages): editors change what the form shows and nothing else, validation messages sit
// by their fields, deletions need a POST with the CSRF token, and whoever may not edit gets the
// 404 page (a private dataset's pages look like a missing one's).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let editor: Browser
let member: Browser
let anon: Browser
let org: any
let sys: any

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'm-editor', password: 'editor password' })
  await t.make.user({ name: 'm-member', password: 'member password' })
  org = await t.make.organization(sys, { name: 'm-org', title: 'Managing Org' })
  await t.ok('organization_member_create', { id: org.id, username: 'm-editor', role: 'editor' }, sys)
  await t.ok('organization_member_create', { id: org.id, username: 'm-member', role: 'member' }, sys)
  await t.ok('vocabulary_create', { name: 'm-vocab', tags: [{ name: 'kept-by-vocab' }] }, sys)
  await t.ok('package_create', {
    name: 'm-data', title: 'Harbour data', notes: 'Old notes', owner_org: org.id, license_id: 'cc-by',
    tags: [{ name: 'harbour' }, { name: 'kept-by-vocab', vocabulary_id: 'm-vocab' }],
    extras: [{ key: 'source', value: 'port authority' }],
    resources: [{ name: 'Levels', url: 'https://example.com/levels.csv', format: 'CSV', description: 'Old' }],
  }, sys)
  await t.ok('package_create', { name: 'm-private', owner_org: org.id, private: true }, sys)
  const fetcher = (path: string, init?: RequestInit) => t.app.request(path, init)
  editor = browser(fetcher)
  member = browser(fetcher)
  anon = browser(fetcher)
  await signIn(editor, 'm-editor', 'editor password')
  await signIn(member, 'm-member', 'member password')
})

describe('editing a dataset', () => {
  it('shows the form filled in, and the links to it on the dataset page for editors only', async () => {
    const page = await editor.get('/dataset/m-data')
    expect(page.html).toContain('href="/dataset/edit/m-data"')
    expect(page.html).toContain('href="/dataset/delete/m-data"')
    expect((await member.get('/dataset/m-data')).html).not.toContain('/dataset/edit/m-data')
    const form = await editor.get('/dataset/edit/m-data')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('value="Harbour data"')
    expect(form.html).toContain('Old notes')
    expect(form.html).toContain('value="harbour"') // free tags only
    expect(form.html).not.toContain('kept-by-vocab')
  })

  it('updates what the form holds, keeps the rest (resources, extras, vocabulary tags)', async () => {
    const form = await editor.get('/dataset/edit/m-data')
    const r = await editor.post('/dataset/edit/m-data', {
      _csrf_token: csrfOf(form.html),
      title: 'Harbour levels',
      name: 'm-data',
      notes: 'New notes',
      tag_string: 'harbour, tides',
      owner_org: org.id,
      license_id: 'odc-by',
      private: 'False',
    })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/dataset/m-data')
    const d = await t.ok('package_show', { id: 'm-data' }, sys)
    expect(d).toMatchObject({ title: 'Harbour levels', notes: 'New notes', license_id: 'odc-by', private: false })
    expect(d.tags.map((x: any) => x.name).sort()).toEqual(['harbour', 'kept-by-vocab', 'tides'])
    expect(d.extras).toEqual([{ key: 'source', value: 'port authority' }])
    expect(d.resources.map((x: any) => x.name)).toEqual(['Levels'])
  })

  it('shows validation messages by the fields and keeps what was typed', async () => {
    const form = await editor.get('/dataset/edit/m-data')
    const r = await editor.post('/dataset/edit/m-data', { _csrf_token: csrfOf(form.html), title: 'Typed title', name: 'Not A Valid Name!', owner_org: org.id })
    expect(r.res.status).toBe(409)
    expect(r.html).toContain('id="name-error"')
    expect(r.html).toContain('value="Typed title"')
    expect((await t.ok('package_show', { id: 'm-data' }, sys)).title).toBe('Harbour levels')
  })

  it('refuses a post without the CSRF token, and anyone who may not edit', async () => {
    expect((await editor.post('/dataset/edit/m-data', { title: 'Forged', owner_org: org.id })).res.status).toBe(403)
    const asMember = await member.get('/dataset/edit/m-data')
    expect(asMember.res.status).toBe(404)
    const csrf = csrfOf((await member.get('/dataset')).html)
    expect((await member.post('/dataset/edit/m-data', { _csrf_token: csrf, title: 'By a member', owner_org: org.id })).res.status).toBe(404)
    expect((await anon.get('/dataset/edit/m-data')).res.status).toBe(303) // to the sign-in page
    // a private dataset's edit page: the editor's, no one else's
    expect((await editor.get('/dataset/edit/m-private')).res.status).toBe(200)
    expect((await member.get('/dataset/edit/m-private')).res.status).toBe(404)
    expect((await t.ok('package_show', { id: 'm-data' }, sys)).title).toBe('Harbour levels')
  })
})

describe('resources', () => {
  it('edits a resource: name, description, format; its URL only when changed', async () => {
    const d = await t.ok('package_show', { id: 'm-data' }, sys)
    const rid = d.resources[0].id
    const base = `/dataset/m-data/resource/${rid}`
    expect((await editor.get(base)).html).toContain(`href="${base}/edit"`)
    const form = await editor.get(`${base}/edit`)
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('value="https://example.com/levels.csv"')
    const fd = new FormData()
    fd.set('_csrf_token', csrfOf(form.html))
    fd.set('url', 'https://example.com/levels.csv')
    fd.set('name', 'Water levels')
    fd.set('description', 'Hourly')
    fd.set('format', 'CSV')
    const r = await editor.post(`${base}/edit`, fd)
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe(base)
    const res = await t.ok('resource_show', { id: rid }, sys)
    expect(res).toMatchObject({ name: 'Water levels', description: 'Hourly', url: 'https://example.com/levels.csv' })
    expect((await member.get(`${base}/edit`)).res.status).toBe(404)
  })

  it('deletes a resource after a confirmation page, with the token only', async () => {
    const rid = (await t.ok('resource_create', { package_id: 'm-data', name: 'Doomed', url: 'https://example.com/x.csv' }, sys)).id
    const base = `/dataset/m-data/resource/${rid}`
    const confirm = await editor.get(`${base}/delete`)
    expect(confirm.res.status).toBe(200)
    expect(confirm.html).toContain('Doomed')
    expect((await editor.post(`${base}/delete`, {})).res.status).toBe(403)
    expect((await member.post(`${base}/delete`, { _csrf_token: csrfOf((await member.get('/dataset')).html) })).res.status).toBe(404)
    expect((await t.call('resource_show', { id: rid }, sys)).status).toBe(200)
    const r = await editor.post(`${base}/delete`, { _csrf_token: csrfOf(confirm.html) })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/dataset/m-data')
    expect((await t.call('resource_show', { id: rid }, sys)).status).toBe(404)
  })
})

describe('deleting a dataset', () => {
  it('asks first, refuses without the token or the right, then deletes', async () => {
    await t.ok('package_create', { name: 'm-doomed', title: 'Doomed data', owner_org: org.id }, sys)
    const confirm = await editor.get('/dataset/delete/m-doomed')
    expect(confirm.res.status).toBe(200)
    expect(confirm.html).toContain('Doomed data')
    expect((await editor.post('/dataset/delete/m-doomed', {})).res.status).toBe(403)
    expect((await member.get('/dataset/delete/m-doomed')).res.status).toBe(404)
    expect((await t.ok('package_show', { id: 'm-doomed' }, sys)).state).toBe('active')
    const r = await editor.post('/dataset/delete/m-doomed', { _csrf_token: csrfOf(confirm.html) })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/dataset')
    expect((await t.ok('package_show', { id: 'm-doomed' }, sys)).state).toBe('deleted')
    expect((await anon.get('/dataset/m-doomed')).res.status).toBe(404)
  })
})
