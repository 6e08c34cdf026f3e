// The Worker's Cron Trigger in workerd: a scheduled event runs the queued jobs in sqld, prunes
// the change log, and delivers webhooks (a delivery run queued and run by the same event).
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from '@libsql/client'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { okWorker, startWorker, type WorkerEnv } from './harness'

let env: WorkerEnv
beforeAll(async () => {
  // the test's receiver listens on loopback, which the SSRF guard refuses unless allowed
  env = await startWorker({ SERVICE__WEBHOOKS__ALLOW_PRIVATE_URLS: 'true' })
}, 120_000)
afterAll(async () => {
  await env?.close()
})

describe('the scheduled handler', () => {
  it('claims and settles every waiting job of the default queue', async () => {
    const db = createClient({ url: env.catalogue.url })
    // the bundled Worker knows no test kinds: an unknown kind is claimed and failed with the
    // reason, which shows the event ran the queue through the Worker's own code path
    const insert = `INSERT INTO job (id, queue, title, kind, payload, status, created, attempts)
                    VALUES (?, ?, NULL, 'no_such_kind', '{}', 'queued', '2026-01-01T00:00:00.000000', 0)`
    await db.execute({ sql: insert, args: ['job-1', 'default'] })
    await db.execute({ sql: insert, args: ['job-2', 'default'] })
    await db.execute({ sql: insert, args: ['job-3', 'elsewhere'] })
    // Miniflare's Fetcher has scheduled() at run time; its type here does not declare it
    const worker = (await env.mf.getWorker()) as unknown as {
      scheduled(opts: { cron: string }): Promise<{ outcome: string }>
    }
    const result = await worker.scheduled({ cron: '* * * * *' })
    expect(result.outcome).toBe('ok')
    const rs = await db.execute('SELECT id, status, attempts, error FROM job ORDER BY id')
    const rows = rs.rows.map((r) => ({ ...r }))
    expect(rows.map((r) => [r.id, r.status, Number(r.attempts)])).toEqual([
      ['job-1', 'failed', 1],
      ['job-2', 'failed', 1],
      ['job-3', 'queued', 0],
    ])
    expect(String(rows[0]!.error)).toContain('Unknown job kind "no_such_kind"')
    db.close()
  }, 60_000)

  it('prunes the change log to the retention: old rows but the newest go, young rows stay', async () => {
    const db = createClient({ url: env.catalogue.url })
    const add = (at: string) => db.execute({ sql: "INSERT INTO change_log (entity_type, entity_id, op, at) VALUES ('other', '', 'touch', ?)", args: [at] })
    await db.execute('DELETE FROM search_snapshot')
    // the log is in time order: everything so far made old, then two young rows
    await add('2000-01-02T00:00:00.000')
    await db.execute("UPDATE change_log SET at = '2000-01-01T00:00:00.000'")
    const young = new Date().toISOString().slice(0, 23)
    await add(young)
    await add(young)
    const worker = (await env.mf.getWorker()) as unknown as { scheduled(opts: { cron: string }): Promise<{ outcome: string }> }
    expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')
    const rows = (await db.execute('SELECT at FROM change_log ORDER BY seq')).rows.map((r) => String(r.at))
    expect(rows).toEqual([young, young])
    db.close()
  }, 60_000)

  it('delivers a webhook\'s event, signed, from a Cron Trigger, and records the delivery', async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = []
    const receiver = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        got.push({ headers: req.headers, body })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      const hook = await okWorker(env.mf, 'webhook_create', { url, events: ['dataset.created'] }, env.sysadmin)
      const ds = await okWorker(env.mf, 'package_create', { name: 'edge-hooked' }, env.sysadmin)
      const worker = (await env.mf.getWorker()) as unknown as { scheduled(opts: { cron: string }): Promise<{ outcome: string }> }
      expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')
      expect(got).toHaveLength(1)
      const headers = Object.fromEntries(Object.entries(got[0]!.headers).map(([k, v]) => [k, String(v)]))
      const event = new Webhook(hook.secret).verify(got[0]!.body, headers) as { type: string; data: { id: string } }
      expect(event).toMatchObject({ type: 'dataset.created', data: { id: ds.id } })
      const [delivery] = await okWorker(env.mf, 'webhook_deliveries_list', { id: hook.id }, env.sysadmin)
      expect(delivery).toMatchObject({ id: headers['webhook-id'], status: 'delivered', attempts: 1, response_code: 204 })
      // the next trigger sends nothing again
      expect((await worker.scheduled({ cron: '* * * * *' })).outcome).toBe('ok')
      expect(got).toHaveLength(1)
    } finally {
      await new Promise((r) => receiver.close(r))
    }
  }, 60_000)
})
