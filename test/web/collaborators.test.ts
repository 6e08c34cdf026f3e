// Dataset collaborators in the browser (/dataset/collaborators/<name>, with
// service.auth.allow_dataset_collaborators): the organization's admins add, change and remove
// them; a collaborator editor may then edit the dataset's pages; nobody else gets the page.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

let t: TestEnv
let sys: any
let admin: Browser
let helper: Browser

const visitor = (env: TestEnv = t) => browser((path, init) => env.app.request(path, init))

beforeAll(async () => {
  t = await setup({ 'service.auth.allow_dataset_collaborators': 'true' })
  sys = await t.make.sysadmin()
  await t.make.user({ name: 'co-admin', password: 'admin password' })
  await t.make.user({ name: 'co-helper', password: 'helper password' })
  const org = await t.make.organization(sys, { name: 'co-org' })
  await t.ok('organization_member_create', { id: org.id, username: 'co-admin', role: 'admin' }, sys)
  await t.ok('package_create', { name: 'co-data', title: 'Shared data', owner_org: org.id, private: true }, sys)
  admin = visitor()
  helper = visitor()
  await signIn(admin, 'co-admin', 'admin password')
  await signIn(helper, 'co-helper', 'helper password')
})

describe('dataset collaborators', () => {
  it("the organization's admin adds an editor, who may then edit; then removes them", async () => {
    expect((await admin.get('/dataset/co-data')).html).toContain('href="/dataset/collaborators/co-data"')
    const page = await admin.get('/dataset/collaborators/co-data')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('No collaborators.')
    expect((await helper.get('/dataset/co-data')).res.status).toBe(404)
    const added = await admin.post('/dataset/collaborators/co-data/new', { _csrf_token: csrfOf(page.html), username: 'co-helper', capacity: 'editor' })
    expect(added.res.status).toBe(303)
    const list = await t.ok('package_collaborator_list', { id: 'co-data' }, sys)
    expect(list.map((c: any) => c.capacity)).toEqual(['editor'])
    // the collaborator reads and edits the private dataset, but does not manage collaborators
    expect((await helper.get('/dataset/co-data')).res.status).toBe(200)
    expect((await helper.get('/dataset/edit/co-data')).res.status).toBe(200)
    expect((await helper.get('/dataset/collaborators/co-data')).res.status).toBe(404)
    const unknown = await admin.post('/dataset/collaborators/co-data/new', { _csrf_token: csrfOf(page.html), username: 'nobody-at-all', capacity: 'member' })
    expect(unknown.res.status).toBe(409)
    expect((await admin.post('/dataset/collaborators/co-data/delete', { user_id: list[0].user_id })).res.status).toBe(403)
    const removed = await admin.post('/dataset/collaborators/co-data/delete', { _csrf_token: csrfOf(page.html), user_id: list[0].user_id })
    expect(removed.res.status).toBe(303)
    expect(await t.ok('package_collaborator_list', { id: 'co-data' }, sys)).toEqual([])
    expect((await helper.get('/dataset/co-data')).res.status).toBe(404)
  })

  it('is no page where collaborators are off', async () => {
    const off = await setup()
    const s = await off.make.sysadmin()
    await off.make.user({ name: 'off-admin', password: 'admin password' })
    const org = await off.make.organization(s, { name: 'off-org' })
    await off.ok('organization_member_create', { id: org.id, username: 'off-admin', role: 'admin' }, s)
    await off.ok('package_create', { name: 'off-data', owner_org: org.id }, s)
    const b = visitor(off)
    await signIn(b, 'off-admin', 'admin password')
    expect((await b.get('/dataset/off-data')).html).not.toContain('/dataset/collaborators/')
    expect((await b.get('/dataset/collaborators/off-data')).res.status).toBe(404)
  })
})
