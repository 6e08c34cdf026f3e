// One activity at a time: activity_show, activity_data_show, activity_diff and activity_create.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Awaited<ReturnType<TestEnv['make']['sysadmin']>>

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
})

/** A public dataset of an organization, with its admin, a member and an outsider. */
async function orgDataset(fields: Record<string, unknown> = {}) {
  const admin = await t.make.user()
  const member = await t.make.user()
  const outsider = await t.make.user()
  const org = await t.ok(
    'organization_create',
    { name: uniq('org'), users: [{ name: member.name, capacity: 'member' }] },
    admin,
  )
  const ds = await t.make.dataset(admin, { owner_org: org.id, title: 'First', ...fields })
  return { org, ds, admin, member, outsider }
}

const newest = async (id: string, as: Caller | null = sys) =>
  (await t.ok('package_activity_list', { id, limit: 1 }, as))[0]

const denied = (r: { status: number; body: any }, message: string) => {
  expect(r.status).toBe(403)
  expect(r.body.error).toEqual({ __type: 'Authorization Error', message })
}

describe('activity_show', () => {
  it('shows a dataset activity with title-only data, or with the whole dataset', async () => {
    const { ds, admin } = await orgDataset()
    const act = await newest(ds.id)
    const brief = await t.ok('activity_show', { id: act.id, include_data: false })
    expect(brief).toEqual(act)
    const full = await t.ok('activity_show', { id: act.id, include_data: true }, admin)
    expect(full.data.package).toMatchObject({ id: ds.id, name: ds.name, title: 'First' })
    expect(full.data.actor).toBe(admin.name)
  })

  it('requires id, then include_data', async () => {
    const m = await t.call('activity_show', {})
    expect(m.status).toBe(409)
    expect(m.body.error).toEqual({ __type: 'Validation Error', id: ['Missing value'] })
    const { ds } = await orgDataset()
    const r = await t.call('activity_show', { id: (await newest(ds.id)).id })
    expect(r.body.error).toEqual({ __type: 'Validation Error', include_data: ['Missing value'] })
  })

  it('answers an unknown activity with Not Found', async () => {
    for (const who of [null, sys]) {
      const r = await t.call('activity_show', { id: 'nope', include_data: false }, who)
      expect(r.status).toBe(404)
      expect(r.body.error.message).toBe('Not found')
    }
  })

  it('needs edit rights for the data unless public_activity_stream_detail', async () => {
    const { ds, member, outsider } = await orgDataset()
    const act = await newest(ds.id)
    denied(
      await t.call('activity_show', { id: act.id, include_data: true }),
      `Access denied: User  not authorized to edit package ${ds.id}`,
    )
    denied(
      await t.call('activity_show', { id: act.id, include_data: 'true' }, member),
      `Access denied: User ${member.name} not authorized to edit package ${ds.id}`,
    )
    expect((await t.ok('activity_show', { id: act.id, include_data: false }, outsider)).id).toBe(
      act.id,
    )
    const env = await setup({ 'service.auth.public_activity_stream_detail': 'true' })
    const u = await env.make.user()
    const pub = await env.make.dataset(u)
    const [a] = await env.ok('package_activity_list', { id: pub.id })
    expect((await env.ok('activity_show', { id: a.id, include_data: true })).data.package.id).toBe(
      pub.id,
    )
  })

  it('authorises only dataset activities for non-sysadmins', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u, { title: 'Grp' })
    const [act] = await t.ok('group_activity_list', { id: g.id })
    for (const who of [null, u])
      denied(
        await t.call('activity_show', { id: act.id, include_data: false }, who),
        'Access denied: object_type not recognized',
      )
    const full = await t.ok('activity_show', { id: act.id, include_data: true }, sys)
    expect(full.data.group).toMatchObject({ id: g.id, title: 'Grp', is_organization: false })
  })

  it('refuses activities of a dataset made private to those who cannot read it', async () => {
    const { ds, admin, member, outsider } = await orgDataset()
    const act = await newest(ds.id)
    await t.ok('package_patch', { id: ds.id, private: true }, admin)
    denied(
      await t.call('activity_show', { id: act.id, include_data: false }, outsider),
      `Access denied: User ${outsider.name} not authorized to read package ${ds.id}`,
    )
    expect((await t.ok('activity_show', { id: act.id, include_data: false }, member)).id).toBe(
      act.id,
    )
  })
})

