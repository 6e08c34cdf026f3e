// The Worker's Cron Trigger in workerd: a scheduled event runs the queued jobs in sqld and prunes
// the change log.
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorker, type WorkerEnv } from './harness'

let env: WorkerEnv
beforeAll(async () => {
  env = await startWorker()
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
})
