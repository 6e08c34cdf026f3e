// Issue 33, jobs you can see into: with service.jobs.concurrency ≥ 2, a one-row load that fails at
// once is not kept waiting behind a slow load, and status_show tells a sysadmin how deep the queue
// is, how old its oldest job, and what runs.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { runOptionsFrom } from '../../src/jobs/runner'
import { nodeJobRunners } from '../../src/runtime/node-job-runner'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

const files = new Map<string, Uint8Array>()
let server: Server
let base = ''
let t: TestEnv
let admin: Caller

beforeAll(async () => {
  server = createServer((req, res) => {
    const f = files.get(req.url ?? '')
    if (!f) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/csv' })
    res.end(f)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  t = await setup({ 'service.loader.allow_private_urls': 'true', 'service.jobs.concurrency': '2' })
  admin = await t.make.sysadmin()
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const big = () => {
  const lines = ['id,name,value,day']
  for (let i = 0; i < 300_000; i++) lines.push(`${i},name ${i},${i * 1.5},2026-01-${String((i % 28) + 1).padStart(2, '0')}`)
  return new TextEncoder().encode(lines.join('\n') + '\n')
}

async function linked(path: string, body: Uint8Array) {
  files.set(path, body)
  const ds = await t.make.dataset(admin)
  return t.ok('resource_create', { package_id: ds.id, url: base + path, format: 'CSV' }, admin)
}

describe('the job runners', () => {
  it('fail a one-row load at once while a slow load runs', async () => {
    const runners = nodeJobRunners(t.deps.jobs, jobKinds, t.deps, { ...runOptionsFrom(t.deps.config), onOutcome: () => {} })
    runners.start()
    try {
      const slow = await linked('/big.csv', big())
      // the slow load has started
      for (let i = 0; ; i++) {
        const s = await t.ok('xloader_status', { resource_id: slow.id }, admin)
        if (s.status === 'running') break
        expect(i).toBeLessThan(200)
        await new Promise((r) => setTimeout(r, 50))
      }
      const started = performance.now()
      const dup = await linked('/dup.csv', new TextEncoder().encode('a,b,A\n1,2,3\n'))
      let status: { status: string; error?: { message: string } }
      for (;;) {
        status = await t.ok('xloader_status', { resource_id: dup.id }, admin)
        if (status.status === 'error' || performance.now() - started > 60_000) break
        await new Promise((r) => setTimeout(r, 50))
      }
      const waited = performance.now() - started
      const slowNow = await t.ok('xloader_status', { resource_id: slow.id }, admin)
      console.log(`one-row load failed ${waited.toFixed(0)} ms after it was queued; the slow load was ${slowNow.status}`)
      expect(status.status).toBe('error')
      expect(status.error?.message).toBe('Duplicate column headers are not supported: "A"')
      expect(waited).toBeLessThan(5000)
    } finally {
      await runners.stop()
    }
  }, 120_000)

  it('fail a one-row load within seconds while 32 clients write', async () => {
    const runners = nodeJobRunners(t.deps.jobs, jobKinds, t.deps, { ...runOptionsFrom(t.deps.config), concurrency: 1, onOutcome: (o) => o.status === 'error' && console.log('queue error', String(o.error)) })
    runners.start()
    let stop = false
    let writes = 0
    const org = await t.make.organization(admin)
    const writers = Array.from({ length: 32 }, async () => {
      while (!stop) {
        const d = await t.make.dataset(admin, { owner_org: org.id, resources: [{ url: 'http://example.org/x.pdf', format: 'PDF' }] })
        await t.ok('package_patch', { id: d.id, notes: 'more' }, admin)
        writes += 2
      }
    })
    try {
      await new Promise((r) => setTimeout(r, 500))
      const started = performance.now()
      const dup = await linked('/dup2.csv', new TextEncoder().encode('a,b,A\n1,2,3\n'))
      let status: { status: string }
      for (;;) {
        status = await t.ok('xloader_status', { resource_id: dup.id }, admin)
        if (status.status === 'error' || performance.now() - started > 60_000) break
        await new Promise((r) => setTimeout(r, 50))
      }
      const waited = performance.now() - started
      console.log(`under 32 writing clients (${writes} writes so far): the one-row load failed ${waited.toFixed(0)} ms after it was queued`)
      expect(status.status).toBe('error')
      expect(waited).toBeLessThan(5000)
    } finally {
      stop = true
      await Promise.all(writers)
      await runners.stop()
    }
  }, 120_000)

  it('show in status_show, to sysadmins only, how many jobs wait, the oldest, and what runs', async () => {
    const before = (await t.ok('status_show', {}, admin)).jobs
    await linked('/wait-a.csv', new TextEncoder().encode('x\n1\n'))
    await linked('/wait-b.csv', new TextEncoder().encode('x\n2\n'))
    const held = (await t.deps.jobs.claim(['default'], 60_000))!
    try {
      const { jobs } = await t.ok('status_show', {}, admin)
      expect(jobs.queued).toBe(before.queued + 1)
      expect(jobs.oldest_queued).toMatchObject({ kind: 'xloader', queue: 'default' })
      expect(jobs.oldest_queued.age_seconds).toBeGreaterThanOrEqual(0)
      expect(jobs.running.map((j: { id: string }) => j.id)).toContain(held.id)
      expect(jobs.running.find((j: { id: string }) => j.id === held.id)).toMatchObject({ kind: 'xloader', attempts: 1 })
      // nobody else sees the queue
      const anon = await t.call('status_show', {})
      expect(anon.body.result.jobs).toBeUndefined()
      const user = await t.make.user()
      expect((await t.ok('status_show', {}, user)).jobs).toBeUndefined()
    } finally {
      await t.deps.jobs.fail({ id: held.id, lease: held.lease }, new Error('held by the test'))
      await t.deps.jobs.clear()
    }
  })
})
