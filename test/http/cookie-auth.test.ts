// CKAN 2.10's ckan.auth.enable_cookie_auth_in_api: under api_compat 2.10 and later the API takes
// its caller from the web pages' session cookie when no key or token header names one; a post so
// authenticated needs the pages' CSRF token (else 400, nothing written); the option false, or
// api_compat 2.9, leaves the cookie unread. An answer read through the cookie never stands for an
// anonymous one (ETags, 304s before the app, the shared answer cache), nor the other way round.
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnswerCache } from '../../src/context'
import { AnonymousValidators, notModifiedBeforeApp, notModifiedNow } from '../../src/http/action-route'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, signIn, type Browser } from '../helpers/web-browser'

const PASSWORD = 'correct horse'

/** A site with an organization, its private dataset, an editor of it and an outsider, both signed in. */
async function site(overrides: Record<string, string>) {
  const t = await setup(overrides)
  const sys = await t.make.sysadmin()
  const editor = await t.make.user({ password: PASSWORD })
  const outsider = await t.make.user({ password: PASSWORD })
  const org = await t.make.organization(sys)
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
  const pkg = await t.ok('package_create', { name: `cookie-private-${org.name}`, title: 'Before', owner_org: org.id, private: true }, sys)
  const signedIn = async (name: string) => {
    const b = browser((path, init) => t.app.request(path, init))
    await signIn(b, name, PASSWORD)
    return b
  }
  return { t, sys, editor, outsider, org, pkg, asEditor: await signedIn(editor.name), asOutsider: await signedIn(outsider.name) }
}

const cookieOf = (b: Browser, only?: string) =>
  [...b.jar].filter(([k]) => !only || k === only).map(([k, v]) => `${k}=${v}`).join('; ')
const csrfOf = (b: Browser) => b.jar.get('ckan_csrf')!

