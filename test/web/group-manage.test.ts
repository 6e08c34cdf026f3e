// Organizations and groups managed in the browser: creating one (its creator becomes its admin),
// editing it, its members (added, role changed, removed) and deleting it; only its admins (and
// sysadmins) get these pages, every form needs its CSRF token.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let sys: any
let admin: Browser
let member: Browser

const visitor = () => browser((path, init) => t.app.request(path, init))
const capacities = async (org: string) =>
  Object.fromEntries(((await t.ok('organization_show', { id: org, include_users: true }, sys)).users as any[]).map((u) => [u.name, u.capacity]))

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'gm-admin', password: 'admin password' })
  await t.make.user({ name: 'gm-member', password: 'member password' })
  await t.make.user({ name: 'gm-newbie' })
  admin = visitor()
  member = visitor()
  await signIn(admin, 'gm-admin', 'admin password')
  await signIn(member, 'gm-member', 'member password')
})

describe('organizations in the browser', () => {
  it('creates an organization whose creator is its admin', async () => {
    expect((await admin.get('/organization')).html).toContain('href="/organization/new"')
    expect((await visitor().get('/organization')).html).not.toContain('href="/organization/new"')
    const form = await admin.get('/organization/new')
    expect(form.res.status).toBe(200)
    const r = await admin.post('/organization/new', { _csrf_token: csrfOf(form.html), title: 'Harbour Board', name: '', description: 'Runs the *harbour*.' })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/organization/harbour-board')
    expect(await capacities('harbour-board')).toEqual({ 'gm-admin': 'admin' })
    const taken = await admin.post('/organization/new', { _csrf_token: csrfOf(form.html), title: 'Again', name: 'harbour-board' })
    expect(taken.res.status).toBe(409)
    expect(taken.html).toContain('id="name-error"')
    expect((await visitor().get('/organization/new')).res.status).toBe(303)
  })

  it('edits it, for its admins only', async () => {
    await t.ok('organization_member_create', { id: 'harbour-board', username: 'gm-member', role: 'member' }, sys)
    expect((await admin.get('/organization/harbour-board')).html).toContain('href="/organization/edit/harbour-board"')
    expect((await member.get('/organization/harbour-board')).html).not.toContain('href="/organization/edit/harbour-board"')
    const form = await admin.get('/organization/edit/harbour-board')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('value="Harbour Board"')
    const r = await admin.post('/organization/edit/harbour-board', { _csrf_token: csrfOf(form.html), title: 'Harbour Board of Trustees', name: 'harbour-board', description: 'New text' })
    expect(r.res.status).toBe(303)
    expect(await t.ok('organization_show', { id: 'harbour-board' })).toMatchObject({ title: 'Harbour Board of Trustees', description: 'New text' })
    expect((await member.get('/organization/edit/harbour-board')).res.status).toBe(404)
    const csrf = csrfOf((await member.get('/dataset')).html)
    expect((await member.post('/organization/edit/harbour-board', { _csrf_token: csrf, title: 'By a member' })).res.status).toBe(404)
    expect((await admin.post('/organization/edit/harbour-board', { title: 'No token' })).res.status).toBe(403)
    // a group's pages do not answer for an organization
    expect((await admin.get('/group/edit/harbour-board')).res.status).toBe(404)
    expect((await t.ok('organization_show', { id: 'harbour-board' })).title).toBe('Harbour Board of Trustees')
  })

  it('adds members, changes their role and removes them', async () => {
    const page = await admin.get('/organization/members/harbour-board')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('gm-member')
    const csrf = csrfOf(page.html)
    expect((await admin.post('/organization/member_new/harbour-board', { _csrf_token: csrf, username: 'gm-newbie', role: 'editor' })).res.status).toBe(303)
    expect((await capacities('harbour-board'))['gm-newbie']).toBe('editor')
    expect((await admin.post('/organization/member_new/harbour-board', { _csrf_token: csrf, username: 'gm-member', role: 'admin' })).res.status).toBe(303)
    expect((await capacities('harbour-board'))['gm-member']).toBe('admin')
    const unknown = await admin.post('/organization/member_new/harbour-board', { _csrf_token: csrf, username: 'no-such-user', role: 'member' })
    expect(unknown.res.status).toBe(409)
    expect((await admin.post('/organization/member_delete/harbour-board', { _csrf_token: csrf, user: 'gm-newbie' })).res.status).toBe(303)
    expect(await capacities('harbour-board')).toEqual({ 'gm-admin': 'admin', 'gm-member': 'admin' })
    expect((await visitor().get('/organization/members/harbour-board')).res.status).toBe(303)
    const outsider = visitor()
    await t.make.user({ name: 'gm-outsider', password: 'outsider password' })
    await signIn(outsider, 'gm-outsider', 'outsider password')
    expect((await outsider.get('/organization/members/harbour-board')).res.status).toBe(404)
    expect((await outsider.post('/organization/member_new/harbour-board', { _csrf_token: csrfOf((await outsider.get('/dataset')).html), username: 'gm-outsider', role: 'admin' })).res.status).toBe(404)
    expect((await capacities('harbour-board'))['gm-outsider']).toBeUndefined()
  })

  it('deletes it after a confirmation page', async () => {
    const confirm = await admin.get('/organization/delete/harbour-board')
    expect(confirm.res.status).toBe(200)
    expect((await admin.post('/organization/delete/harbour-board', {})).res.status).toBe(403)
    const r = await admin.post('/organization/delete/harbour-board', { _csrf_token: csrfOf(confirm.html) })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/organization')
    expect((await visitor().get('/organization/harbour-board')).res.status).toBe(404)
  })
})

describe('groups in the browser', () => {
  it('the same pages for groups', async () => {
    const form = await admin.get('/group/new')
    const r = await admin.post('/group/new', { _csrf_token: csrfOf(form.html), title: 'Coastal data', name: 'coastal' })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/group/coastal')
    expect((await admin.get('/group/coastal')).html).toContain('href="/group/members/coastal"')
    const members = await admin.get('/group/members/coastal')
    expect((await admin.post('/group/member_new/coastal', { _csrf_token: csrfOf(members.html), username: 'gm-member', role: 'member' })).res.status).toBe(303)
    expect(((await t.ok('group_show', { id: 'coastal', include_users: true })).users as any[]).map((u) => u.name).sort()).toEqual(['gm-admin', 'gm-member'])
    expect((await member.get('/group/edit/coastal')).res.status).toBe(404)
  })
})
