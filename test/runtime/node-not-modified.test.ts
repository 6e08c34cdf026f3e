// The Node adapter's conditional-GET shortcut (runtime/node-not-modified.ts) over a real socket:
// a 304 decided before the app has the app's own headers, and every case the app must answer
// (a changed answer, another caller, a bad key, an uncached action) still reaches the app.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withNotModified } from '../../src/runtime/node-not-modified'
import { AnonymousValidators, notModifiedBeforeApp, notModifiedNow } from '../../src/http/action-route'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let server: Server
let base: string
let appCalls = 0
let sys: { apikey: string }
let member: { apikey: string; name: string }
let table: string

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers })
const VALIDATORS = ['etag', 'cache-control', 'vary']
const validators = (res: Response) => Object.fromEntries(VALIDATORS.map((h) => [h, res.headers.get(h)]))

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  const org = await t.make.organization(sys, { name: 'fast-org' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
  const pkg = await t.ok('package_create', { name: 'fast-public', owner_org: org.id }, sys)
  await t.ok('package_create', { name: 'fast-private', owner_org: org.id, private: true }, sys)
  table = (await t.ok('datastore_create', { resource: { package_id: pkg.id }, fields: [{ id: 'n', type: 'int' }], records: [{ n: 1 }] }, sys)).resource_id
  const app = getRequestListener((req) => t.app.fetch(req))
  server = createServer(withNotModified(t.deps, (req, res) => {
    appCalls++
    return app(req, res)
  }))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  t?.client.close()
})

describe('304 before the app (Node)', () => {
  it("answers a current ETag itself, with the app's headers", async () => {
    for (const path of [
      '/api/3/action/package_show?id=fast-public',
      '/api/action/dataset_show?id=fast-public',
      '/api/3/action/package_search?q=fast&facet.field=%5B%22tags%22%5D',
      '/api/3/action/package_show?id=fast-public&callback=cb',
      `/api/3/action/datastore_search?resource_id=${table}`,
    ]) {
      const first = await get(path)
      expect(first.status).toBe(200)
      await first.arrayBuffer()
      const etag = first.headers.get('etag')!
      // what the app itself answers to the same conditional request
      const fromApp = await t.app.request(path, { headers: { 'if-none-match': etag } })
      expect(fromApp.status).toBe(304)
      const calls = appCalls
      // twice: computed, then (anonymous) remembered for this log position
      for (let i = 0; i < 2; i++) {
        const fast = await get(path, { 'if-none-match': etag })
        expect(fast.status).toBe(304)
        expect(appCalls).toBe(calls)
        expect(validators(fast)).toEqual(validators(fromApp))
      }
      // another tag for the same URL is no match
      expect((await get(path, { 'if-none-match': '"0123"' })).status).toBe(200)
    }
  })

  it('answers an authenticated caller whose ETag holds, and no one else with it', async () => {
    const path = '/api/3/action/package_show?id=fast-private'
    const mine = await get(path, { authorization: member.apikey })
    expect(mine.status).toBe(200)
    const etag = mine.headers.get('etag')!
    const calls = appCalls
    const again = await get(path, { authorization: member.apikey, 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(again.headers.get('cache-control')).toMatch(/^private/)
    expect(appCalls).toBe(calls)
    // anonymous, another user, a key that names no one: the app answers (403 each)
    expect((await get(path, { 'if-none-match': etag })).status).toBe(403)
    expect((await get(path, { authorization: sys.apikey, 'if-none-match': etag })).status).toBe(200)
    const bad = await get(path, { authorization: 'no-such-key', 'if-none-match': etag })
    expect(bad.status).toBe(403)
    expect((await bad.json()).success).toBe(false)
    expect(appCalls).toBe(calls + 3)
  })

  it('leaves a changed answer, uncached actions and other methods to the app', async () => {
    const path = '/api/3/action/package_show?id=fast-public'
    const etag = (await get(path)).headers.get('etag')!
    await t.ok('package_patch', { id: 'fast-public', notes: 'changed' }, sys)
    let calls = appCalls
    const changed = await get(path, { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect((await changed.json()).result.notes).toBe('changed')
    expect(appCalls).toBe(calls + 1)
    calls = appCalls
    expect((await get('/api/3/action/job_list', { authorization: sys.apikey, 'if-none-match': '*' })).status).toBe(200)
    expect((await get('/api/3/action/no_such_action', { 'if-none-match': '*' })).status).toBe(400)
    // `*` is no match before the action has run (it may answer an error): here a Not Found
    expect((await get('/api/3/action/package_show?id=no-such', { 'if-none-match': '*' })).status).toBe(404)
    const post = await fetch(base + '/api/3/action/package_show', { method: 'POST', headers: { 'content-type': 'application/json', 'if-none-match': '*' }, body: '{"id":"fast-public"}' })
    expect(post.status).toBe(200)
    expect(appCalls).toBe(calls + 4)
  })

  it('decides a remembered anonymous URL without waiting only while this turn\'s probe holds', async () => {
    const memo = new AnonymousValidators()
    const url = 'http://localhost/api/3/action/package_show?id=fast-public'
    const etag = (await t.app.request(url)).headers.get('etag')!
    const h = (extra: Record<string, string> = {}) => new Headers({ 'if-none-match': etag, ...extra })
    expect(await notModifiedBeforeApp(t.deps, url, h(), memo)).toMatchObject({ etag })
    // a probe in this turn found nothing new: decided at once, from the remembered validators
    await t.deps.changes.catchUp()
    await t.deps.changes.catchUp({ shareTurn: true })
    expect(t.deps.changes.caughtUpThisTurn?.()).toBe(true)
    expect(notModifiedNow(t.deps, url, h(), memo)).toMatchObject({ etag })
    expect(notModifiedNow(t.deps, url, new Headers({ 'if-none-match': '"other"' }), memo)).toBeNull()
    // a caller with a key, or a URL not remembered: not decidable now
    expect(notModifiedNow(t.deps, url, h({ authorization: member.apikey }), memo)).toBeUndefined()
    expect(notModifiedNow(t.deps, url + '&x=1', h(), memo)).toBeUndefined()
    // after a local write the probe no longer holds
    await t.ok('package_patch', { id: 'fast-public', notes: 'again' }, sys)
    expect(notModifiedNow(t.deps, url, h(), memo)).toBeUndefined()
    // and on the next turn neither
    await t.deps.changes.catchUp({ shareTurn: true })
    await new Promise((r) => setImmediate(r))
    expect(notModifiedNow(t.deps, url, h(), memo)).toBeUndefined()
  })
})
