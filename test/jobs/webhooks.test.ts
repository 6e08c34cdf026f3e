// Webhook deliveries (issue 35) to a real HTTP receiver this test starts: Standard Webhooks
// signatures checked with the specification's own verifier (the standardwebhooks package), the
// change feed's events as the owner may read them, retries with the same webhook-id, the events
// and filters of a webhook, webhook_test, the SSRF guard at delivery, and a webhook turned off.
import { parseMail, startSmtp } from '../helpers/smtp'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { drain } from '../../src/jobs/runner'
import { scheduleWebhookRun } from '../../src/jobs/webhooks'
import { uniq } from '../helpers/make'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>
interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

let server: Server
let base = ''
const received: Received[] = []
/** Answers per path: a queue of statuses, then 200. */
const answers = new Map<string, number[]>()

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const path = req.url ?? ''
      received.push({ path, headers: req.headers, body })
      const queue = answers.get(path)
      res.writeHead(queue?.length ? queue.shift()! : 200).end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

let t: TestEnv
let sys: Caller
let ann: Caller & { id: string; name: string }
let bea: Caller & { id: string; name: string }
let org: Dict

beforeAll(async () => {
  t = await setup({ 'service.webhooks.allow_private_urls': 'true', 'service.webhooks.retry_seconds': '0 0 0 0 0 0' })
  sys = await t.make.sysadmin()
  ann = await t.make.user()
  bea = await t.make.user()
  org = await t.make.organization(sys)
  await t.ok('organization_member_create', { id: org.id, username: ann.name, role: 'editor' }, sys)
})

/** One delivery run, as the Node server's schedule makes it. */
async function deliver(env = t) {
  await scheduleWebhookRun(env.deps)
  const ran = await drain(env.deps.jobs, jobKinds, env.deps)
  if (ran.last.status === 'error') throw new Error(`job queue error: ${JSON.stringify(ran.last)}`)
}

const at = (path: string) => received.filter((r) => r.path === path)
const bodyOf = (r: Received) => JSON.parse(r.body) as Dict

