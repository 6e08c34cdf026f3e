// The change feed: every request sees writes committed before it began, in this or another process.
import { describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { addSysadmin } from '../../src/model/sysadmin'
import { TEST_PROFILE, tempDbFile } from '../helpers/setup'

/** A "process": its own connections (with the Node head probe), caches and app. */
async function processOn(file: string) {
  const opened = await openCatalogDb(`file:${file}`)
  const deps = buildDeps(loadConfig(TEST_PROFILE), opened.db, opened)
  await warmUp(deps)
  return { deps, app: createApp(deps), close: opened.close }
}

const nextTurn = () => new Promise((r) => setImmediate(r))

describe('ChangeFeed across processes with the head probe', () => {
  it('shows a write made by another process to the next request', async () => {
    const file = tempDbFile()
    const one = await processOn(file)
    const two = await processOn(file)
    const admin = await addSysadmin(one.deps, 'feed-admin')
    const headers = { 'content-type': 'application/json', authorization: admin.apikey! }
    const post = (app: typeof one.app, action: string, body: object) =>
      Promise.resolve(app.request(`/api/3/action/${action}`, { method: 'POST', headers, body: JSON.stringify(body) })).then((r: Response) => r.json())

    expect((await post(one.app, 'package_create', { name: 'feed-ds', notes: 'v1' })).success).toBe(true)
    await nextTurn()
    expect((await (await two.app.request('/api/3/action/package_show?id=feed-ds')).json()).result.notes).toBe('v1')
    for (let i = 2; i <= 4; i++) {
      await post(one.app, 'package_patch', { id: 'feed-ds', notes: `v${i}` })
      await nextTurn()
      const shown = await (await two.app.request('/api/3/action/package_show?id=feed-ds')).json()
      expect(shown.result.notes).toBe(`v${i}`)
    }
    one.close()
    two.close()
  })

  it('shows a process its own write to the next request of the same turn', async () => {
    const p = await processOn(tempDbFile())
    const admin = await addSysadmin(p.deps, 'feed-admin-2')
    const headers = { 'content-type': 'application/json', authorization: admin.apikey! }
    await p.app.request('/api/3/action/package_create', { method: 'POST', headers, body: JSON.stringify({ name: 'own-ds', notes: 'a' }) })
    expect((await (await p.app.request('/api/3/action/package_show?id=own-ds')).json()).result.notes).toBe('a')
    await p.app.request('/api/3/action/package_patch', { method: 'POST', headers, body: JSON.stringify({ id: 'own-ds', notes: 'b' }) })
    expect((await (await p.app.request('/api/3/action/package_show?id=own-ds')).json()).result.notes).toBe('b')
    // An organization rename reaches the cached dataset dict too.
    const org = await (await p.app.request('/api/3/action/organization_create', { method: 'POST', headers, body: JSON.stringify({ name: 'feed-org', title: 'Old' }) })).json()
    await p.app.request('/api/3/action/package_patch', { method: 'POST', headers, body: JSON.stringify({ id: 'own-ds', owner_org: org.result.id }) })
    expect((await (await p.app.request('/api/3/action/package_show?id=own-ds')).json()).result.organization.title).toBe('Old')
    await p.app.request('/api/3/action/organization_patch', { method: 'POST', headers, body: JSON.stringify({ id: 'feed-org', title: 'New' }) })
    expect((await (await p.app.request('/api/3/action/package_show?id=own-ds')).json()).result.organization.title).toBe('New')
    p.close()
  })

  it('resolves a reused name to the new dataset, not the cached deleted one', async () => {
    const p = await processOn(tempDbFile())
    const admin = await addSysadmin(p.deps, 'feed-admin-3')
    const headers = { 'content-type': 'application/json', authorization: admin.apikey! }
    const post = (action: string, body: object) =>
      Promise.resolve(p.app.request(`/api/3/action/${action}`, { method: 'POST', headers, body: JSON.stringify(body) })).then((r: Response) => r.json())
    const first = await post('package_create', { name: 'reuse-x', notes: 'first' })
    expect((await post('package_show', { id: 'reuse-x' })).result.id).toBe(first.result.id)
    await post('package_delete', { id: 'reuse-x' })
    const second = await post('package_create', { name: 'reuse-x', notes: 'second' })
    const shown = await post('package_show', { id: 'reuse-x' })
    expect(shown.result.id).toBe(second.result.id)
    expect(shown.result.notes).toBe('second')
    expect((await post('package_show', { id: first.result.id })).result.name).toBe(first.result.id)
    p.close()
  })
})
