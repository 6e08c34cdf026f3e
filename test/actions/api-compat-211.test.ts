// service.api_compat 2.11: site_read's removal, group type changes, activities of private datasets.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Who = Caller & { id: string; name: string }
let v29: TestEnv
let v211: TestEnv
let sys29: Who
let sys211: Who

// public_activity_stream_detail: anyone who may read a dataset may see its activities' data, so
// that only the rule about private datasets stands between a stranger and that data
const DETAIL = { 'service.auth.public_activity_stream_detail': 'true' }

beforeAll(async () => {
  v29 = await setup({ 'service.api_compat': '2.9', ...DETAIL })
  v211 = await setup({ 'service.api_compat': '2.11', ...DETAIL })
  sys29 = await v29.make.sysadmin()
  sys211 = await v211.make.sysadmin()
})

const each = () =>
  [
    ['2.9', () => ({ t: v29, sys: sys29 })],
    ['2.11', () => ({ t: v211, sys: sys211 })],
  ] as const

describe('site_read', () => {
  it('answers True under 2.9', async () => {
    expect(await v29.ok('site_read')).toBe(true)
    const r = await v29.get('/api/3/action/site_read')
    expect(r.body.result).toBe(true)
    expect(await v29.ok('help_show', { name: 'site_read' })).toContain('Return True')
  })

  it('is an unknown action under 2.11', async () => {
    for (const r of [await v211.call('site_read'), await v211.get('/api/3/action/site_read')]) {
      expect(r.status).toBe(400)
      expect(r.body).toBe('Bad request - Action name not known: site_read')
    }
    const h = await v211.call('help_show', { name: 'site_read' })
    expect(h.status).toBe(404)
  })
})

describe('a group or organization type change', () => {
  for (const [name, isOrg] of [['group', false], ['organization', true]] as const)
    for (const verb of ['update', 'patch'])
      for (const [version, env] of each())
        it(`${name}_${verb} with another type (api_compat ${version})`, async () => {
          const { t, sys } = env()
          const admin = await t.make.user()
          const g = isOrg
            ? await t.make.organization(admin)
            : await t.make.group(admin)
          const stranger = await t.make.user()
          const change = { id: g.id, name: g.name, type: 'ragtagband' }
          if (version === '2.9') {
            const r = await t.ok(`${name}_${verb}`, change, admin)
            expect(r.type).toBe(name)
            // unchanged: a stranger is refused for want of rights
            expect((await t.call(`${name}_${verb}`, change, stranger)).status).toBe(403)
          } else {
            for (const who of [admin, stranger, sys]) {
              const r = await t.call(`${name}_${verb}`, change, who)
              expect(r.status).toBe(409)
              expect(r.body.error).toEqual({ __type: 'Validation Error', message: 'Type cannot be updated' })
            }
            // its own type, or none, is fine
            await t.ok(`${name}_${verb}`, { ...change, type: name }, admin)
          }
          expect((await t.ok(`${name}_show`, { id: g.id })).type).toBe(name)
        })
})

