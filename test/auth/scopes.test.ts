// Scoped API tokens (issue 35): api_token_create's scopes, and every action's refusal under a
// narrower token, generated from the action registry (reads, writes, the organization-targeted
// writes on objects in and out of scope, DataStore writes), through the API, MCP and a page.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { TARGETED } from '../../src/auth/scopes'
import { uniq } from '../helpers/make'
import { listen } from '../helpers/server'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>

let t: TestEnv
let sys: Caller & { id: string; name: string }
let owner: Caller & { id: string; name: string }
let other: Caller & { id: string; name: string }
let orgA: Dict
let orgB: Dict

/** A token of `user` with these scopes, as the caller it makes. */
async function token(user: { name: string; apikey: string }, scopes: unknown): Promise<Caller> {
  return { apikey: (await t.ok('api_token_create', { user: user.name, name: uniq('tok'), scopes }, user)).token }
}

/** Whether the answer is the refusal of a token's scopes. */
const scopeRefusal = (r: { status: number; body: Dict }) =>
  r.status === 403 && /API token's scopes/.test(String(r.body.error?.message ?? ''))

/** A dataset of `org` with a resource that has a DataStore table and a view, made anew. */
async function world(org: Dict) {
  const ds = await t.ok('package_create', { name: uniq('scoped'), owner_org: org.id, resources: [{ url: 'http://example.com/a.csv', name: 'a', format: 'CSV' }] }, sys)
  const res = ds.resources[0]
  await t.ok('datastore_create', { resource_id: res.id, force: true, fields: [{ id: 'a', type: 'int' }], primary_key: 'a', records: [{ a: 1 }] }, sys)
  const view = await t.ok('resource_view_create', { resource_id: res.id, view_type: 'image_view', title: 'v' }, sys)
  const ds2 = await t.make.dataset(sys, { owner_org: org.id })
  return { org, ds, res, view, ds2 }
}
type World = Awaited<ReturnType<typeof world>>

/** An input of each organization-targeted write aimed at the objects of `w`. */
const targetedInputs: Record<string, (w: World) => Dict> = {
  package_create: (w) => ({ name: uniq('new'), owner_org: w.org.name }),
  package_update: (w) => ({ id: w.ds.id, name: w.ds.name, owner_org: w.org.id }),
  package_patch: (w) => ({ id: w.ds.name, notes: 'patched' }),
  package_delete: (w) => ({ id: w.ds.id }),
  dataset_purge: (w) => ({ id: w.ds.id }),
  package_revise: (w) => ({ match: { id: w.ds.id }, update: { notes: 'revised' } }),
  package_owner_org_update: (w) => ({ id: w.ds.id, organization_id: w.org.id }),
  package_collaborator_create: (w) => ({ id: w.ds.id, user_id: other.name, capacity: 'editor' }),
  package_collaborator_delete: (w) => ({ id: w.ds.id, user_id: other.name }),
  package_resource_reorder: (w) => ({ id: w.ds.id, order: [w.res.id] }),
  package_relationship_create: (w) => ({ subject: w.ds.id, object: w.ds2.id, type: 'child_of' }),
  package_relationship_update: (w) => ({ subject: w.ds.id, object: w.ds2.id, type: 'child_of', comment: 'c' }),
  package_relationship_delete: (w) => ({ subject: w.ds.id, object: w.ds2.id, type: 'child_of' }),
  package_create_default_resource_views: (w) => ({ package: { id: w.ds.id } }),
  resource_create: (w) => ({ package_id: w.ds.id, url: 'http://example.com/b.csv', name: 'b' }),
  resource_update: (w) => ({ id: w.res.id, url: 'http://example.com/c.csv', name: 'c' }),
  resource_patch: (w) => ({ id: w.res.id, name: 'patched' }),
  resource_delete: (w) => ({ id: w.res.id }),
  resource_create_default_resource_views: (w) => ({ resource: { id: w.res.id }, package: { id: w.ds.id } }),
  resource_view_create: (w) => ({ resource_id: w.res.id, view_type: 'image_view', title: 'w' }),
  resource_view_update: (w) => ({ id: w.view.id, title: 'w2' }),
  resource_view_delete: (w) => ({ id: w.view.id }),
  resource_view_reorder: (w) => ({ id: w.res.id, order: [w.view.id] }),
  datastore_create: (w) => ({ resource_id: w.res.id, force: true, records: [{ a: 2 }] }),
  datastore_upsert: (w) => ({ resource_id: w.res.id, force: true, method: 'upsert', records: [{ a: 3 }] }),
  datastore_delete: (w) => ({ resource_id: w.res.id, force: true, filters: { a: 1 } }),
  datastore_records_delete: (w) => ({ resource_id: w.res.id, force: true, filters: { a: 1 } }),
  datastore_run_triggers: (w) => ({ resource_id: w.res.id }),
  xloader_submit: (w) => ({ resource_id: w.res.id }),
  datapusher_submit: (w) => ({ resource_id: w.res.id }),
  organization_update: (w) => ({ id: w.org.id, name: w.org.name, title: 'renamed' }),
  organization_patch: (w) => ({ id: w.org.name, title: 'patched' }),
  organization_delete: (w) => ({ id: w.org.id }),
  organization_purge: (w) => ({ id: w.org.id }),
  organization_member_create: (w) => ({ id: w.org.id, username: other.name, role: 'member' }),
  organization_member_delete: (w) => ({ id: w.org.id, username: other.name }),
  member_create: (w) => ({ id: w.org.id, object: w.ds2.id, object_type: 'package', capacity: 'public' }),
  member_delete: (w) => ({ id: w.org.id, object: w.ds2.id, object_type: 'package' }),
  bulk_update_private: (w) => ({ org_id: w.org.id, datasets: [w.ds.id] }),
  bulk_update_public: (w) => ({ org_id: w.org.id, datasets: [w.ds.id] }),
  bulk_update_delete: (w) => ({ org_id: w.org.id, datasets: [w.ds.id] }),
}

