// Activity streams in the browser: a dataset's, an organization's, a group's and a user's, newest
// first and paged by offset; a private dataset's activity only for its readers.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, signIn } from '../helpers/web-browser'

let t: TestEnv
let sys: any

const visitor = () => browser((path, init) => t.app.request(path, init))

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'act-member', password: 'member password' })
  const org = await t.make.organization(sys, { name: 'act-org', title: 'Activity Org' })
  await t.ok('organization_member_create', { id: org.id, username: 'act-member', role: 'member' }, sys)
  await t.make.group(sys, { name: 'act-group' })
  await t.ok('package_create', { name: 'act-data', title: 'Busy data', owner_org: org.id, groups: [{ name: 'act-group' }] }, sys)
  for (let i = 0; i < 35; i++) await t.ok('package_patch', { id: 'act-data', notes: `edit ${i}` }, sys)
  await t.ok('package_create', { name: 'act-secret', title: 'Secret data', owner_org: org.id, private: true }, sys)
})

describe('activity pages', () => {
  it("pages a dataset's activity, newest first, 30 at a time", async () => {
    const b = visitor()
    expect((await b.get('/dataset/act-data')).html).toContain('href="/dataset/activity/act-data"')
    const first = await b.get('/dataset/activity/act-data')
    expect(first.res.status).toBe(200)
    expect((first.html.match(/<li>/g) ?? []).length).toBeGreaterThanOrEqual(30)
    expect(first.html).toContain('updated the dataset Busy data')
    expect(first.html).toContain('href="/dataset/activity/act-data?offset=30"')
    expect(first.html).not.toContain('>Newer<')
    const older = await b.get('/dataset/activity/act-data?offset=30')
    expect(older.html).toContain('created the dataset Busy data')
    expect(older.html).toContain('>Newer<')
    expect(older.html).not.toContain('>Older<')
  })

  it("shows an organization's, a group's and a user's activity", async () => {
    const b = visitor()
    for (const path of ['/organization/activity/act-org', '/group/activity/act-group']) {
      const r = await b.get(path)
      expect(r.res.status).toBe(200)
      expect(r.html).toContain('Busy data')
    }
    expect((await b.get('/organization/act-org')).html).toContain('href="/organization/activity/act-org"')
    const user = await b.get(`/user/activity/${sys.name}`)
    expect(user.res.status).toBe(200)
    expect(user.html).toContain('Busy data')
  })

  it("keeps a private dataset's activity to its readers", async () => {
    expect((await visitor().get('/dataset/activity/act-secret')).res.status).toBe(404)
    expect((await visitor().get('/organization/activity/act-org')).html).not.toContain('Secret data')
    const member = visitor()
    await signIn(member, 'act-member', 'member password')
    const mine = await member.get('/dataset/activity/act-secret')
    expect(mine.res.status).toBe(200)
    expect(mine.html).toContain('Secret data')
    expect((await visitor().get('/dataset/activity/no-such-dataset')).res.status).toBe(404)
  })
})
