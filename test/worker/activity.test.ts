// Followers, activity streams and the dashboard in workerd against sqld: the same SQL (json_each, unions) over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { okWorker, startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
beforeAll(async () => {
  w = await startWorker()
}, 120_000)
afterAll(async () => {
  await w?.close()
})

const ok = (name: string, params: object = {}, as?: { apikey: string }) =>
  okWorker(w.mf, name, params, as)

describe('activity on the Worker', () => {
  it('follows a dataset, shows its changes on the dashboard, diffs them, and hides them once private', async () => {
    await ok('organization_create', { name: 'edge-act-org' }, w.sysadmin)
    const ds = await ok(
      'package_create',
      { name: 'edge-act-data', title: 'Edge data', owner_org: 'edge-act-org' },
      w.sysadmin,
    )
    const user = await ok(
      'user_create',
      { name: 'edge-act-user', email: 'edge-act@example.com', password: 'password123' },
      w.sysadmin,
    )
    const as = { apikey: (await ok('api_token_create', { user: user.id, name: 'x' }, w.sysadmin)).token }
    await ok('follow_dataset', { id: ds.id }, as)
    expect(await ok('dataset_follower_count', { id: ds.id })).toBe(1)
    await ok('package_patch', { id: ds.id, title: 'Edge data, revised' }, w.sysadmin)

    const dash = await ok('dashboard_activity_list', {}, as)
    expect(dash[0]).toMatchObject({ activity_type: 'changed package', object_id: ds.id, is_new: true })
    expect(await ok('dashboard_new_activities_count', {}, as)).toBe(1)
    const diff = await ok('activity_diff', { id: dash[0].id, object_type: 'package' }, w.sysadmin)
    expect(diff.diff).toContain('+  "title": "Edge data, revised"')
    const recent = await ok('recently_changed_packages_activity_list', {})
    expect(recent.some((a: { object_id: string }) => a.object_id === ds.id)).toBe(true)

    await ok('package_patch', { id: ds.id, private: true }, w.sysadmin)
    expect(await ok('dashboard_activity_list', {}, as)).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ object_id: ds.id })]),
    )
    const anonymous = await ok('recently_changed_packages_activity_list', {})
    expect(anonymous.some((a: { object_id: string }) => a.object_id === ds.id)).toBe(false)
  }, 60_000)
})
