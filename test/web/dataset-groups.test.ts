// A dataset's groups in the browser (/dataset/groups/<name>): its editor adds it to the groups they
// are a member of and takes it out; no other group, no token-less post, no one who may not edit.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let sys: any
let editor: Browser
let other: any

const visitor = () => browser((path, init) => t.app.request(path, init))
const groupsOf = async () => ((await t.ok('package_show', { id: 'dg-data' }, sys)).groups as any[]).map((g) => g.name)

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'dg-editor', password: 'editor password' })
  const org = await t.make.organization(sys, { name: 'dg-org' })
  await t.ok('organization_member_create', { id: org.id, username: 'dg-editor', role: 'editor' }, sys)
  await t.make.group(sys, { name: 'dg-mine', title: 'My group' })
  other = await t.make.group(sys, { name: 'dg-other', title: 'Other group' })
  await t.ok('group_member_create', { id: 'dg-mine', username: 'dg-editor', role: 'member' }, sys)
  await t.ok('package_create', { name: 'dg-data', owner_org: org.id }, sys)
  editor = visitor()
  await signIn(editor, 'dg-editor', 'editor password')
})

describe("a dataset's groups", () => {
  it("adds the dataset to the editor's group and takes it out", async () => {
    expect((await editor.get('/dataset/dg-data')).html).toContain('href="/dataset/groups/dg-data"')
    const page = await editor.get('/dataset/groups/dg-data')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('My group')
    expect(page.html).not.toContain('Other group')
    const csrf = csrfOf(page.html)
    const mine = (await t.ok('group_show', { id: 'dg-mine' })).id
    expect((await editor.post('/dataset/groups/dg-data/add', { group: mine })).res.status).toBe(403)
    expect((await editor.post('/dataset/groups/dg-data/add', { _csrf_token: csrf, group: mine })).res.status).toBe(303)
    expect(await groupsOf()).toEqual(['dg-mine'])
    // a group the editor is not a member of: refused by member_create
    const forged = await editor.post('/dataset/groups/dg-data/add', { _csrf_token: csrf, group: other.id })
    expect(forged.res.status).toBe(409)
    expect(await groupsOf()).toEqual(['dg-mine'])
    expect((await editor.post('/dataset/groups/dg-data/remove', { _csrf_token: csrf, group: mine })).res.status).toBe(303)
    expect(await groupsOf()).toEqual([])
  })

  it('is the 404 page for anyone who may not edit the dataset', async () => {
    await t.make.user({ name: 'dg-stranger', password: 'stranger password' })
    const b = visitor()
    await signIn(b, 'dg-stranger', 'stranger password')
    expect((await b.get('/dataset/groups/dg-data')).res.status).toBe(404)
    expect((await b.post('/dataset/groups/dg-data/add', { _csrf_token: csrfOf((await b.get('/dataset')).html), group: 'dg-mine' })).res.status).toBe(404)
    expect(await groupsOf()).toEqual([])
  })
})
