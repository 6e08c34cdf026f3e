// The JobQueue on a real migrated catalogue file: enqueue inside a write's batch, leased claims, CKAN's job calls, the runners.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { createClient } from '@libsql/client'
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { users } from '../../src/db/schema'
import { clientExecutor, type WriteExecutor } from '../../src/db/executor'
import {
  defineJobKind,
  InvalidJobPayload,
  JobKinds,
  UnknownJobKind,
} from '../../src/jobs/job-kinds'
import { jobToDict, libsqlJobQueue, type JobQueue } from '../../src/jobs/job-queue'
import { addMs } from '../../src/lib/time'
import { drain, runOnce, type RunOutcome } from '../../src/jobs/runner'
import { WriteBatcher } from '../../src/model/write-batcher'
import { openCatalogDb, type OpenedDb } from '../../src/runtime/node-db'
import { nodeJobRunner } from '../../src/runtime/node-job-runner'
import { tempDbFile } from '../helpers/setup'

/** What handlers get in these tests (stands in for the app's Deps). */
interface TestDeps {
  seen: string[]
}

/** A clock the tests move by hand; CKAN's timestamp format, as deps.now() gives. */
function testClock(start = '2026-03-01T12:00:00Z') {
  let t = Date.parse(start)
  return {
    now: () => new Date(t).toISOString().slice(0, 23) + '000',
    advance(ms: number) {
      t += ms
    },
  }
}

const kinds = new JobKinds<TestDeps>([
  defineJobKind({
    kind: 'echo',
    payload: z.object({ text: z.string() }),
    title: (p) => `Echo ${p.text}`,
    async run(deps: TestDeps, p) {
      deps.seen.push(p.text)
      return { echoed: p.text }
    },
  }),
  defineJobKind({
    kind: 'explode',
    payload: z.object({ why: z.string().default('boom') }),
    async run(_deps: TestDeps, p) {
      throw new Error(`exploded: ${p.why}`)
    },
  }),
  defineJobKind({
    kind: 'bigint',
    payload: z.object({}),
    async run() {
      return { n: 1n }
    },
  }),
])

