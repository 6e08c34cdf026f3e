// A user's webhooks page (issue 35): made from the form (errors by field), listed, a test event
// queued and shown among the deliveries with the secret, deleted; nobody else's, no form without
// its CSRF token.
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
