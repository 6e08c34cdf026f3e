// The Node server's in-process runners: service.jobs.* settings, concurrency, and a stop that claims nothing more.
import { z } from 'zod'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Deps } from '../../src/context'
import { loadConfig } from '../../src/config/load'
import { defineJobKind, JobKinds } from '../../src/jobs/job-kinds'
import { runOptionsFrom } from '../../src/jobs/runner'
import { nodeJobRunners } from '../../src/runtime/node-job-runner'
import { setup, type TestEnv } from '../helpers/setup'

/** Jobs of kind `gate` wait until the test opens the gate; `running` counts those in progress. */
let running = 0
let most = 0
let open: () => void = () => {}
let gate = Promise.resolve()
const closeGate = () => {
  gate = new Promise<void>((r) => (open = r))
}

const kinds = new JobKinds<Deps>([
  defineJobKind({
    kind: 'gate',
    payload: z.object({ n: z.number() }),
    async run(_deps: Deps, { n }) {
      most = Math.max(most, ++running)
      await gate
      running--
      return n
    },
  }),
])

let t: TestEnv
beforeAll(async () => {
  t = await setup({}, { jobKinds: kinds })
})
beforeEach(async () => {
  await t.client.execute('DELETE FROM job')
  running = most = 0
  closeGate()
})

const until = async (check: () => Promise<boolean> | boolean, ms = 5000) => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}
const statuses = async (ids: string[]) =>
  Promise.all(ids.map(async (id) => (await t.deps.jobs.show(id))?.status))
const enqueue = async (count: number) => {
  const ids: string[] = []
  for (let n = 0; n < count; n++)
    ids.push((await t.deps.jobs.enqueue({ kind: 'gate', payload: { n } })).id)
  return ids
}

describe('runOptionsFrom', () => {
  it('reads service.jobs.* with their defaults', () => {
    expect(runOptionsFrom(loadConfig({}))).toEqual({
      queues: ['default'],
      leaseMs: 300_000,
      pollMs: 1000,
      concurrency: 2,
    })
    const config = loadConfig({
      SERVICE__JOBS__CONCURRENCY: '0',
      SERVICE__JOBS__QUEUES: 'default bulk',
      SERVICE__JOBS__LEASE_SECONDS: '7',
      SERVICE__JOBS__POLL_MS: '50',
    })
    expect(runOptionsFrom(config)).toEqual({
      queues: ['default', 'bulk'],
      leaseMs: 7000,
      pollMs: 50,
      concurrency: 0,
    })
  })
})

describe('nodeJobRunners', () => {
  it('runs up to `concurrency` jobs at once', async () => {
    const ids = await enqueue(3)
    const pool = nodeJobRunners(t.deps.jobs, kinds, t.deps, { concurrency: 2, pollMs: 20 })
    pool.start()
    await until(() => running === 2)
    await new Promise((r) => setTimeout(r, 100))
    expect(running).toBe(2)
    open()
    await until(async () => (await statuses(ids)).every((s) => s === 'finished'))
    expect(most).toBe(2)
    await pool.stop()
  })

  it('runs nothing with concurrency 0 (a separate worker does)', async () => {
    const ids = await enqueue(1)
    const pool = nodeJobRunners(t.deps.jobs, kinds, t.deps, { concurrency: 0, pollMs: 20 })
    pool.start()
    expect(pool.running).toBe(false)
    await new Promise((r) => setTimeout(r, 150))
    expect(await statuses(ids)).toEqual(['queued'])
    await pool.stop()
  })

  it('stop() waits for the job in hand and claims no more', async () => {
    const ids = await enqueue(3)
    const pool = nodeJobRunners(t.deps.jobs, kinds, t.deps, { concurrency: 1, pollMs: 20 })
    pool.start()
    await until(() => running === 1)
    let stopped = false
    const stopping = pool.stop().then(() => (stopped = true))
    await new Promise((r) => setTimeout(r, 50))
    expect(stopped).toBe(false)
    open()
    await stopping
    expect(await statuses(ids)).toEqual(['finished', 'queued', 'queued'])
  })
})
