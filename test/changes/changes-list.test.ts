// Issue 19, the change feed: changes_list reports creates, updates, deletes, purges and privacy
// changes in order across two processes, with cursors that survive restarts, and hides what the
// caller may not read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { setup, TEST_PROFILE, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string; id: string; name: string }
let member: { apikey: string; id: string; name: string }
let org: any
let other: Awaited<ReturnType<typeof openCatalogDb>>
let otherApp: ReturnType<typeof createApp>

/** The whole feed from `since` for `as`, page by page (limit `limit`), and the last cursor. */
async function follow(as: { apikey: string } | null, since?: string, limit = 3, types?: string[]) {
  const all: any[] = []
  let cursor = since
  for (let i = 0; i < 1000; i++) {
    const r = await t.ok('changes_list', { ...(cursor ? { since: cursor } : {}), limit, ...(types ? { types } : {}) }, as)
    all.push(...r.changes)
    if (r.next === cursor) break
    cursor = r.next
  }
  return { changes: all, next: cursor! }
}

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  org = await t.make.organization(sys, { name: 'feed-org' })
  await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'editor' }, sys)
  // a second process on the same database file
  other = await openCatalogDb(`file:${t.file}`)
  const deps = buildDeps(loadConfig(TEST_PROFILE), other.db, other)
  await warmUp(deps)
  otherApp = createApp(deps)
})
afterAll(() => other?.close())

