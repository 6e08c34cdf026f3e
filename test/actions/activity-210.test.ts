// CKAN 2.10's activity plugin: whole data in the lists and in activity_show (changed answers,
// under service.api_compat 2.10 and later); before, after, activity_types and
// exclude_activity_types (additions, under every setting).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

type Who = Caller & { id: string; name: string }
let v29: TestEnv
let v211: TestEnv
let sys29: Who
let sys211: Who

beforeAll(async () => {
  v29 = await setup({ 'service.api_compat': '2.9' })
  v211 = await setup({ 'service.api_compat': '2.11' })
  sys29 = await v29.make.sysadmin()
  sys211 = await v211.make.sysadmin()
})

const each = () =>
  [
    ['2.9', () => ({ t: v29, sys: sys29 })],
    ['2.11', () => ({ t: v211, sys: sys211 })],
  ] as const

const types = (list: { activity_type: string }[]) => list.map((a) => a.activity_type)
const notes = (list: any[]) => list.map((a) => a.data.package.notes)

/** 2024-01-01T00:00:00Z, in seconds since the epoch. */
const T0 = 1704067200

/**
 * A public dataset of an organization changed four times, its five activities stamped
 * T0 + 0 … T0 + 4 seconds (notes "Update 0" … "Update 4", oldest first).
 */
async function fiveVersions(t: TestEnv) {
  const admin = await t.make.user()
  const org = await t.ok('organization_create', { name: uniq('org') }, admin)
  const ds = await t.make.dataset(admin, { owner_org: org.id, notes: 'Update 0' })
  for (let i = 1; i <= 4; i++) await t.ok('package_patch', { id: ds.id, notes: `Update ${i}` }, admin)
  const rs = await t.client.execute({
    sql: 'SELECT id FROM activity WHERE object_id = ? ORDER BY timestamp, rowid',
    args: [ds.id],
  })
  for (const [i, r] of rs.rows.entries())
    await t.client.execute({
      sql: 'UPDATE activity SET timestamp = ? WHERE id = ?',
      args: [`2024-01-01T00:00:0${i}.000000`, String(r.id)],
    })
  /** The notes of each activity of a list, by its id (list data is the title only under 2.9). */
  const versions = (list: any[]) =>
    list.map((a) => `Update ${rs.rows.findIndex((r) => r.id === a.id)}`)
  return { ds, org, admin, versions }
}

describe('the data of list entries', () => {
  it('is the title only under 2.9, the whole dataset under 2.11 (package, recent, organization)', async () => {
    for (const [v, env] of each()) {
      const { t } = env()
      const { ds, org } = await fiveVersions(t)
      const lists = [
        await t.ok('package_activity_list', { id: ds.id, limit: 1 }),
        (await t.ok('recently_changed_packages_activity_list', { limit: 5 })).filter(
          (a: any) => a.object_id === ds.id,
        ),
        await t.ok('organization_activity_list', {
          id: org.id,
          activity_types: ['changed package'],
          limit: 1,
        }),
      ]
      for (const list of lists) {
        const pkg = list[0].data.package
        if (v === '2.9') expect(pkg).toEqual({ title: ds.title })
        else {
          expect(pkg).toMatchObject({ id: ds.id, name: ds.name, notes: 'Update 4' })
          expect(pkg).toHaveProperty('extras')
          expect(list[0].data.actor).toBeTypeOf('string')
        }
      }
    }
  })

  it('is the whole group under 2.11 (group list), and the dashboard carries it too', async () => {
    for (const [v, env] of each()) {
      const { t } = env()
      const u = await t.make.user()
      const g = await t.make.group(u, { title: 'Lakes', description: 'Still water' })
      const [act] = await t.ok('group_activity_list', { id: g.id })
      const [dash] = await t.ok('dashboard_activity_list', { limit: 1 }, u)
      expect(dash.object_id).toBe(g.id)
      for (const a of [act, dash])
        if (v === '2.9') expect(a.data).toEqual({ group: { title: 'Lakes' } })
        else expect(a.data.group).toMatchObject({ id: g.id, title: 'Lakes', description: 'Still water' })
    }
  })

  it('never shows a private dataset, or its data, to those who may not read it (2.11)', async () => {
    const t = v211
    const admin = await t.make.user()
    const outsider = await t.make.user()
    const org = await t.ok('organization_create', { name: uniq('org') }, admin)
    const ds = await t.make.dataset(admin, {
      owner_org: org.id,
      private: true,
      notes: 'Secret plans',
    })
    await t.ok('package_patch', { id: ds.id, notes: 'More secret plans' }, admin)
    const secret = (list: any[]) => JSON.stringify(list).includes('secret plans')
    for (const who of [null, outsider]) {
      for (const [name, params] of [
        ['organization_activity_list', { id: org.id }],
        ['recently_changed_packages_activity_list', {}],
        ['user_activity_list', { id: admin.id }],
        ['organization_activity_list', { id: org.id, after: 0 }],
        ['organization_activity_list', { id: org.id, activity_types: ['changed package'] }],
      ] as const) {
        const list = await t.ok(name, params, who)
        expect(list.map((a: any) => a.object_id)).not.toContain(ds.id)
        expect(secret(list)).toBe(false)
      }
      expect((await t.call('package_activity_list', { id: ds.id }, who)).status).toBe(403)
    }
    const mine = await t.ok('package_activity_list', { id: ds.id }, admin)
    expect(notes(mine)).toEqual(['More secret plans', 'Secret plans'])
  })
})

