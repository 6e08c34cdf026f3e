// A user's settings in the browser: the profile (the current password asked for a new password or
// e-mail), API tokens (made on the page and shown once, usable on the API, revoked from it) and
// webhooks; nobody else's settings, and no form without its CSRF token.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let sys: any
let ada: Browser
let bob: Browser

const visitor = () => browser((path, init) => t.app.request(path, init))

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'ada', email: 'ada@example.org', password: 'ada password' })
  await t.make.user({ name: 'bob', email: 'bob@example.org', password: 'bob password' })
  ada = visitor()
  bob = visitor()
  await signIn(ada, 'ada', 'ada password')
  await signIn(bob, 'bob', 'bob password')
})

describe('profile', () => {
  it('edits the profile; only the user (or a sysadmin) gets the page', async () => {
    expect((await ada.get('/user/ada')).html).toContain('href="/user/edit/ada"')
    expect((await bob.get('/user/ada')).html).not.toContain('href="/user/edit/ada"')
    const form = await ada.get('/user/edit/ada')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('value="ada@example.org"')
    const r = await ada.post('/user/edit/ada', { _csrf_token: csrfOf(form.html), fullname: 'Ada L.', email: 'ada@example.org', about: 'Counts things.', activity_streams_email_notifications: 'on' })
    expect(r.res.status).toBe(200)
    expect(r.html).toContain('Profile updated.')
    expect(await t.ok('user_show', { id: 'ada' }, sys)).toMatchObject({ fullname: 'Ada L.', about: 'Counts things.', activity_streams_email_notifications: true })
    expect((await bob.get('/user/edit/ada')).res.status).toBe(404)
    expect((await bob.post('/user/edit/ada', { _csrf_token: csrfOf(form.html), fullname: 'Hijacked', email: 'ada@example.org' })).res.status).toBe(403) // bob's own cookie has another token
    expect((await bob.post('/user/edit/ada', { _csrf_token: csrfOf((await bob.get('/dataset')).html), fullname: 'Hijacked', email: 'ada@example.org' })).res.status).toBe(404)
    expect((await visitor().get('/user/edit/ada')).res.status).toBe(303)
    expect((await t.ok('user_show', { id: 'ada' }, sys)).fullname).toBe('Ada L.')
  })

  it('asks for the current password to change the password or the e-mail address', async () => {
    const csrf = csrfOf((await ada.get('/user/edit/ada')).html)
    const noOld = await ada.post('/user/edit/ada', { _csrf_token: csrf, email: 'new-ada@example.org' })
    expect(noOld.res.status).toBe(409)
    expect(noOld.html).toContain('Old password incorrect')
    expect((await t.ok('user_show', { id: 'ada' }, sys)).email).toBe('ada@example.org')
    const mismatch = await ada.post('/user/edit/ada', { _csrf_token: csrf, email: 'ada@example.org', password1: 'next password', password2: 'other password', old_password: 'ada password' })
    expect(mismatch.res.status).toBe(409)
    expect(mismatch.html).toContain('do not match')
    const ok = await ada.post('/user/edit/ada', { _csrf_token: csrf, email: 'ada2@example.org', password1: 'next password', password2: 'next password', old_password: 'ada password' })
    expect(ok.res.status).toBe(200)
    expect((await t.ok('user_show', { id: 'ada' }, sys)).email).toBe('ada2@example.org')
    await signIn(visitor(), 'ada', 'next password')
    await expect(signIn(visitor(), 'ada', 'ada password')).rejects.toThrow()
  })

  it("shows the action's messages by the fields", async () => {
    const csrf = csrfOf((await ada.get('/user/edit/ada')).html)
    const r = await ada.post('/user/edit/ada', { _csrf_token: csrf, email: 'ada2@example.org', about: 'See https://spam.example' })
    expect(r.res.status).toBe(409)
    expect(r.html).toContain('id="about-error"')
    expect(r.html).toContain('looks like spam')
  })
})