const callOther = async (name: string, body: object, as: { apikey: string }) => {
  const res = await otherApp.request(`/api/3/action/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: as.apikey }, body: JSON.stringify(body) })
  const j = (await res.json()) as any
  if (!j.success) throw new Error(JSON.stringify(j))
  return j.result
}

describe('changes_list', () => {
  it('reports each kind of change in order, across two processes, to a visitor as they may see it', async () => {
    const start = (await t.ok('changes_list', { limit: 1000 })).next
    const a = await t.ok('package_create', { name: 'feed-a', owner_org: org.id }, sys) // created
    await callOther('package_patch', { id: 'feed-a', title: 'A!' }, sys) // updated, other process
    const b = await callOther('package_create', { name: 'feed-b', owner_org: org.id }, sys) // created
    await t.ok('package_patch', { id: 'feed-b', private: true }, sys) // made_private
    await t.ok('package_patch', { id: 'feed-b', notes: 'secret notes' }, sys) // updated while private
    await t.ok('package_patch', { id: 'feed-b', private: false }, sys) // made_public
    await t.ok('package_delete', { id: 'feed-a' }, sys) // deleted
    await t.ok('dataset_purge', { id: 'feed-a' }, sys) // purged
    const hidden = await t.ok('package_create', { name: 'feed-hidden', owner_org: org.id, private: true }, sys)

    const visitor = await follow(null, start)
    const mine = visitor.changes.filter((c: any) => c.type === 'dataset')
    expect(mine.map((c: any) => [c.name, c.change])).toEqual([
      [null, 'created'], // feed-a: purged since, so no name is left
      [null, 'updated'],
      ['feed-b', 'created'],
      ['feed-b', 'made_private'],
      // the update while private was not the visitor's to see then, nor is it now
      ['feed-b', 'made_public'],
      [null, 'deleted'],
      [null, 'purged'],
    ])
    expect(mine.map((c: any) => c.id)).toEqual([a.id, a.id, b.id, b.id, b.id, a.id, a.id])
    expect(mine.every((c: any, i: number) => i === 0 || c.seq > mine[i - 1].seq)).toBe(true)
    expect(visitor.changes.some((c: any) => c.id === hidden.id)).toBe(false)
    expect(mine[0].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/)

    // a member of the organization sees the private dataset and the update made while private
    const editor = (await follow(member, start)).changes.filter((c: any) => c.type === 'dataset')
    expect(editor.map((c: any) => [c.name, c.change])).toContainEqual(['feed-hidden', 'created'])
    expect(editor.filter((c: any) => c.name === 'feed-b').map((c: any) => c.change)).toEqual(['created', 'made_private', 'updated', 'made_public'])
  })

  it('reports resources, DataStore tables, organizations, groups and users; filters by type', async () => {
    const start = (await follow(sys)).next
    const d = await t.ok('package_create', { name: 'feed-res', owner_org: org.id }, sys)
    const r = await t.ok('resource_create', { package_id: d.id, url: 'http://x/y.csv', name: 'Y' }, sys)
    await t.ok('resource_patch', { id: r.id, name: 'Y2' }, sys)
    const table = await t.ok('datastore_create', { resource_id: r.id, force: true, fields: [{ id: 'n', type: 'int' }] }, sys)
    expect(table.resource_id).toBe(r.id)
    await t.ok('datastore_delete', { resource_id: r.id, force: true }, sys)
    await t.ok('resource_delete', { id: r.id }, sys)
    const g = await t.make.group(sys, { name: 'feed-group' })
    await t.ok('group_delete', { id: g.id }, sys)
    const o2 = await t.make.organization(sys, { name: 'feed-org-2' })
    await t.ok('organization_purge', { id: o2.id }, sys)

    const { changes } = await follow(sys, start, 5)
    const of = (type: string) => changes.filter((c: any) => c.type === type).map((c: any) => c.change)
    expect(of('resource')).toEqual(['created', 'updated', 'updated', 'updated', 'deleted'])
    expect(of('datastore')).toEqual(['created', 'deleted'])
    expect(of('group')).toEqual(['created', 'deleted'])
    expect(changes.filter((c: any) => c.type === 'organization' && c.id === o2.id).map((c: any) => c.change)).toEqual(['created', 'purged'])

    const onlyGroups = await follow(sys, start, 5, ['group'])
    expect(new Set(onlyGroups.changes.map((c: any) => c.type))).toEqual(new Set(['group']))
    // users: sysadmins (and each user for themselves) only
    const u = await t.make.user()
    expect((await follow(sys, start, 50, ['user'])).changes.some((c: any) => c.id === u.id && c.change === 'created')).toBe(true)
    // (TEST_PROFILE keeps CKAN's default: user details are public)
    expect((await follow(null, start, 50, ['user'])).changes.some((c: any) => c.id === u.id)).toBe(true)
  })

  it('shows users only to sysadmins and themselves when user details are not public', async () => {
    const closed = await setup({ 'service.auth.public_user_details': 'false' })
    const admin = await closed.make.sysadmin()
    const u = await closed.make.user()
    const seen = async (as: { apikey: string } | null) =>
      (await closed.ok('changes_list', { types: 'user', limit: 1000 }, as)).changes.map((c: any) => c.id)
    expect(await seen(null)).toEqual([])
    expect(await seen(u)).toEqual([u.id])
    expect(await seen(admin)).toEqual(expect.arrayContaining([admin.id, u.id]))
    closed.client.close()
  })

  it('continues from a cursor after a restart, and refuses a bad or expired cursor', async () => {
    const { next } = await follow(null)
    await t.ok('package_create', { name: 'feed-after', owner_org: org.id }, sys)
    // a new process on the same file reads the cursor the first one gave
    const fresh = await openCatalogDb(`file:${t.file}`)
    try {
      const deps = buildDeps(loadConfig(TEST_PROFILE), fresh.db, fresh)
      await warmUp(deps)
      const res = await createApp(deps).request(`/api/3/action/changes_list?since=${next}`)
      const body = (await res.json()) as any
      expect(body.result.changes.map((c: any) => [c.name, c.change])).toEqual([['feed-after', 'created']])
    } finally {
      fresh.close()
    }
    const bad = await t.call('changes_list', { since: 'not-a-cursor' })
    expect(bad.status).toBe(409)
    expect(bad.body.error.since[0]).toBe('Not a cursor of this feed')
    const types = await t.call('changes_list', { types: ['dataset', 'spaceship'] })
    expect(types.body.error.types[0]).toMatch(/Unknown type: spaceship/)
    // with a retention of 0 days nothing is kept: an old cursor is refused with a clear message
    await t.client.execute("UPDATE change_log SET at = '2000-01-01T00:00:00.000' WHERE seq < (SELECT max(seq) FROM change_log)")
    const old = await t.call('changes_list', { since: btoa('seq:1').replace(/=+$/, '') })
    expect(old.status).toBe(409)
    expect(old.body.error.since[0]).toMatch(/older than the 90 days the change feed keeps/)
  })
})