describe('cookie authentication in the API, api_compat 2.10', () => {
  let s: Awaited<ReturnType<typeof site>>
  let t: TestEnv
  const show = (headers: Record<string, string>) =>
    t.app.request(`/api/3/action/package_show?id=${s.pkg.id}`, { headers })
  const post = (name: string, body: object, headers: Record<string, string>) =>
    t.app.request(`/api/3/action/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const title = async () => (await t.ok('package_show', { id: s.pkg.id }, s.sys)).title

  beforeAll(async () => {
    s = await site({ 'service.api_compat': '2.10' })
    t = s.t
  })

  it('reads a private dataset as the signed-in member, and refuses the others', async () => {
    const mine = await show({ cookie: cookieOf(s.asEditor) })
    expect(mine.status).toBe(200)
    expect((await mine.json()).result.id).toBe(s.pkg.id)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect((await show({ cookie: cookieOf(s.asOutsider) })).status).toBe(403)
    expect((await show({})).status).toBe(403)
    // only the session cookie signs in; a forged one is nobody
    expect((await show({ cookie: cookieOf(s.asEditor, 'ckan_csrf') })).status).toBe(403)
    expect((await show({ cookie: `ckan_session=${s.asEditor.jar.get('ckan_session')!.slice(0, -4)}AAAA` })).status).toBe(403)
    // JSONP runs anonymously, cookie or not
    expect((await t.app.request(`/api/3/action/package_show?id=${s.pkg.id}&callback=cb`, { headers: { cookie: cookieOf(s.asEditor) } })).status).toBe(403)
  })

  it('also on the other /api/ routes that find their caller', async () => {
    const geo = (cookie: string) =>
      t.app.request('/api/2/search/dataset/geo?bbox=-180,-90,180,90', { headers: { cookie } })
    await t.ok('package_patch', { id: s.pkg.id, extras: [{ key: 'spatial', value: '{"type":"Point","coordinates":[1,2]}' }] }, s.sys)
    expect((await (await geo(cookieOf(s.asEditor))).json()).results).toContain(s.pkg.id)
    expect((await (await geo(cookieOf(s.asOutsider))).json()).results).not.toContain(s.pkg.id)
  })

  it('refuses a cookie-only post without the CSRF token, with the envelope, and writes nothing', async () => {
    const before = await title()
    const none = await post('package_patch', { id: s.pkg.id, title: 'No token' }, { cookie: cookieOf(s.asEditor) })
    expect(none.status).toBe(400)
    const body = await none.json()
    expect(body).toMatchObject({ success: false, error: { __type: 'Bad Request', message: 'The CSRF token is missing.' } })
    expect(body.help).toMatch(/help_show\?name=package_patch$/)
    const wrong = await post('package_patch', { id: s.pkg.id, title: 'Wrong token' }, { cookie: cookieOf(s.asEditor), 'x-csrftoken': 'f'.repeat(64) })
    expect(wrong.status).toBe(400)
    expect((await wrong.json()).error.message).toBe('The CSRF tokens do not match.')
    const noCookie = await post('package_patch', { id: s.pkg.id, title: 'No CSRF cookie' }, { cookie: cookieOf(s.asEditor, 'ckan_session'), 'x-csrftoken': csrfOf(s.asEditor) })
    expect((await noCookie.json()).error.message).toBe('The CSRF session token is missing.')
    const foreign = await post('package_patch', { id: s.pkg.id, title: 'Elsewhere' }, { cookie: cookieOf(s.asEditor), 'x-csrftoken': csrfOf(s.asEditor), origin: 'https://evil.example' })
    expect(foreign.status).toBe(400)
    expect((await foreign.json()).error.message).toBe('The referrer does not match the host.')
    // a read action posted is a post too (flask-wtf guards every POST)
    expect((await post('package_show', { id: s.pkg.id }, { cookie: cookieOf(s.asEditor) })).status).toBe(400)
    expect(await title()).toBe(before)
  })

  it('accepts the token in either header or in the form field', async () => {
    const byHeader = await post('package_patch', { id: s.pkg.id, title: 'X-CSRFToken' }, { cookie: cookieOf(s.asEditor), 'x-csrftoken': csrfOf(s.asEditor) })
    expect(byHeader.status).toBe(200)
    expect(await title()).toBe('X-CSRFToken')
    const other = await post('package_patch', { id: s.pkg.id, title: 'X-CSRF-Token' }, { cookie: cookieOf(s.asEditor), 'x-csrf-token': csrfOf(s.asEditor) })
    expect(other.status).toBe(200)
    expect(await title()).toBe('X-CSRF-Token')
    const form = await s.asEditor.post('/api/3/action/package_patch', { id: s.pkg.id, title: 'Form', _csrf_token: csrfOf(s.asEditor) })
    expect(form.res.status).toBe(200)
    const result = JSON.parse(form.html).result
    expect(result.title).toBe('Form')
    expect(JSON.stringify(result)).not.toContain('_csrf_token')
    // the token in a JSON body is not read (flask-wtf reads forms and headers)
    const inJson = await post('package_patch', { id: s.pkg.id, title: 'JSON', _csrf_token: csrfOf(s.asEditor) }, { cookie: cookieOf(s.asEditor) })
    expect(inJson.status).toBe(400)
    // the cookie's rights are the user's: the outsider with a good token is refused by auth
    const outsider = await post('package_patch', { id: s.pkg.id, title: 'Outsider' }, { cookie: cookieOf(s.asOutsider), 'x-csrftoken': csrfOf(s.asOutsider) })
    expect(outsider.status).toBe(403)
    expect(await title()).toBe('Form')
  })

  it('lets a key or token in the headers win over the cookie, with no CSRF token needed', async () => {
    expect((await show({ cookie: cookieOf(s.asEditor), authorization: s.outsider.apikey })).status).toBe(403)
    expect((await show({ cookie: cookieOf(s.asOutsider), authorization: s.editor.apikey })).status).toBe(200)
    const byToken = await post('package_patch', { id: s.pkg.id, title: 'By token' }, { cookie: cookieOf(s.asOutsider), authorization: s.editor.apikey })
    expect(byToken.status).toBe(200)
    expect(await title()).toBe('By token')
    // a key that names nobody leaves the caller to the cookie, as on the web pages
    expect((await show({ cookie: cookieOf(s.asEditor), authorization: 'not-a-key' })).status).toBe(200)
  })

  it("keeps answers read through the cookie apart from anonymous ones: ETags, 304s, the answer cache", async () => {
    const path = `/api/3/action/package_search?q=id:${s.pkg.id}&include_private=true`
    const anon = await t.app.request(path)
    expect((await anon.json()).result.count).toBe(0)
    const anonTag = anon.headers.get('etag')!
    expect(anon.headers.get('cache-control')).toMatch(/^public/)
    // the cookie's request naming the anonymous ETag is answered in full, privately
    const mine = await t.app.request(path, { headers: { cookie: cookieOf(s.asEditor), 'if-none-match': anonTag } })
    expect(mine.status).toBe(200)
    expect((await mine.json()).result.count).toBe(1)
    const myTag = mine.headers.get('etag')!
    expect(myTag).not.toBe(anonTag)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect(mine.headers.get('vary')).toMatch(/Cookie/)
    // and an anonymous request naming the cookie's ETag gets no 304
    const again = await t.app.request(path, { headers: { 'if-none-match': myTag } })
    expect(again.status).toBe(200)
    expect((await again.json()).result.count).toBe(0)

    // the Node adapter's 304 before the app: the anonymous validators kept for the URL are not
    // the cookie's, and the full check gives the cookie's request no 304 on the anonymous tag
    const url = `http://localhost${path}`
    const memo = new AnonymousValidators()
    const h = (more: Record<string, string> = {}) => new Headers({ 'if-none-match': anonTag, ...more })
    expect(await notModifiedBeforeApp(t.deps, url, h(), memo)).toMatchObject({ etag: anonTag })
    expect(notModifiedNow(t.deps, url, h(), memo)).toMatchObject({ etag: anonTag })
    expect(notModifiedNow(t.deps, url, h({ cookie: cookieOf(s.asEditor) }), memo)).toBeUndefined()
    // a CSRF cookie alone names nobody: the anonymous validators stand
    expect(notModifiedNow(t.deps, url, h({ cookie: cookieOf(s.asEditor, 'ckan_csrf') }), memo)).toMatchObject({ etag: anonTag })
    expect(await notModifiedBeforeApp(t.deps, url, h({ cookie: cookieOf(s.asEditor) }), memo)).toBeNull()
    expect(await notModifiedBeforeApp(t.deps, url, h({ cookie: cookieOf(s.asEditor), 'if-none-match': myTag }), memo)).toMatchObject({ etag: myTag })

    // the shared answer cache (Workers): only anonymous answers go in, and only anonymous
    // requests are answered from it
    const kept = new Map<string, Response>()
    const asked: string[] = []
    const cache: AnswerCache = {
      async get(etag) {
        asked.push(etag)
        return kept.get(etag)?.clone()
      },
      async put(etag, res) {
        kept.set(etag, res)
      },
    }
    t.deps.answers = cache
    try {
      const cached = `${path}&rows=5`
      const first = await t.app.request(cached, { headers: { cookie: cookieOf(s.asEditor) } })
      expect((await first.json()).result.count).toBe(1)
      expect(kept.size).toBe(0)
      expect(asked).toEqual([])
      const anonFirst = await t.app.request(cached)
      expect((await anonFirst.json()).result.count).toBe(0)
      expect(kept.size).toBe(1)
      const second = await t.app.request(cached, { headers: { cookie: cookieOf(s.asEditor) } })
      expect(second.headers.get('x-answer-cache')).toBeNull()
      expect((await second.json()).result.count).toBe(1)
    } finally {
      delete t.deps.answers
    }
  })
})

