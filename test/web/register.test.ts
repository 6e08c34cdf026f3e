// Accounts in the browser: registering (service.auth.create_user_via_web), asking for a password
// reset link by e-mail (the same answer whether the account exists), choosing a new password
// through the link (once), and accepting a user_invite invitation through the same page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { parseMail, startSmtp } from '../helpers/smtp'
import { browser, csrfOf, signIn } from '../helpers/web-browser'

let smtp: Awaited<ReturnType<typeof startSmtp>>
let t: TestEnv
let sys: any

const MAIL = { 'smtp.mail_from': 'portal@example.org', 'service.site_title': 'Account Portal' }
const visitor = (env: TestEnv = t) => browser((path, init) => env.app.request(path, init))
/** The reset link of the last mail to `email`. */
function linkTo(email: string): string {
  const mail = smtp.received.filter((m) => m.to.includes(email)).at(-1)
  if (!mail) throw new Error(`no mail to ${email}`)
  const url = /http:\/\/test\.ckan\.net(\/user\/reset\/[^\s?]+\?key=[0-9a-f]+)/.exec(parseMail(mail.raw).body)
  return url![1]!
}

beforeAll(async () => {
  smtp = await startSmtp()
  t = await setup({ ...MAIL, 'smtp.server': smtp.address, 'service.auth.login_attempts': '5' })
  sys = await t.make.sysadmin()
})
afterAll(async () => {
  await new Promise<void>((r) => smtp.server.close(() => r()))
})

describe('registering', () => {
  it('creates the account and signs it in', async () => {
    const b = visitor()
    expect((await b.get('/')).html).toContain('href="/user/register"')
    const form = await b.get('/user/register')
    expect(form.res.status).toBe(200)
    const r = await b.post('/user/register', { _csrf_token: csrfOf(form.html), name: 'newcomer', fullname: 'New Comer', email: 'newcomer@example.org', password1: 'a good password', password2: 'a good password' })
    expect(r.res.status).toBe(303)
    expect(r.res.headers.get('location')).toBe('/dashboard')
    const dash = await b.get('/dashboard')
    expect(dash.res.status).toBe(200)
    expect(dash.html).toContain('href="/user/newcomer"')
    expect(await t.ok('user_show', { id: 'newcomer' }, sys)).toMatchObject({ fullname: 'New Comer', state: 'active', sysadmin: false })
    // signing in with the chosen password works too
    await signIn(visitor(), 'newcomer', 'a good password')
  })

  it('shows what is wrong by the fields, and keeps what was typed', async () => {
    const b = visitor()
    const form = await b.get('/user/register')
    const mismatch = await b.post('/user/register', { _csrf_token: csrfOf(form.html), name: 'second', email: 'second@example.org', password1: 'one password', password2: 'another one' })
    expect(mismatch.res.status).toBe(409)
    expect(mismatch.html).toContain('do not match')
    expect(mismatch.html).toContain('value="second@example.org"')
    const taken = await b.post('/user/register', { _csrf_token: csrfOf(form.html), name: 'newcomer', email: 'other@example.org', password1: 'a good password', password2: 'a good password' })
    expect(taken.res.status).toBe(409)
    expect(taken.html).toContain('id="name-error"')
    expect(taken.html).toContain('That login name is not available.')
    expect((await t.call('user_show', { id: 'second' }, sys)).status).toBe(404)
  })

  it('refuses a form without its token, and registration when the site turns it off', async () => {
    const b = visitor()
    expect((await b.post('/user/register', { name: 'forged', email: 'f@example.org', password1: 'a good password', password2: 'a good password' })).res.status).toBe(403)
    const off = await setup({ 'service.auth.create_user_via_web': 'false' })
    const ob = visitor(off)
    const page = await ob.get('/user/register')
    expect(page.res.status).toBe(403)
    expect((await ob.get('/user/login')).html).not.toContain('/user/register')
    expect((await ob.get('/')).html).not.toContain('/user/register')
    const r = await ob.post('/user/register', { _csrf_token: csrfOf((await ob.get('/user/login')).html), name: 'blocked', email: 'b@example.org', password1: 'a good password', password2: 'a good password' })
    expect(r.res.status).toBe(403)
    expect((await off.call('user_show', { id: 'blocked' }, await off.make.sysadmin())).status).toBe(404)
    // the Action API keeps its own rule (create_user_via_api, off by default)
    expect((await t.call('user_create', { name: 'via-api', email: 'v@example.org', password: 'a good password' })).status).toBe(403)
  })
})

