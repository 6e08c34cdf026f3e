// CKAN 2.11's rules for a given `id` beyond datasets, groups and organizations (api-compat.test.ts):
// users and resource views take one from sysadmins only and only a UUID, extras refuse one from
// anyone else, and a new resource's id must be a UUID. 2.9 and 2.10 keep their answers; an extra's
// id is never stored under any setting.
import { beforeAll, describe, expect, it } from 'vitest'
import { randomUUID } from 'node:crypto'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { callAction } from '../../src/actions/call'
import { systemContext } from '../../src/context'
import { SCHEMING } from '../scheming/config'

type Who = Caller & { id: string; name: string }
const env: Record<string, { t: TestEnv; sys: Who; user: Who }> = {}
const VIA_API = { 'service.auth.create_user_via_api': 'true' }

beforeAll(async () => {
  for (const v of ['2.9', '2.10', '2.11']) {
    const t = await setup({ 'service.api_compat': v, ...VIA_API })
    env[v] = { t, sys: await t.make.sysadmin(), user: await t.make.user() }
  }
})

let n = 0
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${n++}`
const NOT_EXPECTED = 'The input field id was not expected.'

describe('user_create id', () => {
  for (const v of ['2.9', '2.10']) {
    it(`${v}: kept from a sysadmin (any text), ignored from anyone else`, async () => {
      const { t, sys } = env[v]!
      const name = uniq('u')
      const mine = await t.ok('user_create', { name, email: `${name}@example.com`, password: 'password123', id: `custom-${name}` }, sys)
      expect(mine.id).toBe(`custom-${name}`)
      const other = uniq('u')
      const self = await t.ok('user_create', { name: other, email: `${other}@example.com`, password: 'password123', id: `mine-${other}` }, null)
      expect(self.id).not.toBe(`mine-${other}`)
    })
  }

  it('2.11: ignored from anyone but a sysadmin (CKAN 2.11 drops it in the action)', async () => {
    const { t } = env['2.11']!
    const name = uniq('u')
    const id = randomUUID()
    const made = await t.ok('user_create', { name, email: `${name}@example.com`, password: 'password123', id }, null)
    expect(made.id).not.toBe(id)
    // an empty id is no id
    const other = uniq('u')
    expect((await t.ok('user_create', { name: other, email: `${other}@example.com`, password: 'password123', id: '' }, null)).name).toBe(other)
  })

  it('2.11: a sysadmin gives a UUID, not any text; one in use is ignored, never another user updated', async () => {
    const { t, sys, user } = env['2.11']!
    const name = uniq('u')
    const bad = await t.call('user_create', { name, email: `${name}@example.com`, password: 'password123', id: `custom-${name}` }, sys)
    expect(bad.body.error).toEqual({ __type: 'Validation Error', id: ['Invalid id provided'] })
    const id = randomUUID()
    expect((await t.ok('user_create', { name, email: `${name}@example.com`, password: 'password123', id }, sys)).id).toBe(id)
    for (const taken of [id, user.id]) {
      const again = uniq('u')
      const made = await t.ok('user_create', { name: again, email: `${again}@example.com`, password: 'password123', id: taken }, sys)
      expect(made.id).not.toBe(taken)
      expect(made.name).toBe(again)
    }
    expect((await t.ok('user_show', { id: user.id }, sys)).name).toBe(user.name)
  })
})

describe('resource ids', () => {
  for (const v of ['2.9', '2.10']) {
    it(`${v}: any id of 7 to 100 letters, digits, spaces, - and _; the characters and length checked`, async () => {
      const { t, user } = env[v]!
      const d = await t.ok('package_create', { name: uniq('d'), resources: [{ id: uniq('res-legacy'), url: 'http://e.com/a' }] }, user)
      expect(d.resources[0].id).toMatch(/^res-legacy-/)
      const r = await t.ok('resource_create', { package_id: d.id, id: uniq('res-other'), url: 'http://e.com/b' }, user)
      expect(r.id).toMatch(/^res-other-/)
      const chars = await t.call('resource_create', { package_id: d.id, id: 'bad id!', url: 'http://e.com/c' }, user)
      expect(chars.body.error).toEqual({ __type: 'Validation Error', id: ['Invalid characters in resource id'] })
      const nested = await t.call('package_create', { name: uniq('d'), resources: [{ url: 'http://e.com/a' }, { id: 'short', url: 'http://e.com/a' }] }, user)
      expect(nested.body.error.resources).toEqual([{}, { id: ['Invalid length for resource id'] }])
    })
  }

  it('2.11: a new resource id must be a UUID, from anyone (sysadmins too)', async () => {
    const { t, sys, user } = env['2.11']!
    for (const who of [sys, user]) {
      const nested = await t.call('package_create', { name: uniq('d'), resources: [{ url: 'http://e.com/a' }, { id: uniq('res-legacy'), url: 'http://e.com/a' }] }, who)
      expect(nested.body.error).toEqual({ __type: 'Validation Error', resources: [{}, { id: ['Invalid id provided'] }] })
      const short = await t.call('package_create', { name: uniq('d'), resources: [{ id: 'bad id!', url: 'http://e.com/a' }] }, who)
      expect(short.body.error.resources).toEqual([{ id: ['Invalid id provided'] }])
    }
    const id = randomUUID()
    const d = await t.ok('package_create', { name: uniq('d'), resources: [{ id, url: 'http://e.com/a' }] }, user)
    expect(d.resources[0].id).toBe(id)
    const bad = await t.call('resource_create', { package_id: d.id, id: uniq('res-other'), url: 'http://e.com/b' }, user)
    expect(bad.body.error).toEqual({ __type: 'Validation Error', id: ['Invalid id provided'] })
    const rid = randomUUID()
    expect((await t.ok('resource_create', { package_id: d.id, id: rid, url: 'http://e.com/b' }, user)).id).toBe(rid)
    // ids in use are still refused after the UUID check
    const taken = await t.call('package_create', { name: uniq('d'), resources: [{ id: rid, url: 'http://e.com/a' }] }, user)
    expect(taken.body.error.resources).toEqual([{ id: ['Resource id already exists.'] }])
    // the dataset's own resources are sent back as they are
    const shown = await t.ok('package_show', { id: d.id })
    expect((await t.ok('package_update', { ...shown, notes: 'again' }, user)).resources.map((r: { id: string }) => r.id)).toEqual([id, rid])
  })

  it('2.11: a dataset whose resources kept older ids can still be updated', async () => {
    const { t, sys } = env['2.11']!
    // the harvester (no authorization checks) keeps a remote catalogue's resource ids
    const ctx = { ...systemContext(t.deps), ignoreAuth: true }
    const legacy = uniq('res-legacy')
    const d = await callAction<{ id: string }>(ctx, 'package_create', { name: uniq('d'), resources: [{ id: legacy, url: 'http://e.com/a' }] })
    const shown = await t.ok('package_show', { id: d.id })
    const updated = await t.ok('package_update', { ...shown, resources: [...shown.resources, { url: 'http://e.com/new' }] }, sys)
    expect(updated.resources[0].id).toBe(legacy)
    expect((await t.ok('resource_patch', { id: legacy, name: 'renamed' }, sys)).name).toBe('renamed')
  })
})

describe('resource_view_create id', () => {
  async function resource(v: string) {
    const { t, user } = env[v]!
    const d = await t.ok('package_create', { name: uniq('d'), resources: [{ url: 'http://e.com/a.png', format: 'PNG' }] }, user)
    return d.resources[0].id as string
  }
  const view = (resource_id: string, extra: object = {}) => ({ resource_id, view_type: 'image_view', title: 'Pic', ...extra })

  for (const v of ['2.9', '2.10']) {
    it(`${v}: not a key a view takes, from anyone`, async () => {
      const { t, sys, user } = env[v]!
      const rid = await resource(v)
      for (const who of [sys, user]) {
        const r = await t.call('resource_view_create', view(rid, { id: randomUUID() }), who)
        expect(r.body.error).toEqual({ __type: 'Validation Error', __extras: ['The input field __extras was not expected.'] })
      }
    })
  }

  it('2.11: from a sysadmin only, a UUID, not one in use', async () => {
    const { t, sys, user } = env['2.11']!
    const rid = await resource('2.11')
    const theirs = await t.call('resource_view_create', view(rid, { id: randomUUID() }), user)
    expect(theirs.body.error).toEqual({ __type: 'Validation Error', id: [NOT_EXPECTED] })
    // an empty id is none: the view gets its own
    expect((await t.ok('resource_view_create', view(rid, { id: '' }), user)).id).toMatch(/^[0-9a-f-]{36}$/)
    const bad = await t.call('resource_view_create', view(rid, { id: 'my-view' }), sys)
    expect(bad.body.error).toEqual({ __type: 'Validation Error', id: ['Invalid id provided'] })
    const id = randomUUID()
    const made = await t.ok('resource_view_create', view(rid, { id }), sys)
    expect(made.id).toBe(id)
    expect((await t.ok('resource_view_show', { id })).title).toBe('Pic')
    const again = await t.call('resource_view_create', view(rid, { id }), sys)
    expect(again.body.error).toEqual({ __type: 'Validation Error', id: ['ResourceView id already exists'] })
  })
})

describe('the id of an extra', () => {
  const storedIds = async (t: TestEnv, table: 'package_extra' | 'group_extra', key: string) =>
    (await t.client.execute({ sql: `SELECT id FROM ${table} WHERE key = ?`, args: [key] })).rows.map((r) => String(r.id))

  for (const v of ['2.9', '2.10']) {
    it(`${v}: ignored from anyone: the extra gets its own`, async () => {
      const { t, sys, user } = env[v]!
      for (const who of [user, sys]) {
        const key = uniq('k')
        const given = randomUUID()
        const d = await t.ok('package_create', { name: uniq('d'), extras: [{ id: given, key, value: 'v' }] }, who)
        expect(d.extras).toEqual([{ key, value: 'v' }])
        expect(await storedIds(t, 'package_extra', key)).not.toContain(given)
        const gkey = uniq('k')
        await t.ok('organization_create', { name: uniq('o'), extras: [{ id: 'mine', key: gkey, value: 'v' }] }, who)
        expect(await storedIds(t, 'group_extra', gkey)).not.toContain('mine')
      }
    })
  }

  it('2.11: refused from anyone but a sysadmin, on create and update, datasets and groups', async () => {
    const { t, user } = env['2.11']!
    const r = await t.call('package_create', { name: uniq('d'), extras: [{ key: 'a', value: '1' }, { id: randomUUID(), key: 'b', value: '2' }] }, user)
    expect(r.body.error).toEqual({ __type: 'Validation Error', extras: [{}, { id: [NOT_EXPECTED] }] })
    const d = await t.ok('package_create', { name: uniq('d'), extras: [{ key: 'a', value: '1' }] }, user)
    const u = await t.call('package_patch', { id: d.id, extras: [{ id: 'x', key: 'a', value: '2' }] }, user)
    expect(u.body.error).toEqual({ __type: 'Validation Error', extras: [{ id: [NOT_EXPECTED] }] })
    const g = await t.call('organization_create', { name: uniq('o'), extras: [{ id: randomUUID(), key: 'a', value: '1' }] }, user)
    expect(g.body.error).toEqual({ __type: 'Validation Error', extras: [{ id: [NOT_EXPECTED] }] })
    // an empty one is none
    expect((await t.ok('package_create', { name: uniq('d'), extras: [{ id: '', key: 'a', value: '1' }] }, user)).extras).toEqual([{ key: 'a', value: '1' }])
  })

  it('2.11: a sysadmin may give a UUID (not stored), not any text', async () => {
    const { t, sys } = env['2.11']!
    const bad = await t.call('package_create', { name: uniq('d'), extras: [{ id: 'x', key: 'a', value: '1' }] }, sys)
    expect(bad.body.error).toEqual({ __type: 'Validation Error', extras: [{ id: ['Invalid id provided'] }] })
    const gbad = await t.call('group_create', { name: uniq('g'), extras: [{ id: 'x', key: 'a', value: '1' }] }, sys)
    expect(gbad.body.error).toEqual({ __type: 'Validation Error', extras: [{ id: ['Invalid id provided'] }] })
    const key = uniq('k')
    const given = randomUUID()
    const d = await t.ok('package_create', { name: uniq('d'), extras: [{ id: given, key, value: '1' }] }, sys)
    expect(d.extras).toEqual([{ key, value: '1' }])
    expect(await storedIds(t, 'package_extra', key)).not.toContain(given)
    const gkey = uniq('k')
    await t.ok('group_create', { name: uniq('g'), extras: [{ id: given, key: gkey, value: '1' }] }, sys)
    expect(await storedIds(t, 'group_extra', gkey)).not.toContain(given)
  })

  it('2.11: a patch that keeps an organization type\'s extras does not send their stored ids back', async () => {
    const t = await setup({ ...SCHEMING, 'service.api_compat': '2.11' })
    const sys = await t.make.sysadmin()
    const admin = await t.make.user()
    await t.ok(
      'organization_create',
      { type: 'agency', name: 'ids-agency', agency_code: 'IA-1', postal_address: 'Pier 2', extras: [{ key: 'legacy', value: 'y' }], users: [{ name: admin.name, capacity: 'admin' }] },
      sys,
    )
    expect((await t.ok('organization_show', { id: 'ids-agency' })).extras[0].id).toBeDefined()
    const patched = await t.call('organization_patch', { id: 'ids-agency', postal_address: 'Pier 3' }, admin)
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const shown = await t.ok('organization_show', { id: 'ids-agency' })
    expect([shown.postal_address, shown.extras.map((e: { key: string }) => e.key)]).toEqual(['Pier 3', ['legacy']])
  })
})
