// An import's job (src/jobs/transfer.ts): a job that an earlier, killed CLI left running is failed
// as resumed by the next; a server runner told to poll the transfer queue fails it with what to do.
import { describe, expect, it } from 'vitest'
import { claimTransferJob, TRANSFER_KIND, TRANSFER_QUEUE } from '../../src/jobs/transfer'
import { runOnce, runOptionsFrom } from '../../src/jobs/runner'
import { jobKinds } from '../../src/jobs/kinds'
import { setup } from '../helpers/setup'

describe('the transfer job', () => {
  it('fails the job of a copy that was cut short when the copy is run again', async () => {
    const t = await setup()
    await t.deps.jobs.enqueue({ kind: TRANSFER_KIND, queue: TRANSFER_QUEUE, payload: { source: 'https://old.example.org' } })
    // its CLI claimed it and died: the lease ran out
    const first = await t.deps.jobs.claim([TRANSFER_QUEUE], 1)
    await new Promise((r) => setTimeout(r, 20))
    const job = await claimTransferJob(t.deps, 'https://old.example.org')
    expect(job.id).not.toBe(first!.id)
    expect(job.title).toBe('import https://old.example.org')
    const old = await t.deps.jobs.show(first!.id)
    expect(old).toMatchObject({ status: 'failed' })
    expect(old!.error).toContain(`cut short; resumed by job ${job.id}`)
    // the server's runners do not poll its queue
    expect(runOptionsFrom(t.deps.config).queues).not.toContain(TRANSFER_QUEUE)
  })

  it('is failed with what to do by a runner told to poll its queue', async () => {
    const t = await setup()
    const job = await t.deps.jobs.enqueue({ kind: TRANSFER_KIND, queue: TRANSFER_QUEUE, payload: { source: 'https://a.example.org' } })
    const outcome = await runOnce(t.deps.jobs, jobKinds, t.deps, { queues: [TRANSFER_QUEUE] })
    expect(outcome.status).toBe('failed')
    expect((await t.deps.jobs.show(job.id))!.error).toMatch(/runs in the admin CLI that started it: run the same npm run admin command again/)
  })
})
