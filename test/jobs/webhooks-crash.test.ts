// Webhook deliveries survive a runner killed mid-delivery (kill -9): the next runner sends the
// same event again, with the same webhook-id, and records it once delivered.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type IncomingHttpHeaders, type ServerResponse, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scheduleWebhookRun } from '../../src/jobs/webhooks'
import { setup, type TestEnv } from '../helpers/setup'

const OPTIONS = { 'service.webhooks.allow_private_urls': 'true', 'service.webhooks.retry_seconds': '0 0 0' }

let t: TestEnv
let server: Server
let base = ''
const children: ChildProcess[] = []
const received: { headers: IncomingHttpHeaders; body: string }[] = []
/** While set, requests are held open without an answer. */
let hold = true
const held: ServerResponse[] = []

beforeAll(async () => {
  t = await setup(OPTIONS)
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      if (hold) held.push(res)
      else res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const r of held) r.destroy()
  await new Promise<void>((r) => server.close(() => r()))
})

/** A worker process (the app's job kinds) on the test's database. */
async function startWorker() {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: `file:${t.file}`,
    SERVICE__JOBS__LEASE_SECONDS: '2',
    SERVICE__JOBS__POLL_MS: '100',
    SERVICE__STORAGE_PATH: join(t.file, '..', 'uploads'),
  }
  for (const [k, v] of Object.entries(OPTIONS)) env[k.toUpperCase().replaceAll('.', '__')] = v
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/job-worker.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, signal) => r(signal)))
  await waitFor(() => out.includes('running jobs of'), 30_000, () => `no start: ${out}`)
  return { child, exited, output: () => out }
}

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: () => string) {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${what()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('a webhook delivery and a killed runner', () => {
  it('is sent again by the next runner with the same webhook-id, and recorded once', async () => {
    const owner = await t.make.user()
    const org = await t.make.organization(await t.make.sysadmin())
    await t.ok('organization_member_create', { id: org.id, username: owner.name, role: 'editor' }, await t.make.sysadmin())
    const hook = await t.ok('webhook_create', { url: `${base}/crash`, events: ['dataset.created'] }, owner)
    const ds = await t.make.dataset(owner, { owner_org: org.id })
    expect(await scheduleWebhookRun(t.deps)).toBeTruthy()

    const first = await startWorker()
    // the runner is in the middle of the POST: the receiver holds it
    await waitFor(() => received.length === 1, 30_000, first.output)
    first.child.kill('SIGKILL')
    expect(await first.exited).toBe('SIGKILL')
    const [pending] = await t.ok('webhook_deliveries_list', { id: hook.id }, owner)
    expect(pending).toMatchObject({ event: 'dataset.created', status: 'pending', attempts: 0 })

    hold = false
    const second = await startWorker()
    // the dead runner's job runs again once its lease (2 s) expires
    await waitFor(async () => (await t.ok('webhook_deliveries_list', { id: hook.id }, owner))[0].status === 'delivered', 30_000, second.output)
    const [done] = await t.ok('webhook_deliveries_list', { id: hook.id }, owner)
    expect(done).toMatchObject({ id: pending.id, status: 'delivered', attempts: 1, response_code: 200 })
    expect(received).toHaveLength(2)
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([pending.id, pending.id])
    expect(received.map((r) => JSON.parse(r.body).data.id)).toEqual([ds.id, ds.id])
    second.child.kill('SIGTERM')
    await second.exited
  }, 90_000)
})