describe('activity_data_show', () => {
  it('returns the data, or one object of it', async () => {
    const { ds, admin } = await orgDataset()
    const act = await newest(ds.id)
    const data = await t.ok('activity_data_show', { id: act.id }, admin)
    expect(Object.keys(data).sort()).toEqual(['actor', 'package'])
    const pkg = await t.ok('activity_data_show', { id: act.id, object_type: 'package' }, admin)
    expect(pkg).toEqual(data.package)
    expect(pkg).toMatchObject({ id: ds.id, title: 'First', state: 'active' })
  })

  it('answers an object type the data lacks with Not Found', async () => {
    const { ds, admin } = await orgDataset()
    const act = await newest(ds.id)
    const r = await t.call('activity_data_show', { id: act.id, object_type: 'group' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find that object_type in the activity')
  })

  it('requires the id and knows unknown activities', async () => {
    expect((await t.call('activity_data_show', {}, sys)).body.error).toMatchObject({
      id: ['Missing value'],
    })
    expect((await t.call('activity_data_show', { id: 'nope' }, sys)).status).toBe(404)
  })

  it('needs edit rights (the data is the whole dataset)', async () => {
    const { ds, outsider } = await orgDataset()
    const act = await newest(ds.id)
    denied(
      await t.call('activity_data_show', { id: act.id }, outsider),
      `Access denied: User ${outsider.name} not authorized to edit package ${ds.id}`,
    )
  })
})

describe('activity_diff', () => {
  /** Two activities about one dataset with data chosen by the test (through activity_create). */
  async function twoVersions(before: object, after: object) {
    const { ds, admin, member } = await orgDataset()
    const mk = (data: object) =>
      t.ok(
        'activity_create',
        { user_id: admin.name, object_id: ds.id, activity_type: 'changed package', data },
        sys,
      )
    await mk({ package: before })
    const second = await mk({ package: after })
    return { ds, admin, member, second }
  }

  const before = { name: 'rivers', title: 'Old title', notes: 'same', tags: [{ name: 'a' }] }
  const after = { ...before, title: 'New title', tags: [{ name: 'a' }, { name: 'b' }], extra: 1 }

  it('gives a unified diff by default, with both activities and their data', async () => {
    const { second, admin } = await twoVersions(before, after)
    const r = await t.ok('activity_diff', { id: second.id, object_type: 'package' }, admin)
    // difflib.unified_diff joined with '\n', as CKAN returns it
    expect(r.diff).toBe(
      '--- \n\n+++ \n\n@@ -1,10 +1,14 @@\n\n {\n+  "extra": 1,\n   "name": "rivers",\n' +
        '   "notes": "same",\n   "tags": [\n     {\n       "name": "a"\n+    },\n+    {\n' +
        '+      "name": "b"\n     }\n   ],\n-  "title": "Old title"\n+  "title": "New title"\n }',
    )
    expect(r.activities.map((a: any) => a.data.package)).toEqual([before, after])
    expect(r.activities[1].id).toBe(second.id)
  })

  it('gives context and html diffs', async () => {
    const { second, admin } = await twoVersions(before, after)
    const ctx = await t.ok(
      'activity_diff',
      { id: second.id, object_type: 'package', diff_type: 'context' },
      admin,
    )
    expect(ctx.diff.startsWith('*** \n\n--- \n\n***************\n\n*** 1,10 ****\n\n  {\n')).toBe(
      true,
    )
    expect(ctx.diff).toContain('\n!   "title": "Old title"\n')
    expect(ctx.diff).toContain('\n--- 1,14 ----\n\n  {\n+   "extra": 1,\n')
    const html = await t.ok(
      'activity_diff',
      { id: second.id, object_type: 'package', diff_type: 'html' },
      admin,
    )
    expect(html.diff.startsWith('\n    <table class="diff" id="difflib_chg_to0__top"')).toBe(true)
    expect(html.diff).toContain(
      '<td nowrap="nowrap">&nbsp;&nbsp;"title":&nbsp;"<span class="diff_chg">Old</span>&nbsp;title"</td>',
    )
    expect(html.diff).toContain('<span class="diff_add">&nbsp;&nbsp;"extra":&nbsp;1,</span>')
  })

  it('diffs real dataset changes against the activity before', async () => {
    const { ds, admin } = await orgDataset()
    await t.ok('package_patch', { id: ds.id, title: 'Second' }, admin)
    const act = await newest(ds.id)
    const r = await t.ok('activity_diff', { id: act.id, object_type: 'package' }, admin)
    expect(r.diff).toContain('\n-  "title": "First",\n+  "title": "Second",\n')
    expect(r.activities.map((a: any) => a.activity_type)).toEqual([
      'new package',
      'changed package',
    ])
  })

  it('lets sysadmins diff group activities, and only them', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u, { title: 'Before' })
    await t.ok('group_patch', { id: g.id, title: 'After' }, u)
    const [act] = await t.ok('group_activity_list', { id: g.id, limit: 1 })
    const r = await t.ok('activity_diff', { id: act.id, object_type: 'group' }, sys)
    expect(r.diff).toContain('\n-  "title": "Before",\n+  "title": "After",\n')
    denied(
      await t.call('activity_diff', { id: act.id, object_type: 'group' }, u),
      'Access denied: object_type not recognized',
    )
  })

  it('rejects an unknown diff_type', async () => {
    const { second, admin } = await twoVersions(before, after)
    const r = await t.call(
      'activity_diff',
      { id: second.id, object_type: 'package', diff_type: 'side' },
      admin,
    )
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: 'diff_type not recognized',
    })
  })

  it('answers the first activity of an object with Not Found', async () => {
    const { ds, admin } = await orgDataset()
    const act = await newest(ds.id)
    const r = await t.call('activity_diff', { id: act.id, object_type: 'package' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Previous activity for this object not found')
  })

  it('answers an object type missing from the data with Not Found', async () => {
    const { second, admin } = await twoVersions(before, after)
    const r = await t.call('activity_diff', { id: second.id, object_type: 'group' }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find object in the activity data')
  })

  it('requires id and object_type, and knows unknown activities', async () => {
    expect((await t.call('activity_diff', { object_type: 'package' }, sys)).body.error).toEqual({
      __type: 'Validation Error',
      id: ['Missing value'],
    })
    expect((await t.call('activity_diff', { id: 'x' }, sys)).body.error).toEqual({
      __type: 'Validation Error',
      object_type: ['Missing value'],
    })
    for (const who of [null, sys])
      expect(
        (await t.call('activity_diff', { id: 'nope', object_type: 'package' }, who)).status,
      ).toBe(404)
  })

  it('answers an id or object_type that is a dict without a callable toString', async () => {
    // found by the fuzzer: String() of {"toString": {...}} threw, a 500
    const odd = { toString: { a: 1 } }
    for (const who of [null, sys]) {
      const r = await t.call('activity_diff', { id: odd, object_type: 'package' }, who)
      expect(r.status).toBe(404)
      expect(r.body.error.__type).toBe('Not Found Error')
    }
    const { second, admin } = await twoVersions(before, after)
    const r = await t.call('activity_diff', { id: second.id, object_type: odd }, admin)
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Not found: Could not find object in the activity data')
    for (const name of ['activity_show', 'activity_data_show'])
      expect((await t.call(name, { id: odd }, sys)).body.success).toBe(false)
  })

  it('needs edit rights on the dataset', async () => {
    const { second, member, ds } = await twoVersions(before, after)
    denied(
      await t.call('activity_diff', { id: second.id, object_type: 'package' }),
      `Access denied: User  not authorized to edit package ${ds.id}`,
    )
    denied(
      await t.call('activity_diff', { id: second.id, object_type: 'package' }, member),
      `Access denied: User ${member.name} not authorized to edit package ${ds.id}`,
    )
  })
})

describe('activity_create', () => {
  it('records an activity and returns it with title-only data', async () => {
    const { ds, admin } = await orgDataset()
    const act = await t.ok(
      'activity_create',
      {
        user_id: admin.name,
        object_id: ds.id,
        activity_type: 'changed package',
        data: { package: { title: 'Made by hand', id: ds.id }, note: 'x' },
        revision_id: 'ignored',
      },
      sys,
    )
    expect(act).toMatchObject({
      user_id: admin.id,
      object_id: ds.id,
      revision_id: null,
      activity_type: 'changed package',
      data: { package: { title: 'Made by hand' } },
    })
    expect(await newest(ds.id)).toEqual(act)
    const full = await t.ok('activity_data_show', { id: act.id }, sys)
    expect(full).toEqual({ package: { title: 'Made by hand', id: ds.id }, note: 'x' })
  })

  it('checks the object by the activity type', async () => {
    const u = await t.make.user()
    const g = await t.make.group(u)
    const create = (p: object) => t.call('activity_create', { user_id: u.id, ...p }, sys)
    const err = async (p: object) => (await create(p)).body.error
    expect(await err({ object_id: u.id, activity_type: 'changed package' })).toEqual({
      __type: 'Validation Error',
      object_id: ['Not found: Dataset'],
    })
    expect(await err({ object_id: g.id, activity_type: 'follow user' })).toMatchObject({
      object_id: ['Not found: User'],
    })
    expect(await err({ object_id: u.id, activity_type: 'changed group' })).toMatchObject({
      object_id: ['Not found: Group'],
    })
    expect((await create({ object_id: g.id, activity_type: 'follow group' })).status).toBe(200)
    expect(
      (await create({ object_id: u.id, activity_type: 'follow user', data: '{"a": 1}' })).status,
    ).toBe(200)
  })

  it('rejects unknown types, unknown users and missing values', async () => {
    const u = await t.make.user()
    const err = async (p: object) => (await t.call('activity_create', p, sys)).body.error
    expect(await err({ user_id: u.id, object_id: u.id, activity_type: 'new thing' })).toEqual({
      __type: 'Validation Error',
      activity_type: ['Not found: Activity type'],
      object_id: ['There is no object_id validator for activity type "new thing"'],
    })
    expect(await err({ user_id: 'ghost', object_id: u.id, activity_type: 'changed user' })).toEqual(
      {
        __type: 'Validation Error',
        user_id: ['Not found: User'],
      },
    )
    expect(await err({})).toEqual({
      __type: 'Validation Error',
      user_id: ['Missing value'],
      object_id: ['Missing value'],
      activity_type: ['Missing value'],
    })
    expect(
      await err({ user_id: u.id, object_id: u.id, activity_type: 'changed user', data: [1] }),
    ).toEqual({
      __type: 'Validation Error',
      data: ['Could not parse as valid JSON'],
    })
  })

  it('is for sysadmins only', async () => {
    const u = await t.make.user()
    const p = { user_id: u.id, object_id: u.id, activity_type: 'changed user' }
    denied(
      await t.call('activity_create', p),
      'Access denied: Action activity_create requires an authenticated user',
    )
    denied(await t.call('activity_create', p, u), 'Access denied')
  })

  it('does nothing while activity streams are off', async () => {
    const env = await setup({ 'service.activity_streams_enabled': 'false' })
    const admin = await env.make.sysadmin()
    const u = await env.make.user()
    const r = await env.call(
      'activity_create',
      { user_id: u.id, object_id: u.id, activity_type: 'bogus' },
      admin,
    )
    expect(r.body).toMatchObject({ success: true, result: null })
    const rs = await env.client.execute('SELECT count(*) AS n FROM activity')
    expect(Number(rs.rows[0]!.n)).toBe(0)
  })
})
