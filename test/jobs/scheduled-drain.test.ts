// drainEach, what the Worker's Cron Trigger runs: every job with services of its own, within a time budget.
import { z } from 'zod'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Deps } from '../../src/context'
import { defineJobKind, JobKinds } from '../../src/jobs/job-kinds'
import { drainEach, type RunOutcome } from '../../src/jobs/runner'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { setup, type TestEnv } from '../helpers/setup'

/** Which services ran each job: the handler records the Deps object it was given. */
const ranWith: { n: number; deps: Deps }[] = []

const kinds = new JobKinds<Deps>([
  defineJobKind({
    kind: 'note',
    payload: z.object({ n: z.number(), ms: z.number().optional() }),
    async run(deps: Deps, { n, ms }) {
      if (ms) await new Promise((r) => setTimeout(r, ms))
      ranWith.push({ n, deps })
      // the job's own services reach the catalogue
      const rs = await deps.db.$client.execute('SELECT count(*) AS c FROM job')
      return { n, jobs: Number(rs.rows[0]!.c) }
    },
  }),
  defineJobKind({
    kind: 'boom',
    payload: z.object({}),
    async run() {
      throw new Error('boom')
    },
  }),
])

let t: TestEnv
let opened: number
/** Fresh services on a connection of their own, as the Worker makes for each job. */
const open = async () => {
  opened++
  const db = await openCatalogDb(`file:${t.file}`)
  return buildDeps(t.deps.config, db.db, { jobKinds: kinds })
}

beforeAll(async () => {
  t = await setup({}, { jobKinds: kinds })
})
beforeEach(async () => {
  await t.client.execute('DELETE FROM job')
  ranWith.length = 0
  opened = 0
})

describe('drainEach', () => {
  it('runs every waiting job, each with services of its own, and records outcomes', async () => {
    const a = await t.deps.jobs.enqueue({ kind: 'note', payload: { n: 1 } })
    const bad = await t.deps.jobs.enqueue({ kind: 'boom' })
    const b = await t.deps.jobs.enqueue({ kind: 'note', payload: { n: 2 } })
    const outcomes: RunOutcome[] = []
    const { ran } = await drainEach(open, kinds, { onOutcome: (o) => outcomes.push(o) })
    expect(ran).toBe(3)
    expect(outcomes.map((o) => o.status)).toEqual(['finished', 'failed', 'finished'])
    expect(await t.deps.jobs.show(a.id)).toMatchObject({ status: 'finished', result: { n: 1, jobs: 3 } })
    expect(await t.deps.jobs.show(b.id)).toMatchObject({ status: 'finished' })
    expect((await t.deps.jobs.show(bad.id))?.error).toContain('boom')
    // three jobs and the claim that found none: four sets of services, none shared
    expect(opened).toBe(4)
    expect(ranWith[0]!.deps).not.toBe(ranWith[1]!.deps)
  })

  it('stops claiming once its budget is spent; the rest waits for the next run', async () => {
    const ids = []
    for (let n = 0; n < 3; n++)
      ids.push((await t.deps.jobs.enqueue({ kind: 'note', payload: { n, ms: 150 } })).id)
    const { ran } = await drainEach(open, kinds, { budgetMs: 250 })
    expect(ran).toBe(2)
    const statuses = await Promise.all(ids.map(async (id) => (await t.deps.jobs.show(id))?.status))
    expect(statuses).toEqual(['finished', 'finished', 'queued'])
    expect((await drainEach(open, kinds, { budgetMs: 250 })).ran).toBe(1)
  })

  it('reports services that cannot be opened as a queue error', async () => {
    await t.deps.jobs.enqueue({ kind: 'note', payload: { n: 1 } })
    const { ran, last } = await drainEach(async () => {
      throw new Error('database unreachable')
    }, kinds)
    expect(ran).toBe(0)
    expect(last).toMatchObject({ status: 'error' })
    expect((await t.deps.jobs.list()).length).toBe(1)
  })
})