describe('API tokens', () => {
  it('makes a token shown once, which the API accepts until it is revoked from the page', async () => {
    const page = await ada.get('/user/ada/api-tokens')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('No tokens yet.')
    const made = await ada.post('/user/ada/api-tokens', { _csrf_token: csrfOf(page.html), name: 'my script' })
    expect(made.res.status).toBe(200)
    const token = /id="new-token" class="token" type="text" readonly="" value="([^"]+)"/.exec(made.html)?.[1]
    expect(token).toBeTruthy()
    expect(made.html).toContain('my script')
    // the token works on the API as ada
    const me = await t.call('dashboard_new_activities_count', {}, { apikey: token! })
    expect(me.status).toBe(200)
    // it is not shown again
    const again = await ada.get('/user/ada/api-tokens')
    expect(again.html).not.toContain(token!)
    const jti = (await t.ok('api_token_list', { user: 'ada' }, sys))[0].id
    // nobody else sees or revokes it
    expect((await bob.get('/user/ada/api-tokens')).res.status).toBe(404)
    expect((await bob.post(`/user/ada/api-tokens/${jti}/revoke`, { _csrf_token: csrfOf((await bob.get('/dataset')).html) })).res.status).toBe(404)
    expect((await bob.post(`/user/bob/api-tokens/${jti}/revoke`, { _csrf_token: csrfOf((await bob.get('/dataset')).html) })).res.status).toBe(404)
    expect((await ada.post(`/user/ada/api-tokens/${jti}/revoke`, {})).res.status).toBe(403)
    expect((await t.call('dashboard_new_activities_count', {}, { apikey: token! })).status).toBe(200)
    const revoked = await ada.post(`/user/ada/api-tokens/${jti}/revoke`, { _csrf_token: csrfOf(again.html) })
    expect(revoked.res.status).toBe(303)
    expect(revoked.res.headers.get('location')).toBe('/user/ada/api-tokens')
    expect((await t.call('dashboard_new_activities_count', {}, { apikey: token! })).status).toBe(403)
  })

  it('makes a scoped token from the page and lists its scopes; names bad scopes by the field', async () => {
    const page = await ada.get('/user/ada/api-tokens')
    expect(page.html).toContain('id="token-scopes"')
    const made = await ada.post('/user/ada/api-tokens', { _csrf_token: csrfOf(page.html), name: 'reader', scopes: 'read' })
    expect(made.res.status).toBe(200)
    const token = /id="new-token" class="token" type="text" readonly="" value="([^"]+)"/.exec(made.html)?.[1]
    expect(await t.ok('api_token_list', { user: 'ada' }, sys)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'reader', scopes: ['read'] })]),
    )
    expect(made.html).toContain('<code class="scope">read</code>')
    // the scoped token reads and is refused a write
    expect((await t.call('dashboard_new_activities_count', {}, { apikey: token! })).status).toBe(200)
    expect((await t.call('package_create', { name: 'by-reader' }, { apikey: token! })).status).toBe(403)
    const bad = await ada.post('/user/ada/api-tokens', { _csrf_token: csrfOf(page.html), name: 'oops', scopes: 'everything' })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('id="scopes-error"')
  })

  it('names a token that cannot be made by its field', async () => {
    const page = await ada.get('/user/ada/api-tokens')
    const r = await ada.post('/user/ada/api-tokens', { _csrf_token: csrfOf(page.html), name: '' })
    expect(r.res.status).toBe(409)
    expect(r.html).toContain('id="name-error"')
  })
})

// the webhooks page (issue 35): made from the form (errors by field), listed, a test event queued
// and shown among the deliveries with the secret, deleted; nobody else's, no form without its token
describe('webhooks page', () => {
  it('makes, shows, tests and deletes a webhook of the user only', async () => {
    const page = await ada.get('/user/ada/webhooks')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('No webhooks yet.')
    expect(page.html).toContain('href="/user/ada/webhooks"')

    const bad = await ada.post('/user/ada/webhooks', { _csrf_token: csrfOf(page.html), url: 'http://10.0.0.1/hook', events: 'dataset.eaten' })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('id="url-error"')
    expect(bad.html).toContain('id="events-error"')
    expect(bad.html).toContain('value="dataset.eaten"')

    const made = await ada.post('/user/ada/webhooks', { _csrf_token: csrfOf(page.html), url: 'https://hooks.example.org/ada', events: 'dataset.* resource.created' })
    expect(made.res.status).toBe(303)
    const [hook] = await t.ok('webhook_list', { user: 'ada' }, sys)
    expect(hook).toMatchObject({ url: 'https://hooks.example.org/ada', events: ['dataset.*', 'resource.created'] })
    expect(made.res.headers.get('location')).toBe(`/user/ada/webhooks/${hook.id}`)

    const one = await ada.get(`/user/ada/webhooks/${hook.id}`)
    expect(one.res.status).toBe(200)
    const secret = (await t.ok('webhook_show', { id: hook.id }, sys)).secret
    expect(one.html).toContain(`value="${secret}"`)
    expect(one.html).toContain('Nothing delivered yet.')
    const list = await ada.get('/user/ada/webhooks')
    expect(list.html).toContain('https://hooks.example.org/ada')

    const tested = await ada.post(`/user/ada/webhooks/${hook.id}/test`, { _csrf_token: csrfOf(list.html) })
    expect(tested.res.status).toBe(303)
    expect((await ada.get(`/user/ada/webhooks/${hook.id}`)).html).toContain('<code>webhook.test</code>')

    // nobody else sees or changes it; no form without its token
    expect((await bob.get('/user/ada/webhooks')).res.status).toBe(404)
    expect((await bob.get(`/user/ada/webhooks/${hook.id}`)).res.status).toBe(404)
    expect((await bob.get(`/user/bob/webhooks/${hook.id}`)).res.status).toBe(404)
    expect((await bob.post(`/user/bob/webhooks/${hook.id}/delete`, { _csrf_token: csrfOf((await bob.get('/dataset')).html) })).res.status).toBe(404)
    expect((await ada.post(`/user/ada/webhooks/${hook.id}/delete`, {})).res.status).toBe(403)
    expect(await t.ok('webhook_list', { user: 'ada' }, sys)).toHaveLength(1)

    const deleted = await ada.post(`/user/ada/webhooks/${hook.id}/delete`, { _csrf_token: csrfOf(list.html) })
    expect(deleted.res.status).toBe(303)
    expect(await t.ok('webhook_list', { user: 'ada' }, sys)).toEqual([])
    expect((await visitor().get('/user/ada/webhooks')).res.status).toBe(303)
  })
})