describe('activities of private datasets', () => {
  /** An organization with an admin and a member, a group, and users outside both. */
  async function cast(t: TestEnv) {
    const owner = await t.make.user()
    const member = await t.make.user()
    const stranger = await t.make.user()
    const org = await t.make.organization(owner)
    await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, owner)
    const grp = await t.make.group(owner)
    for (const fan of [member, stranger]) await t.ok('follow_user', { id: owner.id }, fan)
    return { owner, member, stranger, org, grp }
  }

  /** The types of the activities about `id` in a list, newest first. */
  const about = (list: { object_id: string; activity_type: string }[], id: string) =>
    list.filter((a) => a.object_id === id).map((a) => a.activity_type)

  /** Every stream that can show the dataset's activities, as `who` sees them. */
  async function streams(t: TestEnv, c: Awaited<ReturnType<typeof cast>>, id: string, who: Who | null) {
    const out: Record<string, string[] | number> = {}
    const pkg = await t.call('package_activity_list', { id }, who)
    out.package = pkg.status === 200 ? about(pkg.body.result, id) : pkg.status
    out.organization = about(await t.ok('organization_activity_list', { id: c.org.id }, who), id)
    out.group = about(await t.ok('group_activity_list', { id: c.grp.id }, who), id)
    out.recent = about(await t.ok('recently_changed_packages_activity_list', { limit: 100 }, who), id)
    out.user = about(await t.ok('user_activity_list', { id: c.owner.id }, who), id)
    if (who) out.dashboard = about(await t.ok('dashboard_activity_list', {}, who), id)
    return out
  }

  const all = (types: string[] | number, who: 'member' | 'stranger' | 'anonymous') => ({
    package: types,
    organization: types,
    group: types,
    recent: types,
    user: types,
    ...(who === 'anonymous' ? {} : { dashboard: types }),
  })

  for (const [version, env] of each())
    it(`are recorded under 2.11 only, and shown only to those who may read the dataset (api_compat ${version})`, async () => {
      const { t, sys } = env()
      const c = await cast(t)
      const ds = await t.make.dataset(c.owner, {
        owner_org: c.org.id,
        private: true,
        title: 'Secret plans',
        groups: [{ id: c.grp.id }],
      })
      await t.ok('resource_create', { package_id: ds.id, url: 'http://example.com/x.csv' }, c.owner)
      const privateTypes = version === '2.11' ? ['changed package', 'new package'] : []
      expect(await streams(t, c, ds.id, c.member)).toEqual(all(privateTypes, 'member'))
      expect((await streams(t, c, ds.id, sys)).recent).toEqual(privateTypes)
      expect(await streams(t, c, ds.id, c.stranger)).toEqual({ ...all([], 'stranger'), package: 403 })
      expect(await streams(t, c, ds.id, null)).toEqual({ ...all([], 'anonymous'), package: 403 })

      // made public: what was done while it was private stays with those who could read it then
      await t.ok('package_patch', { id: ds.id, private: false, title: 'Open plans' }, c.owner)
      expect(await streams(t, c, ds.id, c.member)).toEqual(all(['changed package', ...privateTypes], 'member'))
      for (const [who, name] of [[c.stranger, 'stranger'], [null, 'anonymous']] as const)
        expect(await streams(t, c, ds.id, who)).toEqual(all(['changed package'], name))

      const memberList = await t.ok('package_activity_list', { id: ds.id }, c.member)
      const [opened, ...earlier] = memberList as { id: string }[]
      for (const a of earlier) {
        for (const [name, params] of [
          ['activity_show', { id: a.id, include_data: false }],
          ['activity_data_show', { id: a.id }],
        ] as const) {
          expect((await t.call(name, params, c.stranger)).status).toBe(403)
          expect((await t.call(name, params, null)).status).toBe(403)
        }
        expect((await t.ok('activity_show', { id: a.id, include_data: false }, c.member)).data.package.title).toBe(
          'Secret plans',
        )
      }
      expect((await t.ok('activity_show', { id: opened!.id, include_data: false }, null)).data.package.title).toBe('Open plans')
      expect((await t.ok('activity_data_show', { id: opened!.id }, c.stranger)).package.title).toBe('Open plans')
      // the diff of the public change would show the private version before it
      const diff = await t.call('activity_diff', { id: opened!.id, object_type: 'package' }, c.stranger)
      expect(diff.status).toBe(version === '2.11' ? 403 : 404)
      if (version === '2.11')
        expect((await t.ok('activity_diff', { id: opened!.id, object_type: 'package' }, c.owner)).diff).toContain('Secret plans')

      // the web pages show what the actions show
      for (const path of [`/dataset/activity/${ds.name}`, `/organization/activity/${c.org.name}`, `/group/activity/${c.grp.name}`, `/user/activity/${c.owner.name}`]) {
        const page = await t.get(path, null)
        expect(page.status).toBe(200)
        expect(page.text).not.toContain('Secret plans')
      }
    })

  it('a dataset made private by bulk_update_private records its activity under 2.11 only', async () => {
    for (const [version, env] of each()) {
      const { t } = env()
      const c = await cast(t)
      const ds = await t.make.dataset(c.owner, { owner_org: c.org.id })
      await t.ok('bulk_update_private', { datasets: [ds.id], org_id: c.org.id }, c.owner)
      await t.ok('package_delete', { id: ds.id }, c.owner)
      const seen = about(await t.ok('organization_activity_list', { id: c.org.id }, c.member), ds.id)
      expect(seen, version).toEqual(version === '2.11' ? ['deleted package', 'changed package', 'new package'] : ['new package'])
      expect(about(await t.ok('organization_activity_list', { id: c.org.id }, c.stranger), ds.id), version).toEqual([])
    }
  })
})