describe('webhook deliveries', () => {
  it('POSTs each event signed per Standard Webhooks, verified by its reference verifier', async () => {
    const path = `/${uniq('hook')}`
    const hook = await t.ok('webhook_create', { url: base + path, events: ['dataset.*'] }, ann)
    const ds = await t.make.dataset(ann, { owner_org: org.id, resources: [{ url: 'http://example.com/a.csv' }] })
    await t.ok('package_patch', { id: ds.id, notes: 'changed' }, ann)
    await deliver()
    const got = at(path)
    expect(got.map((r) => bodyOf(r).type)).toEqual(['dataset.created', 'dataset.updated'])
    const verifier = new Webhook(hook.secret)
    for (const r of got) {
      const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) }
      expect(verifier.verify(r.body, headers)).toEqual(bodyOf(r))
      // a changed body fails the verifier
      expect(() => verifier.verify(r.body.replace('dataset', 'datasex'), headers)).toThrow()
      expect(r.headers['content-type']).toBe('application/json')
    }
    expect(bodyOf(got[0]!).data).toMatchObject({ type: 'dataset', id: ds.id, name: ds.name, change: 'created' })
    // the resource's own events were not asked for
    const list = await t.ok('webhook_deliveries_list', { id: hook.id }, ann)
    expect(list.map((d: Dict) => [d.event, d.status, d.attempts, d.response_code])).toEqual([
      ['dataset.updated', 'delivered', 1, 200],
      ['dataset.created', 'delivered', 1, 200],
    ])
    expect(list.map((d: Dict) => d.id).sort()).toEqual(got.map((r) => String(r.headers['webhook-id'])).sort())
    // nothing twice
    await deliver()
    expect(at(path)).toHaveLength(2)
  })

  it('retries a failing receiver with the same webhook-id until it answers, then never again', async () => {
    const path = `/${uniq('flaky')}`
    answers.set(path, [500, 503, 502, 500])
    const hook = await t.ok('webhook_create', { url: base + path, events: ['dataset.created'] }, ann)
    await t.make.dataset(ann, { owner_org: org.id })
    for (let i = 0; i < 7; i++) await deliver()
    const got = at(path)
    expect(got).toHaveLength(5)
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1)
    const [d] = await t.ok('webhook_deliveries_list', { id: hook.id }, ann)
    expect(d).toMatchObject({ status: 'delivered', attempts: 5, response_code: 200, error: null })
    expect((await t.ok('webhook_show', { id: hook.id }, ann)).failing_since).toBeNull()
  })

  it('tells a subscriber only of what its owner may read', async () => {
    const annPath = `/${uniq('ann')}`
    const beaPath = `/${uniq('bea')}`
    await t.ok('webhook_create', { url: base + annPath, events: ['dataset.created'] }, ann)
    await t.ok('webhook_create', { url: base + beaPath, events: ['dataset.created'] }, bea)
    const secret = await t.make.dataset(ann, { owner_org: org.id, private: true })
    const open = await t.make.dataset(ann, { owner_org: org.id })
    await deliver()
    expect(at(annPath).map((r) => bodyOf(r).data.id)).toEqual([secret.id, open.id])
    expect(at(beaPath).map((r) => bodyOf(r).data.id)).toEqual([open.id])
    expect(received.some((r) => r.body.includes(secret.name))).toBe(true)
    expect(at(beaPath).some((r) => r.body.includes(secret.id) || r.body.includes(secret.name))).toBe(false)
  })

  it('keeps to its filters and sends webhook_test', async () => {
    const path = `/${uniq('filtered')}`
    const other = await t.make.organization(sys)
    await t.ok('organization_member_create', { id: other.id, username: ann.name, role: 'editor' }, sys)
    const hook = await t.ok('webhook_create', { url: base + path, filters: { organization: org.name } }, ann)
    await t.make.dataset(ann, { owner_org: other.id })
    const mine = await t.make.dataset(ann, { owner_org: org.id })
    const test = await t.ok('webhook_test', { id: hook.id }, ann)
    await deliver()
    const types = at(path).map((r) => [bodyOf(r).type, bodyOf(r).data.id ?? bodyOf(r).data.webhook_id])
    // in the order the deliveries were made: the test at once, the change at the next run
    expect(types).toEqual([
      ['webhook.test', hook.id],
      ['dataset.created', mine.id],
    ])
    expect(at(path)[0]!.headers['webhook-id']).toBe(test.id)
  })

  it('checks the address again at delivery, and turns off a webhook that keeps failing, telling its owner by e-mail', async () => {
    const smtp = await startSmtp()
    const t2 = await setup({ 'service.webhooks.disable_after_days': '0', 'service.webhooks.retry_seconds': '0 0', 'smtp.server': smtp.address, 'smtp.mail_from': 'site@example.org' })
    const me = await t2.make.user({ email: 'hook-owner@example.org' })
    const path = `/${uniq('guarded')}`
    // made while loopback was allowed (another site's setting), delivered where it is not
    const hook = await t2.ok('webhook_create', { url: 'https://hooks.example.org/x' }, me)
    await t2.deps.writer.write([{ sql: 'UPDATE webhook SET url = ? WHERE id = ?', args: [base + path, hook.id] }])
    await t2.ok('webhook_test', { id: hook.id }, me)
    await deliver(t2)
    expect(at(path)).toHaveLength(0)
    const [d] = await t2.ok('webhook_deliveries_list', { id: hook.id }, me)
    expect(d.error).toMatch(/loopback, link-local or private address/)
    const shown = await t2.ok('webhook_show', { id: hook.id }, me)
    expect(shown.active).toBe(false)
    expect(shown.disabled_reason).toMatch(/^Deliveries failed for 0 days/)
    // its owner was told, at their address, which webhook and why
    expect(smtp.received.map((m) => m.to)).toEqual([['hook-owner@example.org']])
    const mail = parseMail(smtp.received[0]!.raw)
    expect(`${mail.subject}\n${mail.body}`).toContain(base + path)
    expect(mail.body).toMatch(/Deliveries failed for 0 days/)
    await new Promise<void>((r) => smtp.server.close(() => r()))
    // turned back on by its owner, with its failures forgotten
    const on = await t2.ok('webhook_update', { id: hook.id, active: true }, me)
    expect(on).toMatchObject({ active: true, failing_since: null, disabled_reason: null })
  })
})