describe('password reset', () => {
  it('mails a link; the link sets a new password once and signs the user in', async () => {
    await t.make.user({ name: 'forgetful', email: 'forgetful@example.org', password: 'old password' })
    const b = visitor()
    const form = await b.get('/user/reset')
    const asked = await b.post('/user/reset', { _csrf_token: csrfOf(form.html), user: 'forgetful@example.org' })
    expect(asked.res.status).toBe(200)
    expect(asked.html).toContain('If there is an account with that name')
    const link = linkTo('forgetful@example.org')
    const page = await b.get(link)
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('Choose a new password')
    const key = new URL(link, 'http://x').searchParams.get('key')!
    const id = link.split('/')[3]!.split('?')[0]!
    const short = await b.post(`/user/reset/${id}`, { _csrf_token: csrfOf(page.html), key, password1: 'new pw 1', password2: 'new pw 2' })
    expect(short.res.status).toBe(409)
    expect(short.html).toContain('do not match')
    const done = await b.post(`/user/reset/${id}`, { _csrf_token: csrfOf(page.html), key, password1: 'new password', password2: 'new password' })
    expect(done.res.status).toBe(303)
    expect((await b.get('/dashboard')).html).toContain('href="/user/forgetful"')
    await signIn(visitor(), 'forgetful', 'new password')
    await expect(signIn(visitor(), 'forgetful', 'old password')).rejects.toThrow()
    // the link is spent
    expect((await visitor().get(link)).res.status).toBe(404)
  })

  it('answers the same for an unknown account and mails nothing; a forged key or another id is no link', async () => {
    const before = smtp.received.length
    const b = visitor()
    const r = await b.post('/user/reset', { _csrf_token: csrfOf((await b.get('/user/reset')).html), user: 'nobody-here' })
    expect(r.res.status).toBe(200)
    expect(r.html).toContain('If there is an account with that name')
    expect(smtp.received.length).toBe(before)
    const u = await t.make.user({ name: 'keyholder', email: 'keyholder@example.org' })
    await b.post('/user/reset', { _csrf_token: csrfOf((await b.get('/user/reset')).html), user: 'keyholder' })
    const link = linkTo('keyholder@example.org')
    const key = new URL(link, 'http://x').searchParams.get('key')!
    expect((await b.get(`/user/reset/${u.id}?key=${'0'.repeat(32)}`)).res.status).toBe(404)
    expect((await b.get(`/user/reset/${sys.id}?key=${key}`)).res.status).toBe(404)
    const forged = await b.post(`/user/reset/${u.id}`, { _csrf_token: csrfOf((await b.get('/user/reset')).html), key: 'f'.repeat(32), password1: 'hijacked pw', password2: 'hijacked pw' })
    expect(forged.res.status).toBe(404)
    await expect(signIn(visitor(), 'keyholder', 'hijacked pw')).rejects.toThrow()
  })

  it('limits how often one address may ask', async () => {
    const b = browser((path, init) => t.app.request(path, { ...init, headers: { ...(init?.headers as object), 'x-forwarded-for': '203.0.113.9' } }))
    const csrf = csrfOf((await b.get('/user/reset')).html)
    const codes = []
    for (let i = 0; i < 7; i++) codes.push((await b.post('/user/reset', { _csrf_token: csrf, user: 'nobody' })).res.status)
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429])
  })

  it('says so when the site cannot send e-mail', async () => {
    const noMail = await setup()
    await noMail.make.user({ name: 'unmailable', email: 'u@example.org' })
    const b = visitor(noMail)
    const r = await b.post('/user/reset', { _csrf_token: csrfOf((await b.get('/user/reset')).html), user: 'unmailable' })
    expect(r.res.status).toBe(503)
    expect(r.html).toContain('cannot send e-mail')
  })
})

describe('invitations', () => {
  it('an invited user chooses a password through the link, which activates the account', async () => {
    const org = await t.make.organization(sys, { name: 'inviting-org' })
    const invited = await t.ok('user_invite', { email: 'invitee@example.org', group_id: org.id, role: 'editor' }, sys)
    expect(invited.state).toBe('pending')
    const link = linkTo('invitee@example.org')
    const b = visitor()
    const page = await b.get(link)
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('Choose your password')
    const key = new URL(link, 'http://x').searchParams.get('key')!
    const r = await b.post(`/user/reset/${invited.id}`, { _csrf_token: csrfOf(page.html), key, password1: 'invited password', password2: 'invited password' })
    expect(r.res.status).toBe(303)
    expect((await t.ok('user_show', { id: invited.id }, sys)).state).toBe('active')
    await signIn(visitor(), invited.name, 'invited password')
  })
})