let opened: OpenedDb
let file: string
let clock: ReturnType<typeof testClock>
let jobs: JobQueue
let n = 0
const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`

beforeAll(async () => {
  file = tempDbFile()
  opened = await openCatalogDb(`file:${file}`)
})

afterAll(() => opened.close())

beforeEach(async () => {
  await opened.client.execute('DELETE FROM job')
  clock = testClock()
  jobs = libsqlJobQueue(opened.client, { now: clock.now, newId, kinds })
})

const userRow = (name: string) => ({ id: newId(), name, created: clock.now() })

describe('enqueueStatement', () => {
  const executors: [string, () => WriteExecutor][] = [
    ['the libSQL client batch (Workers)', () => clientExecutor(opened.client)],
    ['the synchronous executor (Node)', () => opened.writeExecutor!],
  ]

  it.each(executors)(
    'commits the job with the write it belongs to, through %s',
    async (_name, executor) => {
      const writer = new WriteBatcher(executor())
      const user = userRow(`ok-${n}`)
      const job = jobs.enqueueStatement({ kind: 'echo', payload: { text: 'welcome' } })
      await writer.write([opened.db.insert(users).values(user), job.statement])
      expect((await jobs.show(job.id))!).toMatchObject({
        id: job.id,
        status: 'queued',
        queue: 'default',
      })
      expect(await opened.db.select().from(users).where(eq(users.id, user.id))).toHaveLength(1)
    },
  )

  it.each(executors)(
    'leaves no job when a later statement of the batch fails, through %s',
    async (_name, executor) => {
      const writer = new WriteBatcher(executor())
      const taken = userRow(`taken-${n}`)
      await writer.write([opened.db.insert(users).values(taken)])
      const first = userRow(`first-${n}`)
      const job = jobs.enqueueStatement({ kind: 'echo', payload: { text: 'never' } })
      const write = writer.write([
        opened.db.insert(users).values(first),
        job.statement,
        opened.db.insert(users).values({ ...userRow(taken.name) }), // user_name_idx: already taken
      ])
      await expect(write).rejects.toThrow(/UNIQUE constraint failed: user.name/)
      expect(await jobs.show(job.id)).toBeUndefined()
      expect(await jobs.list({ status: ['queued', 'running', 'finished', 'failed'] })).toEqual([])
      expect(await opened.db.select().from(users).where(eq(users.id, first.id))).toEqual([])
    },
  )

  it('refuses a kind that is not registered, before anything is written', async () => {
    expect(() => jobs.enqueueStatement({ kind: 'no_such_kind' })).toThrow(UnknownJobKind)
    await expect(jobs.enqueue({ kind: 'no_such_kind' })).rejects.toThrow(
      'Unknown job kind "no_such_kind"',
    )
    expect(await jobs.list()).toEqual([])
  })

  it("refuses a payload the kind's schema rejects, or one JSON cannot hold", async () => {
    expect(() => jobs.enqueueStatement({ kind: 'echo', payload: { text: 42 } })).toThrow(
      InvalidJobPayload,
    )
    expect(() => jobs.enqueueStatement({ kind: 'echo', payload: { text: 42 } })).toThrow(/text: /)
    expect(() => jobs.enqueueStatement({ kind: 'echo', payload: { text: 1n } })).toThrow(
      InvalidJobPayload,
    )
    // a Date becomes a string in JSON: the schema sees what the handler will see
    expect(() =>
      jobs.enqueueStatement({ kind: 'echo', payload: { text: new Date() } }),
    ).not.toThrow()
    expect(() =>
      jobs.enqueueStatement({ kind: 'echo', payload: { text: 'x' }, queue: '' }),
    ).toThrow(TypeError)
    expect(await jobs.list()).toEqual([])
  })

  it("takes the title from enqueue, else from the kind's title()", async () => {
    const a = await jobs.enqueue({ kind: 'echo', payload: { text: 'hi' } })
    const b = await jobs.enqueue({ kind: 'echo', payload: { text: 'hi' }, title: 'Mine' })
    const c = await jobs.enqueue({ kind: 'explode' })
    expect([a.title, b.title, c.title]).toEqual(['Echo hi', 'Mine', null])
  })
})

describe('claim', () => {
  it('takes the oldest job of the named queues first, then nothing', async () => {
    const a = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    clock.advance(10)
    const x = await jobs.enqueue({ kind: 'echo', payload: { text: 'x' }, queue: 'other' })
    clock.advance(10)
    const b = await jobs.enqueue({ kind: 'echo', payload: { text: 'b' } })
    expect((await jobs.claim(['default'], 60_000))!.id).toBe(a.id)
    expect((await jobs.claim(['default', 'other'], 60_000))!.id).toBe(x.id)
    expect(await jobs.claim(['other'], 60_000)).toBeUndefined()
    expect((await jobs.claim(['default'], 60_000))!.id).toBe(b.id)
    expect(await jobs.claim(['default', 'other'], 60_000)).toBeUndefined()
  })

  it('keeps enqueue order among jobs of the same timestamp', async () => {
    const ids = []
    for (let i = 0; i < 5; i++)
      ids.push((await jobs.enqueue({ kind: 'echo', payload: { text: `${i}` } })).id)
    const claimed = []
    for (let i = 0; i < 5; i++) claimed.push((await jobs.claim(['default'], 60_000))!.id)
    expect(claimed).toEqual(ids)
  })

  it('marks the job running under a lease and counts the attempt', async () => {
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    clock.advance(5000)
    const claimed = (await jobs.claim(['default'], 30_000))!
    expect(claimed).toMatchObject({
      id: job.id,
      status: 'running',
      started: clock.now(),
      attempts: 1,
      lease_until: addMs(clock.now(), 30_000),
      payload: { text: 'a' },
    })
    expect(claimed.lease).toEqual(expect.any(String))
    expect(await jobs.show(job.id)).toMatchObject({ status: 'running', attempts: 1 })
  })

  it('takes a running job again once its lease expired, and only then', async () => {
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    const first = (await jobs.claim(['default'], 1000))!
    clock.advance(999)
    expect(await jobs.claim(['default'], 1000)).toBeUndefined()
    clock.advance(2)
    const second = (await jobs.claim(['default'], 1000))!
    expect(second).toMatchObject({ id: job.id, attempts: 2 })
    expect(second.lease).not.toBe(first.lease)
    // the first runner comes back late: its claim no longer settles the job
    expect(await jobs.finish(first, 'late')).toBe(false)
    expect(await jobs.fail(first, new Error('late'))).toBe(false)
    expect(await jobs.finish(second, 'on time')).toBe(true)
    expect(await jobs.show(job.id)).toMatchObject({ status: 'finished', result: 'on time' })
  })

  it('fails a job whose lease expired after maxAttempts claims instead of taking it again', async () => {
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    for (let i = 1; i <= 3; i++) {
      expect((await jobs.claim(['default'], 1000))!.attempts).toBe(i)
      clock.advance(1001)
    }
    expect(await jobs.claim(['default'], 1000)).toBeUndefined()
    expect(await jobs.show(job.id)).toMatchObject({
      status: 'failed',
      error: 'Lease expired after 3 attempts: the runner stopped',
      ended: clock.now(),
    })
  })

  it('keeps a lease that was renewed', async () => {
    await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    const claimed = (await jobs.claim(['default'], 1000))!
    clock.advance(800)
    expect(await jobs.renew(claimed, 1000)).toBe(true)
    clock.advance(800)
    expect(await jobs.claim(['default'], 1000)).toBeUndefined()
    expect(await jobs.renew({ id: claimed.id, lease: 'not-the-lease' }, 1000)).toBe(false)
  })

  it('answers an idle poll without the write lock, so polling never waits on writers', async () => {
    const writer = createClient({ url: `file:${file}` })
    try {
      const tx = await writer.transaction('write') // another connection is mid-write
      expect(await jobs.claim(['default'], 1000)).toBeUndefined()
      await tx.rollback()
      await jobs.enqueue({ kind: 'echo', payload: { text: 'after' } })
      expect((await jobs.claim(['default'], 1000))?.status).toBe('running')
    } finally {
      writer.close()
    }
  })

  it('refuses an empty queue list or a lease that is not a positive integer', async () => {
    await expect(jobs.claim([], 1000)).rejects.toThrow(TypeError)
    await expect(jobs.claim(['default'], 0)).rejects.toThrow(TypeError)
  })

  it('gives each job to one claimer when claims run concurrently on two connections', async () => {
    const other = createClient({ url: `file:${file}`, concurrency: 1 })
    await other.execute('PRAGMA busy_timeout=5000')
    const jobs2 = libsqlJobQueue(other, { now: clock.now, newId, kinds })
    try {
      const ids = new Set<string>()
      for (let i = 0; i < 60; i++)
        ids.add((await jobs.enqueue({ kind: 'echo', payload: { text: `${i}` } })).id)
      const claimAll = async (q: JobQueue) => {
        const got: string[] = []
        for (
          let job = await q.claim(['default'], 60_000);
          job;
          job = await q.claim(['default'], 60_000)
        )
          got.push(job.id)
        return got
      }
      const [a, b] = await Promise.all([claimAll(jobs), claimAll(jobs2)])
      expect([...a, ...b].sort()).toEqual([...ids].sort())
      expect(a.filter((id) => b.includes(id))).toEqual([])
    } finally {
      other.close()
    }
  })

  it('gives each job to one claimer when two processes claim at the same time', async () => {
    const total = 400
    const ids = new Set<string>()
    for (let i = 0; i < total; i++) {
      const { id, statement } = jobs.enqueueStatement({
        kind: 'echo',
        payload: { text: `${i}` },
        queue: 'race',
      })
      await opened.client.execute(statement)
      ids.add(id)
    }
    // the other process uses real time; ours must agree on what an expired lease is
    jobs = libsqlJobQueue(opened.client, {
      now: () => new Date().toISOString().slice(0, 23) + '000',
      newId,
      kinds,
    })
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/claim-jobs.ts', file, 'race'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    )
    // listened to from the start: the child may exit before we read its last line
    const exited = new Promise<number | null>((r) => child.once('exit', r))
    let stderr = ''
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
    expect((await lines.next()).value, stderr).toBe('ready')
    child.stdin!.write('go\n')
    const mine: string[] = []
    for (
      let job = await jobs.claim(['race'], 60_000);
      job;
      job = await jobs.claim(['race'], 60_000)
    ) {
      mine.push(job.id)
      expect(await jobs.finish(job, { by: 'test' })).toBe(true)
    }
    const last = (await lines.next()).value as string | undefined
    expect(await exited, stderr).toBe(0)
    const theirs = JSON.parse(last!) as string[]
    expect(mine.length + theirs.length).toBe(total)
    expect(new Set([...mine, ...theirs])).toEqual(ids)
    // both really took part (the child starts on our "go", so the claims overlap)
    expect(theirs.length).toBeGreaterThan(0)
    expect(mine.length).toBeGreaterThan(0)
    const finished = await jobs.list({ queues: ['race'], status: ['finished'] })
    expect(finished).toHaveLength(total)
    expect(finished.every((j) => j.attempts === 1)).toBe(true)
  }, 60_000)
})

describe('finish and fail', () => {
  it('records the result or the error of a running job, once', async () => {
    const a = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    const b = await jobs.enqueue({ kind: 'echo', payload: { text: 'b' } })
    const ca = (await jobs.claim(['default'], 60_000))!
    const cb = (await jobs.claim(['default'], 60_000))!
    clock.advance(1500)
    expect(await jobs.finish(ca, { rows: 3, ok: true })).toBe(true)
    expect(await jobs.fail(cb.id, new RangeError('out of range'))).toBe(true)
    expect(await jobs.show(a.id)).toMatchObject({
      status: 'finished',
      result: { rows: 3, ok: true },
      ended: clock.now(),
      error: null,
      lease_until: null,
    })
    const failed = (await jobs.show(b.id))!
    expect(failed).toMatchObject({ status: 'failed', ended: clock.now(), result: null })
    expect(failed.error).toMatch(/^RangeError: out of range\n\s+at /)
    // settled jobs stay settled
    expect(await jobs.finish(ca, 'again')).toBe(false)
    expect(await jobs.fail(a.id, 'again')).toBe(false)
    expect(await jobs.show(a.id)).toMatchObject({
      status: 'finished',
      result: { rows: 3, ok: true },
    })
  })

  it('does not settle a job that was never claimed, or an unknown one', async () => {
    const a = await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    expect(await jobs.finish(a.id)).toBe(false)
    expect(await jobs.fail('no-such-id', 'x')).toBe(false)
    expect(await jobs.show(a.id)).toMatchObject({ status: 'queued' })
  })

  it('records a thrown non-Error as text', async () => {
    await jobs.enqueue({ kind: 'echo', payload: { text: 'a' } })
    const c = (await jobs.claim(['default'], 60_000))!
    await jobs.fail(c, { reason: 'quota' })
    expect((await jobs.show(c.id))!.error).toBe('{"reason":"quota"}')
  })
})

describe('list, show, cancel, clear, purge', () => {
  async function fill() {
    const q1 = await jobs.enqueue({ kind: 'echo', payload: { text: '1' } })
    clock.advance(1000)
    const q2 = await jobs.enqueue({ kind: 'echo', payload: { text: '2' }, queue: 'bulk' })
    clock.advance(1000)
    const running = await jobs.enqueue({ kind: 'echo', payload: { text: 'r' }, queue: 'bulk' })
    clock.advance(1000)
    const q3 = await jobs.enqueue({ kind: 'echo', payload: { text: '3' }, queue: 'low' })
    // as if a runner had taken it
    await opened.client.execute({
      sql: `UPDATE job SET status = 'running' WHERE id = ?`,
      args: [running.id],
    })
    return { q1, q2, running, q3 }
  }

  it('lists queued jobs of every queue, oldest first, as CKAN job_list does', async () => {
    const { q1, q2, q3 } = await fill()
    expect((await jobs.list()).map((j) => j.id)).toEqual([q1.id, q2.id, q3.id])
    expect((await jobs.list({ queues: ['bulk', 'low'] })).map((j) => j.id)).toEqual([q2.id, q3.id])
    expect((await jobs.list({ queues: [] })).map((j) => j.id)).toEqual([q1.id, q2.id, q3.id])
    expect(await jobs.list({ queues: ['none'] })).toEqual([])
  })

  it('lists jobs of other states on request', async () => {
    const { running } = await fill()
    expect((await jobs.list({ status: ['running'] })).map((j) => j.id)).toEqual([running.id])
  })

  it('shows any job, and maps it to the CKAN job dict', async () => {
    const { q2 } = await fill()
    const job = (await jobs.show(q2.id))!
    expect(job).toMatchObject({
      kind: 'echo',
      payload: { text: '2' },
      queue: 'bulk',
      title: 'Echo 2',
      attempts: 0,
    })
    expect(jobToDict(job)).toEqual({
      id: q2.id,
      title: 'Echo 2',
      created: '2026-03-01T12:00:01',
      queue: 'bulk',
    })
    expect(await jobs.show('no-such-id')).toBeUndefined()
  })

  it('cancels any job but a running one', async () => {
    const { q1, q2, running } = await fill()
    expect(await jobs.cancel(q1.id)).toBe(true)
    expect(await jobs.show(q1.id)).toBeUndefined()
    expect(await jobs.cancel(q1.id)).toBe(false)
    expect(await jobs.cancel(running.id)).toBe(false)
    expect(await jobs.show(running.id)).toMatchObject({ status: 'running' })
    expect(await jobs.cancel('no-such-id')).toBe(false)
    // a finished job is deleted too, as RQ's job.delete() would
    await opened.client.execute({ sql: `UPDATE job SET status = 'finished' WHERE id = ?`, args: [q2.id] })
    expect(await jobs.cancel(q2.id)).toBe(true)
    expect(await jobs.show(q2.id)).toBeUndefined()
  })

  it('clears the queued jobs of the named queues and returns those names', async () => {
    const { q1, running, q3 } = await fill()
    expect(await jobs.clear(['bulk', 'empty'])).toEqual(['bulk', 'empty'])
    expect((await jobs.list()).map((j) => j.id)).toEqual([q1.id, q3.id])
    expect(await jobs.show(running.id)).toMatchObject({ status: 'running' })
  })

  it('clears every queue without names and returns the queues that held jobs', async () => {
    const { running } = await fill()
    expect(await jobs.clear()).toEqual(['bulk', 'default', 'low'])
    expect(await jobs.list()).toEqual([])
    expect(await jobs.show(running.id)).toMatchObject({ status: 'running' })
    expect(await jobs.clear([])).toEqual([])
  })

  it('purges settled jobs that ended before a time', async () => {
    await jobs.enqueue({ kind: 'echo', payload: { text: 'old' } })
    await jobs.enqueue({ kind: 'echo', payload: { text: 'new' } })
    await jobs.enqueue({ kind: 'echo', payload: { text: 'waiting' } })
    const old = (await jobs.claim(['default'], 60_000))!
    await jobs.finish(old)
    clock.advance(60_000)
    const cutoff = clock.now()
    const recent = (await jobs.claim(['default'], 60_000))!
    await jobs.fail(recent, 'x')
    expect(await jobs.purge(cutoff)).toBe(1)
    expect(await jobs.show(old.id)).toBeUndefined()
    expect(await jobs.show(recent.id)).toMatchObject({ status: 'failed' })
    expect(await jobs.list()).toHaveLength(1)
  })
})

describe('JobKinds', () => {
  it('refuses a kind defined twice', () => {
    const k = defineJobKind({ kind: 'x', payload: z.object({}), run: async () => null })
    expect(() => new JobKinds([k, k])).toThrow('Job kind "x" is defined twice')
  })
})

describe('runOnce', () => {
  it('runs the handler with the parsed payload and records its result', async () => {
    const deps: TestDeps = { seen: [] }
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'hello' } })
    const outcome = await runOnce(jobs, kinds, deps)
    expect(outcome).toMatchObject({
      status: 'finished',
      job: { id: job.id },
      result: { echoed: 'hello' },
    })
    expect(deps.seen).toEqual(['hello'])
    expect(await jobs.show(job.id)).toMatchObject({
      status: 'finished',
      result: { echoed: 'hello' },
    })
    expect(await runOnce(jobs, kinds, deps)).toEqual({ status: 'idle' })
  })

  it('records a handler error on the job instead of throwing it', async () => {
    const job = await jobs.enqueue({ kind: 'explode', payload: { why: 'disk full' } })
    const outcome = await runOnce(jobs, kinds, { seen: [] })
    expect(outcome.status).toBe('failed')
    expect((outcome as { error: Error }).error.message).toBe('exploded: disk full')
    expect((await jobs.show(job.id))!.error).toMatch(/^Error: exploded: disk full/)
  })

  it('fails a job whose kind this process does not know', async () => {
    const other = libsqlJobQueue(opened.client, {
      now: clock.now,
      newId,
      kinds: new JobKinds([
        defineJobKind({ kind: 'retired', payload: z.object({}), run: async () => null }),
      ]),
    })
    const job = await other.enqueue({ kind: 'retired' })
    expect(await runOnce(jobs, kinds, { seen: [] })).toMatchObject({ status: 'failed' })
    expect((await jobs.show(job.id))!.error).toMatch(/^Error: Unknown job kind "retired"/)
  })

  it('fails a job whose stored payload the schema now rejects', async () => {
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'ok' } })
    await opened.client.execute({
      sql: `UPDATE job SET payload = '{"text": 5}' WHERE id = ?`,
      args: [job.id],
    })
    const deps: TestDeps = { seen: [] }
    expect(await runOnce(jobs, kinds, deps)).toMatchObject({ status: 'failed' })
    expect(deps.seen).toEqual([])
    expect((await jobs.show(job.id))!.error).toMatch(/Invalid payload for job kind "echo"/)
  })

  it('fails a job whose result JSON cannot hold', async () => {
    const job = await jobs.enqueue({ kind: 'bigint' })
    expect(await runOnce(jobs, kinds, { seen: [] })).toMatchObject({ status: 'failed' })
    expect((await jobs.show(job.id))!.error).toMatch(/^TypeError: .*BigInt/)
  })

  it('takes jobs from the queues it is given', async () => {
    await jobs.enqueue({ kind: 'echo', payload: { text: 'd' } })
    const bulk = await jobs.enqueue({ kind: 'echo', payload: { text: 'b' }, queue: 'bulk' })
    expect(await runOnce(jobs, kinds, { seen: [] }, { queues: ['bulk'] })).toMatchObject({
      job: { id: bulk.id },
    })
    expect(await runOnce(jobs, kinds, { seen: [] }, { queues: ['bulk'] })).toEqual({
      status: 'idle',
    })
  })

  it('renews the lease while the handler runs', async () => {
    const slow = new JobKinds<TestDeps>([
      defineJobKind({
        kind: 'echo',
        payload: z.object({ text: z.string() }),
        async run() {
          clock.advance(80)
          await new Promise((r) => setTimeout(r, 150)) // the heartbeat (every 50 ms) renews meanwhile
          clock.advance(80) // past the first lease (100 ms), not past a renewed one
          return rival.claim(['default'], 100)
        },
      }),
    ])
    const rival = libsqlJobQueue(opened.client, { now: clock.now, newId, kinds: slow })
    await jobs.enqueue({ kind: 'echo', payload: { text: 'slow' } })
    const outcome = await runOnce(jobs, slow, { seen: [] }, { leaseMs: 100 })
    expect(outcome).toMatchObject({ status: 'finished', result: undefined })
  })

  it('reports a lost lease instead of recording over the new claim', async () => {
    const hijack = new JobKinds<TestDeps>([
      defineJobKind({
        kind: 'echo',
        payload: z.object({ text: z.string() }),
        async run() {
          clock.advance(10_000)
          return (await jobs.claim(['default'], 60_000))?.id
        },
      }),
    ])
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'x' } })
    expect(await runOnce(jobs, hijack, { seen: [] }, { leaseMs: 1000 })).toMatchObject({
      status: 'lost',
    })
    expect(await jobs.show(job.id)).toMatchObject({ status: 'running', attempts: 2 })
  })

  it('returns a queue failure as an outcome instead of throwing', async () => {
    const broken = createClient({ url: `file:${file}` })
    broken.close()
    const q = libsqlJobQueue(broken, { now: clock.now, newId, kinds })
    const outcome = await runOnce(q, kinds, { seen: [] })
    expect(outcome.status).toBe('error')
  })
})

describe('drain', () => {
  it('runs waiting jobs up to maxJobs and reports each outcome', async () => {
    for (const text of ['a', 'b', 'c']) await jobs.enqueue({ kind: 'echo', payload: { text } })
    await jobs.enqueue({ kind: 'explode' })
    const deps: TestDeps = { seen: [] }
    const outcomes: RunOutcome[] = []
    expect(
      (await drain(jobs, kinds, deps, { maxJobs: 2, onOutcome: (o) => outcomes.push(o) })).ran,
    ).toBe(2)
    expect((await drain(jobs, kinds, deps, { onOutcome: (o) => outcomes.push(o) })).ran).toBe(2)
    expect(outcomes.map((o) => o.status)).toEqual(['finished', 'finished', 'finished', 'failed'])
    expect(deps.seen).toEqual(['a', 'b', 'c'])
  })
})

describe('nodeJobRunner', () => {
  const until = async (check: () => Promise<boolean>, ms = 5000) => {
    const end = Date.now() + ms
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out')
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  const settled = async (id: string) =>
    ['finished', 'failed'].includes((await jobs.show(id))?.status ?? '')

  it('runs jobs in the background until stopped, failures included', async () => {
    const deps: TestDeps = { seen: [] }
    const outcomes: RunOutcome[] = []
    const runner = nodeJobRunner(jobs, kinds, deps, {
      pollMs: 20,
      onOutcome: (o) => outcomes.push(o),
    })
    runner.start()
    expect(runner.running).toBe(true)
    const bad = await jobs.enqueue({ kind: 'explode' })
    const good = await jobs.enqueue({ kind: 'echo', payload: { text: 'bg' } })
    await until(() => settled(good.id))
    expect(await jobs.show(bad.id)).toMatchObject({ status: 'failed' })
    expect(await jobs.show(good.id)).toMatchObject({ status: 'finished' })
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'finished'])
    await runner.stop()
    expect(runner.running).toBe(false)
    const after = await jobs.enqueue({ kind: 'echo', payload: { text: 'after' } })
    await new Promise((r) => setTimeout(r, 100))
    expect(await jobs.show(after.id)).toMatchObject({ status: 'queued' })
    expect(deps.seen).toEqual(['bg'])
  })

  it('runs a job at once on wake() despite a long poll interval', async () => {
    const runner = nodeJobRunner(jobs, kinds, { seen: [] }, { pollMs: 60_000, onOutcome: () => {} })
    runner.start()
    await new Promise((r) => setTimeout(r, 50)) // the first poll found nothing
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'w' } })
    runner.wake()
    await until(() => settled(job.id), 2000)
    await runner.stop()
  })

  it('waits for the job in progress when stopped', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const gated = new JobKinds<TestDeps>([
      defineJobKind({
        kind: 'echo',
        payload: z.object({ text: z.string() }),
        async run() {
          await gate
          return 'done'
        },
      }),
    ])
    const job = await jobs.enqueue({ kind: 'echo', payload: { text: 'g' } })
    const runner = nodeJobRunner(jobs, gated, { seen: [] }, { pollMs: 10, onOutcome: () => {} })
    runner.start()
    await until(async () => (await jobs.show(job.id))?.status === 'running')
    let stopped = false
    const stopping = runner.stop().then(() => (stopped = true))
    await new Promise((r) => setTimeout(r, 50))
    expect(stopped).toBe(false)
    release()
    await stopping
    expect(await jobs.show(job.id)).toMatchObject({ status: 'finished', result: 'done' })
  })
})
