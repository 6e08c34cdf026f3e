// Webhooks (issue 35), the subscriptions: webhook_create/_list/_show/_update/_delete and
// _deliveries_list, their checks (SSRF guard, events, filters, secret) and who may do what.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>

let t: TestEnv
let sys: Caller
let ann: Caller & { id: string; name: string }
let bea: Caller & { id: string; name: string }
let org: Dict
let pub: Dict
let priv: Dict

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  ann = await t.make.user()
  bea = await t.make.user()
  org = await t.make.organization(sys)
  pub = await t.make.dataset(sys, { owner_org: org.id, resources: [{ url: 'http://example.com/a.csv' }] })
  priv = await t.make.dataset(sys, { owner_org: org.id, private: true })
})

describe('webhook_create', () => {
  it('subscribes a URL with events, filters (kept as ids) and a made secret, shown to its owner', async () => {
    const hook = await t.ok(
      'webhook_create',
      { url: 'https://hooks.example.com/ckan', events: ['dataset.*', 'resource.created'], filters: { organization: org.name, dataset: pub.name } },
      ann,
    )
    expect(hook).toMatchObject({
      user_id: ann.id,
      url: 'https://hooks.example.com/ckan',
      events: ['dataset.*', 'resource.created'],
      filters: { organization: org.id, dataset: pub.id },
      active: true,
      failing_since: null,
      disabled_reason: null,
    })
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(await t.ok('webhook_show', { id: hook.id }, ann)).toEqual(hook)
    const list = await t.ok('webhook_list', {}, ann)
    expect(list.map((h: Dict) => h.id)).toContain(hook.id)
    expect(list.find((h: Dict) => h.id === hook.id).secret).toBeUndefined()
    expect(await t.ok('webhook_deliveries_list', { id: hook.id }, ann)).toEqual([])
  })

  it('refuses private and loopback addresses, other schemes and bad values, each by its field', async () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest']) {
      const r = await t.call('webhook_create', { url }, ann)
      expect(r.status, url).toBe(409)
      expect(r.body.error.url[0], url).toMatch(/loopback, link-local or private address \(service.webhooks.allow_private_urls allows it\)/)
    }
    const r = await t.call(
      'webhook_create',
      { url: 'ftp://example.com/x', events: ['dataset.eaten', 'user.created'], filters: { organization: 'no-such-org', colour: 'red', dataset: priv.id }, secret: 'hunter2', active: 'maybe' },
      ann,
    )
    expect(r.status).toBe(409)
    expect(r.body.error.url).toEqual(['Must be an http or https URL'])
    expect(r.body.error.events[0]).toMatch(/^Unknown events: dataset.eaten, user.created/)
    // a private dataset the caller may not read is not found, like an unknown one
    expect(r.body.error.filters).toEqual([
      'organization "no-such-org" not found',
      'Unknown filter "colour" (one of organization, dataset, resource, entity_type)',
      `dataset "${priv.id}" not found`,
    ])
    expect(r.body.error.secret[0]).toMatch(/^Must be whsec_/)
    expect(r.body.error.active).toEqual(['Must be true or false'])
    expect((await t.call('webhook_create', {}, ann)).body.error.url).toEqual(['Missing value'])
    // base64 characters of a length no encoding makes
    const odd = await t.call('webhook_create', { url: 'https://hooks.example.com/x', secret: 'whsec_' + 'A'.repeat(33) }, ann)
    expect(odd.status).toBe(409)
    expect(odd.body.error.secret[0]).toMatch(/^Must be whsec_/)
  })

  it('lets loopback URLs in with service.webhooks.allow_private_urls, and takes a given secret', async () => {
    const t2 = await setup({ 'service.webhooks.allow_private_urls': 'true' })
    const me = await t2.make.user()
    const secret = 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64')
    const hook = await t2.ok('webhook_create', { url: 'http://127.0.0.1:9/hook', secret }, me)
    expect(hook.secret).toBe(secret)
    expect(hook.events).toBeNull()
  })

  it('needs a signed-in caller', async () => {
    const r = await t.call('webhook_create', { url: 'https://hooks.example.com/x' })
    expect(r.status).toBe(403)
  })
})

describe('the other webhook actions', () => {
  it('change, list and delete only one\u2019s own webhooks (sysadmins any)', async () => {
    const hook = await t.ok('webhook_create', { url: 'https://hooks.example.com/a', events: 'dataset.created' }, ann)
    for (const [name, extra] of [['webhook_show', {}], ['webhook_update', { url: 'https://evil.example.com/' }], ['webhook_delete', {}], ['webhook_deliveries_list', {}]] as const) {
      const r = await t.call(name, { id: hook.id, ...extra }, bea)
      expect(r.status, name).toBe(403)
      expect((await t.call(name, { id: 'no-such-webhook', ...extra }, ann)).status, name).toBe(404)
    }
    expect((await t.call('webhook_list', { user: ann.name }, bea)).status).toBe(403)
    expect((await t.ok('webhook_list', { user: ann.name }, sys)).map((h: Dict) => h.id)).toContain(hook.id)

    const changed = await t.ok('webhook_update', { id: hook.id, events: [], filters: { entity_type: 'datastore' }, active: false }, ann)
    expect(changed).toMatchObject({ url: 'https://hooks.example.com/a', events: null, filters: { entity_type: 'datastore' }, active: false, secret: hook.secret })
    expect((await t.call('webhook_update', { id: hook.id, url: 'http://192.168.0.1/' }, ann)).status).toBe(409)
    expect((await t.ok('webhook_show', { id: hook.id }, sys)).url).toBe('https://hooks.example.com/a')

    await t.ok('webhook_delete', { id: hook.id }, ann)
    expect((await t.call('webhook_show', { id: hook.id }, ann)).status).toBe(404)
    expect((await t.ok('webhook_list', {}, ann)).map((h: Dict) => h.id)).not.toContain(hook.id)
  })
})