describe('before and after', () => {
  it('page the stream by time, newest first, under every setting', async () => {
    for (const [, env] of each()) {
      const { t } = env()
      const { ds, versions } = await fiveVersions(t)
      const list = (p: object) => t.ok('package_activity_list', { id: ds.id, ...p }).then(versions)
      expect(await list({})).toEqual(['Update 4', 'Update 3', 'Update 2', 'Update 1', 'Update 0'])
      expect(await list({ before: T0 + 4 })).toEqual(['Update 3', 'Update 2', 'Update 1', 'Update 0'])
      expect(await list({ before: T0 + 4, limit: 2 })).toEqual(['Update 3', 'Update 2'])
      expect(await list({ after: T0 + 1 })).toEqual(['Update 4', 'Update 3', 'Update 2'])
      expect(await list({ after: T0, before: T0 + 4 })).toEqual(['Update 3', 'Update 2', 'Update 1'])
      // after alone: the page closest after it, still newest first
      expect(await list({ after: T0, limit: 2 })).toEqual(['Update 2', 'Update 1'])
      expect(await list({ after: T0, limit: 2, offset: 1 })).toEqual(['Update 3', 'Update 2'])
      expect(await list({ offset: 0, limit: 3 })).toEqual(['Update 4', 'Update 3', 'Update 2'])
      // strings float() reads, and fractions of a second
      expect(await list({ after: `${T0 + 3}.5` })).toEqual(['Update 4'])
      expect(await list({ before: String(T0 + 0.000001) })).toEqual(['Update 0'])
      expect(await list({ before: T0 })).toEqual([])
    }
  })

  it('are refused unless a float timestamp', async () => {
    for (const [, env] of each()) {
      const { t } = env()
      const u = await t.make.user()
      for (const bad of ['yesterday', '', [1], { a: 1 }, '1e999'])
        for (const [name, params] of [
          ['package_activity_list', { id: 'x' }],
          ['user_activity_list', { id: u.id }],
          ['dashboard_activity_list', {}],
          ['recently_changed_packages_activity_list', {}],
        ] as const) {
          const r = await t.call(name, { ...params, before: bad }, u)
          expect(r.status).toBe(409)
          expect(r.body.error).toEqual({ __type: 'Validation Error', before: ['Must be a float timestamp'] })
        }
    }
  })

  it('apply to the user, group, organization and dashboard lists, not to recently changed', async () => {
    for (const [, env] of each()) {
      const { t } = env()
      const { ds, org, admin } = await fiveVersions(t)
      await t.ok('follow_dataset', { id: ds.id }, admin)
      const objectAfter = async (name: string, p: object, as?: Caller) =>
        (await t.ok(name, { ...p, after: T0 + 2 }, as)).filter((a: any) => a.object_id === ds.id)
      expect(await objectAfter('user_activity_list', { id: admin.id })).toHaveLength(2)
      expect(await objectAfter('organization_activity_list', { id: org.id })).toHaveLength(2)
      expect(await objectAfter('dashboard_activity_list', {}, admin)).toHaveLength(2)
      expect(await objectAfter('recently_changed_packages_activity_list', { limit: 100 })).toHaveLength(5)
    }
  })
})