const POST_READS = ['xloader_status', 'datapusher_status', 'dcat_dataset_show']
const actions = [...registry.values()]
const writes = actions.filter((a) => !a.readOnly && !POST_READS.includes(a.name))
const reads = actions.filter((a) => a.readOnly || POST_READS.includes(a.name))
const baseName = (a: { name: string; aliasOf?: string }) => a.aliasOf ?? a.name

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  owner = await t.make.user()
  other = await t.make.user()
  orgA = await t.make.organization(sys)
  orgB = await t.make.organization(sys)
  for (const org of [orgA, orgB])
    await t.ok('organization_member_create', { id: org.id, username: owner.name, role: 'admin' }, sys)
})

describe('api_token_create scopes', () => {
  it('keeps valid scopes (organizations by id) and lists them; refuses unknown ones', async () => {
    const w = await world(orgA)
    const made = await t.ok('api_token_create', { user: owner.name, name: 'narrow', scopes: `read, write:organization:${orgA.name} datastore:write:${w.res.id}` }, owner)
    const list = await t.ok('api_token_list', { user: owner.name }, owner)
    const row = list.find((x: Dict) => x.name === 'narrow')
    expect(row.scopes).toEqual(['read', `write:organization:${orgA.id}`, `datastore:write:${w.res.id}`])
    expect(made.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    // a token without scopes lists as before
    await t.ok('api_token_create', { user: owner.name, name: 'full' }, owner)
    expect(Object.keys((await t.ok('api_token_list', { user: owner.name }, owner)).find((x: Dict) => x.name === 'full'))).not.toContain('scopes')
    const bad = await t.call('api_token_create', { user: owner.name, name: 'bad', scopes: ['read', 'delete:everything', 'write:organization:no-such-org', 'datastore:write:nope'] }, owner)
    expect(bad.status).toBe(409)
    expect(bad.body.error.scopes).toEqual([
      'Unknown scope "delete:everything": one of read, write, admin, write:organization:<name>, datastore:write:<resource id>',
      'Organization "no-such-org" not found',
      'Resource "nope" not found',
    ])
    expect((await t.call('api_token_create', { user: owner.name, name: 'bad', scopes: { read: true } }, owner)).body.error.scopes).toEqual(['Must be a list of scopes'])
  })

  it('lets a scoped token make tokens only within its own scopes', async () => {
    const narrow = await token(owner, [`write:organization:${orgA.id}`])
    const made = (scopes: unknown) => t.call('api_token_create', { user: owner.name, name: uniq('child'), scopes }, narrow)
    expect(scopeRefusal(await made(undefined))).toBe(true)
    expect(scopeRefusal(await made(['write']))).toBe(true)
    expect(scopeRefusal(await made([`write:organization:${orgB.id}`]))).toBe(true)
    expect((await made(['read'])).status).toBe(200)
    expect((await made([`write:organization:${orgA.id}`])).status).toBe(200)
    const writer = await token(owner, ['write'])
    expect((await t.call('api_token_create', { user: owner.name, name: uniq('child'), scopes: [`write:organization:${orgB.id}`] }, writer)).status).toBe(200)
    expect(scopeRefusal(await t.call('api_token_create', { user: owner.name, name: uniq('child'), scopes: ['admin'] }, writer))).toBe(true)
  })
})

describe('a read token', () => {
  it('is refused every write action, sysadmin owner or not, and is never refused a read for its scopes', async () => {
    const readers = [await token(sys, 'read'), await token(owner, 'read')]
    expect(writes.length).toBeGreaterThan(80)
    for (const as of readers) {
      for (const a of writes) {
        const r = await t.call(a.name, {}, as)
        expect(scopeRefusal(r), `${a.name}: ${r.status} ${JSON.stringify(r.body.error)}`).toBe(true)
      }
      for (const a of reads) {
        const r = await t.call(a.name, {}, as)
        expect(scopeRefusal(r), `${a.name}: ${JSON.stringify(r.body.error)}`).toBe(false)
      }
    }
  })

  it('reads with its owner rights, without a sysadmin owner powers', async () => {
    // an organization sys is not a member of (its creator would be its admin)
    const org = await t.make.organization(await t.make.sysadmin())
    await t.ok('organization_member_create', { id: org.id, username: owner.name, role: 'editor' }, sys)
    const priv = await t.make.dataset(owner, { owner_org: org.id, private: true })
    expect((await t.call('package_show', { id: priv.id }, sys)).status).toBe(200)
    expect((await t.call('package_show', { id: priv.id }, await token(sys, 'read'))).status).toBe(403)
    expect((await t.call('package_show', { id: priv.id }, await token(sys, 'admin'))).status).toBe(200)
    // the organization's editor reads it through a read token
    expect((await t.call('package_show', { id: priv.id }, await token(owner, ['read']))).status).toBe(200)
  })
})

describe('an organization token', () => {
  it('knows the target of every organization-targeted write', () => {
    expect(Object.keys(targetedInputs).sort()).toEqual(Object.keys(TARGETED).sort())
  })

  it('is refused each targeted write on another organization and allowed it on its own', async () => {
    for (const [name, input] of Object.entries(targetedInputs)) {
      // fresh organizations and datasets for each (some calls delete or rewrite what they aim at)
      const [own, foreign] = [await t.make.organization(sys), await t.make.organization(sys)]
      for (const org of [own, foreign])
        await t.ok('organization_member_create', { id: org.id, username: owner.name, role: 'admin' }, sys)
      const as = await token(owner, [`write:organization:${own.id}`])
      const out = await t.call(name, input(await world(foreign)), as)
      expect(scopeRefusal(out), `${name} on another organization: ${out.status} ${JSON.stringify(out.body.error)}`).toBe(true)
      const inside = await t.call(name, input(await world(own)), as)
      expect(scopeRefusal(inside), `${name} on its own: ${JSON.stringify(inside.body.error)}`).toBe(false)
      // the action's own rule still holds (purges and moves are for sysadmins)
      if (!['dataset_purge', 'organization_purge', 'package_owner_org_update', 'datastore_run_triggers'].includes(name))
        expect(inside.status, `${name} on its own: ${JSON.stringify(inside.body.error)}`).not.toBe(403)
    }
  })

  it('is refused every write that is not about an organization', async () => {
    const scoped = await token(owner, [`write:organization:${orgA.id}`])
    for (const a of writes.filter((x) => !(baseName(x) in TARGETED) && x.name !== 'api_token_create')) {
      const r = await t.call(a.name, {}, scoped)
      expect(scopeRefusal(r), `${a.name}: ${JSON.stringify(r.body.error)}`).toBe(true)
    }
  })

  it('moves a dataset only between organizations it holds', async () => {
    const scoped = await token(owner, [`write:organization:${orgA.id}`])
    const w = await world(orgA)
    expect(scopeRefusal(await t.call('package_owner_org_update', { id: w.ds.id, organization_id: orgB.id }, scoped))).toBe(true)
    expect((await t.ok('package_show', { id: w.ds.id }, sys)).owner_org).toBe(orgA.id)
  })
})

describe('a DataStore token', () => {
  it('writes its own table and nothing else', async () => {
    const a = await world(orgA)
    const b = await world(orgA)
    const scoped = await token(owner, [`datastore:write:${a.res.id}`])
    const dsWrites = ['datastore_create', 'datastore_upsert', 'datastore_delete', 'datastore_records_delete', 'datastore_run_triggers', 'xloader_submit', 'datapusher_submit']
    for (const name of dsWrites) {
      expect(scopeRefusal(await t.call(name, targetedInputs[name]!(b), scoped)), name).toBe(true)
      const own = await t.call(name, targetedInputs[name]!(a), scoped)
      expect(scopeRefusal(own), `${name}: ${JSON.stringify(own.body.error)}`).toBe(false)
    }
    expect((await t.ok('datastore_upsert', { resource_id: a.res.id, method: 'upsert', force: true, records: [{ a: 7 }] }, scoped))).toBeTruthy()
    const rows = await t.ok('datastore_search', { resource_id: a.res.id, filters: { a: 7 } }, scoped)
    expect(rows.total).toBe(1)
    for (const x of writes.filter((w) => !dsWrites.includes(w.name) && w.name !== 'api_token_create')) {
      const r = await t.call(x.name, {}, scoped)
      expect(scopeRefusal(r), `${x.name}: ${JSON.stringify(r.body.error)}`).toBe(true)
    }
  })
})

describe('write and admin tokens', () => {
  it('write: every write but the account and its tokens, and no sysadmin powers', async () => {
    const writer = await token(sys, ['write'])
    for (const a of writes.filter((x) => x.name !== 'api_token_create')) {
      const r = await t.call(a.name, {}, writer)
      const account = ['user_update', 'user_patch', 'user_delete', 'user_generate_apikey', 'api_token_revoke'].includes(a.name)
      expect(scopeRefusal(r), `${a.name}: ${JSON.stringify(r.body.error)}`).toBe(account)
    }
    const option = { 'ckan.site_title': 'Scoped' }
    expect((await t.call('config_option_update', option, writer)).status).toBe(403)
    expect((await t.call('config_option_update', option, await token(sys, ['admin']))).status).toBe(200)
  })
})

describe('every way in', () => {
  let server: { url: string; close: () => Promise<void> }
  beforeAll(async () => {
    server = await listen(t.app)
  })
  afterAll(async () => server?.close())

  it('MCP: a read token calls read tools and is refused write tools', async () => {
    const reader = await token(owner, ['read'])
    const client = new Client({ name: 'scoped', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: reader.apikey } } }))
    const made = (await client.callTool({ name: 'package_create', arguments: { name: uniq('mcp'), owner_org: orgA.id } })) as Dict
    expect(made.isError).toBe(true)
    expect(made.content[0].text).toMatch(/API token's scopes \(read\) do not allow package_create/)
    const shown = (await client.callTool({ name: 'organization_show', arguments: { id: orgA.id } })) as Dict
    expect(shown.isError).toBeFalsy()
    await client.close()
  })

  it('a page: a read token cannot create a dataset through the form', async () => {
    const reader = await token(owner, ['read'])
    const name = uniq('page')
    const form = new URLSearchParams({ name, title: 'By page', owner_org: orgA.id, save: 'continue' })
    const res = await t.app.request('/dataset/new', { method: 'POST', headers: { authorization: reader.apikey, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
    // the pages answer every refusal as a page not found
    expect(res.status).toBe(404)
    expect((await t.call('package_show', { id: name }, sys)).status).toBe(404)
    // the same form with an organization token creates it
    const writer = await token(owner, [`write:organization:${orgA.id}`])
    const ok = await t.app.request('/dataset/new', { method: 'POST', headers: { authorization: writer.apikey, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
    expect(ok.status).toBeLessThan(400)
    expect((await t.call('package_show', { id: name }, sys)).status).toBe(200)
  })
})