describe('cookie authentication in the API, turned off', () => {
  for (const [name, overrides] of [
    ['ckan.auth.enable_cookie_auth_in_api false under 2.10', { 'service.api_compat': '2.10', 'ckan.auth.enable_cookie_auth_in_api': 'false' }],
    ['api_compat 2.9 (the option at its default)', {}],
  ] as const) {
    it(`leaves the cookie unread: ${name}`, async () => {
      const s = await site(overrides)
      const t = s.t
      const path = `/api/3/action/package_show?id=${s.pkg.id}`
      expect((await t.app.request(path, { headers: { cookie: cookieOf(s.asEditor) } })).status).toBe(403)
      expect((await t.app.request(path, { headers: { authorization: s.editor.apikey } })).status).toBe(200)
      // a cookie-only post is anonymous: refused by auth, not by the CSRF check
      const res = await t.app.request('/api/3/action/package_patch', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: cookieOf(s.asEditor) },
        body: JSON.stringify({ id: s.pkg.id, title: 'Anonymous' }),
      })
      expect(res.status).toBe(403)
      expect((await res.json()).error.__type).toBe('Authorization Error')
      // the cookie does not keep the anonymous validators from standing
      const url = `http://localhost/api/3/action/package_search?q=cookie`
      const memo = new AnonymousValidators()
      const etag = (await t.app.request(url)).headers.get('etag')!
      const h = (more: Record<string, string> = {}) => new Headers({ 'if-none-match': etag, ...more })
      expect(await notModifiedBeforeApp(t.deps, url, h(), memo)).toMatchObject({ etag })
      expect(notModifiedNow(t.deps, url, h({ cookie: cookieOf(s.asEditor) }), memo)).toMatchObject({ etag })
      t.client.close()
    })
  }
})