describe('activity_types and exclude_activity_types', () => {
  it('filter the package list; together they are refused before the dataset is looked up', async () => {
    for (const [, env] of each()) {
      const { t } = env()
      const { ds, admin } = await fiveVersions(t)
      await t.ok('package_delete', { id: ds.id }, admin)
      const list = (p: object) => t.ok('package_activity_list', { id: ds.id, ...p }, admin).then(types)
      expect(await list({ activity_types: ['new package', 'deleted package'] })).toEqual([
        'deleted package',
        'new package',
      ])
      expect(await list({ exclude_activity_types: ['changed package'] })).toEqual([
        'deleted package',
        'new package',
      ])
      expect(await list({ activity_types: 'new package' })).toEqual(['new package'])
      // an empty list filters nothing
      expect(await list({ activity_types: [] })).toHaveLength(6)
      for (const as of [null, admin]) {
        const r = await t.call(
          'package_activity_list',
          { id: 'no-such-dataset', activity_types: [], exclude_activity_types: ['x'] },
          as,
        )
        expect(r.status).toBe(409)
        expect(r.body.error).toEqual({
          __type: 'Validation Error',
          activity_types: ['Cannot be used together with `exclude_activity_types'],
        })
      }
      const bad = await t.call('package_activity_list', { id: ds.id, activity_types: { a: 1 } })
      expect(bad.body.error).toEqual({ __type: 'Validation Error', activity_types: ['Not a list'] })
    }
  })

  it('activity_types filters the group and organization lists; exclude_activity_types is not read there', async () => {
    const t = v211
    const { ds, org, admin } = await fiveVersions(t)
    const g = await t.make.group(admin)
    await t.ok('member_create', { id: g.id, object: ds.id, object_type: 'package', capacity: 'public' }, admin)
    for (const [name, id, own] of [
      ['organization_activity_list', org.id, 'new organization'],
      ['group_activity_list', g.id, 'new group'],
    ] as const) {
      expect(types(await t.ok(name, { id, activity_types: [own] }))).toEqual([own])
      const all = await t.ok(name, { id })
      expect(await t.ok(name, { id, exclude_activity_types: [own] })).toEqual(all)
    }
    // the user list reads neither
    const mine = await t.ok('user_activity_list', { id: admin.id })
    expect(await t.ok('user_activity_list', { id: admin.id, activity_types: ['new group'] })).toEqual(mine)
  })
})

describe('activity_show', () => {
  it('requires include_data under 2.9, sysadmins too', async () => {
    const { ds } = await fiveVersions(v29)
    const [act] = await v29.ok('package_activity_list', { id: ds.id, limit: 1 })
    for (const who of [null, sys29]) {
      const r = await v29.call('activity_show', { id: act.id }, who)
      expect(r.body.error).toEqual({ __type: 'Validation Error', include_data: ['Missing value'] })
    }
  })

  it('gives the whole data under 2.11 with include_data optional; include_data true needs edit rights', async () => {
    const t = v211
    const { ds, admin } = await fiveVersions(t)
    const outsider = await t.make.user()
    const [act] = await t.ok('package_activity_list', { id: ds.id, limit: 1 })
    for (const who of [null, outsider, admin, sys211]) {
      for (const p of [{}, { include_data: false }]) {
        const shown = await t.ok('activity_show', { id: act.id, ...p }, who)
        expect(shown).toEqual(act)
        expect(shown.data.package.notes).toBe('Update 4')
      }
    }
    const r = await t.call('activity_show', { id: act.id, include_data: true }, outsider)
    expect(r.status).toBe(403)
    expect((await t.ok('activity_show', { id: act.id, include_data: true }, admin)).data.package.id).toBe(ds.id)
    const missing = await t.call('activity_show', {})
    expect(missing.body.error).toEqual({ __type: 'Validation Error', id: ['Missing value'] })
  })

  it('refuses an activity of a dataset private then as CKAN 2.11 words it', async () => {
    const t = v211
    const admin = await t.make.user()
    const outsider = await t.make.user()
    const org = await t.ok('organization_create', { name: uniq('org') }, admin)
    const ds = await t.make.dataset(admin, { owner_org: org.id, private: true })
    const [act] = await t.ok('package_activity_list', { id: ds.id }, admin)
    await t.ok('package_patch', { id: ds.id, private: false }, admin)
    const r = await t.call('activity_show', { id: act.id }, outsider)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toBe('Access denied: Unauthorized to view activity data')
  })
})
