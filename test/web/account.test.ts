// Issue 18, accounts in the browser: sign-in with the password, a signed HttpOnly session cookie,
// CSRF tokens on every form, a limit on failed sign-ins, the dashboard, and private data by session.
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { setup, TEST_PROFILE, type TestEnv } from '../helpers/setup'
import { browser as makeBrowser, csrfOf } from '../helpers/web-browser'

let t: TestEnv
let editor: any
let org: any

const browser = () => makeBrowser((path, init) => t.app.request(path, init))


beforeAll(async () => {
  t = await setup()
  const sys = await t.make.sysadmin()
  editor = await t.make.user({ name: 'eddie-editor', email: 'eddie@example.com', password: 'correct horse' })
  org = await t.make.organization(sys, { name: 'acct-org', title: 'Acct Org' })
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
  await t.ok('package_create', { name: 'acct-private', title: 'Hidden figures', owner_org: org.id, private: true }, sys)
  await t.ok('package_create', { name: 'acct-public', title: 'Open figures', owner_org: org.id }, sys)
})

describe('signing in and out', () => {
  it('signs in with the password, shows private datasets, the dashboard, and signs out', async () => {
    const b = browser()
    const form = await b.get('/user/login?came_from=%2Fdataset%3Fq%3Dfigures')
    expect(form.res.status).toBe(200)
    const csrf = csrfOf(form.html)
    const setCookie = form.res.headers.get('set-cookie')!
    expect(setCookie).toMatch(/ckan_csrf=.*HttpOnly.*SameSite=Lax/)

    expect((await b.get('/dataset?q=figures')).html).not.toContain('Hidden figures')
    const signed = await b.post('/user/login', { _csrf_token: csrf, login: 'eddie-editor', password: 'correct horse', came_from: '/dataset?q=figures' })
    expect(signed.res.status).toBe(303)
    expect(signed.res.headers.get('location')).toBe('/dataset?q=figures')
    const session = signed.res.headers.getSetCookie().find((c) => c.startsWith('ckan_session='))!
    expect(session).toMatch(/HttpOnly/)
    expect(session).toMatch(/SameSite=Lax/)
    expect(session).toMatch(/Secure/)

    const found = await b.get('/dataset?q=figures')
    expect(found.html).toContain('Hidden figures')
    expect(found.html).toContain('Sign out')
    expect((await b.get('/dataset/acct-private')).res.status).toBe(200)
    const dash = await b.get('/dashboard')
    expect(dash.res.status).toBe(200)
    expect(dash.html).toContain('Dashboard')

    // signing out needs the token too
    const refused = await b.post('/user/logout', {})
    expect(refused.res.status).toBe(403)
    const out = await b.post('/user/logout', { _csrf_token: csrfOf(found.html) })
    expect(out.res.status).toBe(303)
    expect(b.jar.has('ckan_session')).toBe(false)
    expect((await b.get('/dataset/acct-private')).res.status).toBe(404)
  })

  it('signs in by email as well; a bad password re-shows the form with CKAN\'s message', async () => {
    const b = browser()
    const csrf = csrfOf((await b.get('/user/login')).html)
    const bad = await b.post('/user/login', { _csrf_token: csrf, login: 'eddie-editor', password: 'wrong' })
    expect(bad.res.status).toBe(200)
    expect(bad.html).toContain('Login failed. Bad username or password.')
    expect(b.jar.has('ckan_session')).toBe(false)
    const ok = await b.post('/user/login', { _csrf_token: csrf, login: 'eddie@example.com', password: 'correct horse' })
    expect(ok.res.status).toBe(303)
    expect(ok.res.headers.get('location')).toBe('/dashboard') // no came_from
  })

  it('refuses a form posted without its CSRF token, with a wrong one, or from another site', async () => {
    const b = browser()
    const csrf = csrfOf((await b.get('/user/login')).html)
    const none = await b.post('/user/login', { login: 'eddie-editor', password: 'correct horse' })
    expect(none.res.status).toBe(403)
    const wrong = await b.post('/user/login', { _csrf_token: 'f'.repeat(64), login: 'eddie-editor', password: 'correct horse' })
    expect(wrong.res.status).toBe(403)
    const foreign = await b.post('/user/login', { _csrf_token: csrf, login: 'eddie-editor', password: 'correct horse' }, { origin: 'https://evil.example' })
    expect(foreign.res.status).toBe(403)
    expect(b.jar.has('ckan_session')).toBe(false)
  })

  it('does not follow came_from off the site', async () => {
    const b = browser()
    const csrf = csrfOf((await b.get('/user/login')).html)
    for (const away of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const r = await b.post('/user/login', { _csrf_token: csrf, login: 'eddie-editor', password: 'correct horse', came_from: away })
      expect(r.res.headers.get('location')).toBe('/dashboard')
    }
  })

  it('refuses a forged or tampered session cookie', async () => {
    const b = browser()
    const csrf = csrfOf((await b.get('/user/login')).html)
    await b.post('/user/login', { _csrf_token: csrf, login: 'eddie-editor', password: 'correct horse' })
    const token = b.jar.get('ckan_session')!
    const [h, p, s] = token.split('.')
    const claims = JSON.parse(atob(p!.replace(/-/g, '+').replace(/_/g, '/')))
    const other = await t.make.user() // a real user: a forged cookie must not become them
    const forged = btoa(JSON.stringify({ ...claims, sub: other.id })).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
    b.jar.set('ckan_session', `${h}.${forged}.${s}`)
    const r = await b.get('/dashboard')
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/user/login?came_from=%2Fdashboard')
  })

  it('limits failed sign-ins per user name', async () => {
    const b = browser()
    const csrf = csrfOf((await b.get('/user/login')).html)
    const victim = await t.make.user({ name: 'rate-limited', password: 'the right one' })
    for (let i = 0; i < 10; i++) {
      const r = await b.post('/user/login', { _csrf_token: csrf, login: victim.name, password: `guess ${i}` }, { 'x-forwarded-for': `10.0.0.${i}` })
      expect(r.res.status).toBe(200)
    }
    const blocked = await b.post('/user/login', { _csrf_token: csrf, login: victim.name, password: 'the right one' }, { 'x-forwarded-for': '10.0.1.1' })
    expect(blocked.res.status).toBe(429)
    expect(blocked.html).toContain('Too many failed sign-ins')
    expect(b.jar.has('ckan_session')).toBe(false)
  })

  it('counts failures in the database: another process (or isolate) blocks too, and the window ends', async () => {
    const victim = await t.make.user({ name: 'shared-limit', password: 'the right one' })
    // a second process on the same database file
    const other = await openCatalogDb(`file:${t.file}`)
    try {
      const deps = buildDeps(loadConfig(TEST_PROFILE), other.db, { ...other, search: { snapshots: false } })
      await warmUp(deps)
      const elsewhere = makeBrowser((path, init) => createApp(deps).request(path, init))
      const b = browser()
      const csrf = csrfOf((await b.get('/user/login')).html)
      for (let i = 0; i < 10; i++) {
        // failures spread over both processes and many addresses
        const who = i % 2 ? b : elsewhere
        const token = who === b ? csrf : csrfOf((await elsewhere.get('/user/login')).html)
        expect((await who.post('/user/login', { _csrf_token: token, login: victim.name, password: `guess ${i}` }, { 'x-forwarded-for': `10.1.0.${i}` })).res.status).toBe(200)
      }
      const blocked = await elsewhere.post('/user/login', { _csrf_token: csrfOf((await elsewhere.get('/user/login')).html), login: victim.name, password: 'the right one' }, { 'x-forwarded-for': '10.1.1.1' })
      expect(blocked.res.status).toBe(429)
      // the window began more than 15 minutes ago: signing in works again, and clears the count
      await t.client.execute({ sql: 'UPDATE login_failure SET since = since - 16 * 60000 WHERE key = ?', args: [`user:${victim.name}`] })
      const ok = await b.post('/user/login', { _csrf_token: csrf, login: victim.name, password: 'the right one' }, { 'x-forwarded-for': '10.1.1.2' })
      expect(ok.res.status).toBe(303)
      expect((await t.client.execute({ sql: 'SELECT count(*) AS n FROM login_failure WHERE key = ?', args: [`user:${victim.name}`] })).rows[0]!.n).toBe(0)
    } finally {
      other.close()
    }
  })

  it('sends an anonymous visitor from the dashboard to the sign-in page', async () => {
    const r = await browser().get('/dashboard')
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/user/login?came_from=%2Fdashboard')
  })
})
