// job_list / job_show / job_clear / job_cancel: CKAN's job dicts over the real queue, sysadmins only.
import { z } from 'zod'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Deps } from '../../src/context'
import { defineJobKind, JobKinds } from '../../src/jobs/job-kinds'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

const kinds = new JobKinds<Deps>([
  defineJobKind({
    kind: 'echo',
    payload: z.object({ text: z.string() }),
    title: (p) => `Echo ${p.text}`,
    async run(_deps: Deps, p) {
      return p.text
    },
  }),
])

let t: TestEnv
let sys: Caller
let user: Caller

beforeAll(async () => {
  t = await setup({}, { jobKinds: kinds })
  sys = await t.make.sysadmin()
  user = await t.make.user()
})

beforeEach(async () => {
  await t.client.execute('DELETE FROM job')
})

const enqueue = (text: string, queue?: string) =>
  t.deps.jobs.enqueue({ kind: 'echo', payload: { text }, queue })

const DICT_KEYS = ['created', 'id', 'queue', 'title']

describe('job_list', () => {
  it('lists the queued jobs of every queue, oldest first, as job dicts', async () => {
    const a = await enqueue('a')
    const b = await enqueue('b', 'bulk')
    const result = await t.ok('job_list', {}, sys)
    expect(result.map((j: { id: string }) => j.id)).toEqual([a.id, b.id])
    expect(Object.keys(result[0]).sort()).toEqual(DICT_KEYS)
    expect(result[1]).toEqual({
      id: b.id,
      title: 'Echo b',
      created: b.created.slice(0, 19),
      queue: 'bulk',
    })
    expect(result[0].created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  })

  it('filters by queues (a list, or one name with GET) and leaves out running jobs', async () => {
    await enqueue('a')
    const b = await enqueue('b', 'bulk')
    const c = await enqueue('c', 'low')
    await enqueue('d', 'bulk')
    // a runner takes the oldest bulk job: job_list no longer shows it
    const claimed = await t.deps.jobs.claim(['bulk'], 60_000)
    expect(claimed?.id).toBe(b.id)
    const ids = (r: { id: string }[]) => r.map((j) => j.id)
    const bulkAndLow = await t.ok('job_list', { queues: ['bulk', 'low'] }, sys)
    expect(bulkAndLow).toHaveLength(2)
    expect(ids(bulkAndLow)).toContain(c.id)
    expect(ids(bulkAndLow)).not.toContain(b.id)
    const got = await t.get('/api/3/action/job_list?queues=low', sys)
    expect(got.status).toBe(200)
    expect(ids(got.body.result)).toEqual([c.id])
    expect(await t.ok('job_list', { queues: ['nothing-here'] }, sys)).toEqual([])
  })

  it('refuses a bad queues value with a validation error', async () => {
    const r = await t.call('job_list', { queues: { a: 1 } }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({ __type: 'Validation Error', queues: ['Not a list'] })
    const bad = await t.call('job_list', { queues: ['ok', ''] }, sys)
    expect(bad.body.error.queues).toEqual(['Invalid queue name: ""'])
  })

  it('refuses anonymous callers and plain users', async () => {
    const anon = await t.call('job_list', {})
    expect(anon.status).toBe(403)
    expect(anon.body.error.__type).toBe('Authorization Error')
    const r = await t.call('job_list', {}, user)
    expect(r.status).toBe(403)
    expect(r.body.error.message).toContain('not authorized to job_list')
  })
})

describe('job_show', () => {
  it('shows a job whatever its state', async () => {
    const a = await enqueue('a')
    expect(await t.ok('job_show', { id: a.id }, sys)).toEqual({
      id: a.id,
      title: 'Echo a',
      created: a.created.slice(0, 19),
      queue: 'default',
    })
    const claimed = (await t.deps.jobs.claim(['default'], 60_000))!
    await t.deps.jobs.finish(claimed, 'a')
    expect((await t.ok('job_show', { id: a.id }, sys)).id).toBe(a.id)
  })

  it('answers Not found for an unknown id, and Missing value without one', async () => {
    const r = await t.call('job_show', { id: 'no-such-job' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    const missing = await t.call('job_show', {}, sys)
    expect(missing.status).toBe(409)
    expect(missing.body.error.id).toEqual(['Missing value'])
  })

  it('refuses plain users before looking the job up', async () => {
    const a = await enqueue('a')
    const r = await t.call('job_show', { id: a.id }, user)
    expect(r.status).toBe(403)
    expect((await t.call('job_show', { id: 'no-such-job' }, user)).status).toBe(403)
  })
})

describe('job_clear', () => {
  it('clears the named queues only and returns their names', async () => {
    const a = await enqueue('a')
    await enqueue('b', 'bulk')
    await enqueue('c', 'low')
    expect(await t.ok('job_clear', { queues: ['bulk', 'low'] }, sys)).toEqual(['bulk', 'low'])
    expect((await t.ok('job_list', {}, sys)).map((j: { id: string }) => j.id)).toEqual([a.id])
  })

  it('clears every queue without names, returning those that held jobs, and spares running jobs', async () => {
    await enqueue('a')
    const running = await enqueue('r', 'bulk')
    await enqueue('b', 'bulk')
    await enqueue('c', 'low')
    expect((await t.deps.jobs.claim(['bulk'], 60_000))?.id).toBe(running.id)
    expect(await t.ok('job_clear', {}, sys)).toEqual(['bulk', 'default', 'low'])
    expect(await t.ok('job_list', {}, sys)).toEqual([])
    expect(await t.deps.jobs.show(running.id)).toMatchObject({ status: 'running' })
    expect(await t.ok('job_clear', {}, sys)).toEqual([])
  })

  it('refuses plain users and clears nothing', async () => {
    await enqueue('a')
    const r = await t.call('job_clear', {}, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    const anon = await t.call('job_clear', {})
    expect(anon.body.error.message).toContain('requires an authenticated user')
    expect(await t.ok('job_list', {}, sys)).toHaveLength(1)
  })
})

describe('job_cancel', () => {
  it('deletes a queued job and returns null', async () => {
    const a = await enqueue('a')
    const b = await enqueue('b')
    expect(await t.ok('job_cancel', { id: a.id }, sys)).toBeNull()
    expect((await t.ok('job_list', {}, sys)).map((j: { id: string }) => j.id)).toEqual([b.id])
    expect((await t.call('job_show', { id: a.id }, sys)).status).toBe(404)
    expect((await t.call('job_cancel', { id: a.id }, sys)).status).toBe(404)
  })

  it('answers Not found for an unknown id', async () => {
    const r = await t.call('job_cancel', { id: 'no-such-job' }, sys)
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
  })

  it('refuses a running job, which goes on and is recorded', async () => {
    const a = await enqueue('a')
    const claimed = (await t.deps.jobs.claim(['default'], 60_000))!
    const r = await t.call('job_cancel', { id: a.id }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.id).toEqual([`Job ${a.id} is running and cannot be cancelled`])
    expect(await t.deps.jobs.finish(claimed, 'a')).toBe(true)
    // once it is over, it may be deleted
    expect(await t.ok('job_cancel', { id: a.id }, sys)).toBeNull()
    expect(await t.deps.jobs.show(a.id)).toBeUndefined()
  })

  it('refuses plain users and keeps the job', async () => {
    const a = await enqueue('a')
    const r = await t.call('job_cancel', { id: a.id }, user)
    expect(r.status).toBe(403)
    expect(await t.deps.jobs.show(a.id)).toBeDefined()
  })
})
