// A copy into this catalogue (npm run admin -- import-ckan | import) as a job of the queue the
// harvester's jobs use, so status_show, job_list/job_show and /ckan-admin/jobs show it running,
// its lease, and its report once done. It runs in the admin CLI that started it (the source's API
// key stays in that process, never in the database), on a queue of its own that the server's
// runners do not poll; a runner told to poll it fails the job with what to do.
import { z } from 'zod'
import type { Deps } from '../context'
import type { ClaimedJob } from './job-queue'
import { defineJobKind } from './job-kinds'

export const TRANSFER_KIND = 'transfer_import'
export const TRANSFER_QUEUE = 'transfer'
/** The claim's lease; renewed as the copy goes on, so a killed CLI's job shows as stopped within it. */
export const TRANSFER_LEASE_MS = 5 * 60_000

export const transferJob = defineJobKind({
  kind: TRANSFER_KIND,
  payload: z.object({ source: z.string().min(1) }).strict(),
  title: (p) => `import ${p.source}`,
  async run(_deps: Deps, p) {
    throw new Error(`The copy from ${p.source} runs in the admin CLI that started it: run the same npm run admin command again to resume it`)
  },
})

/**
 * Enqueues and claims the job of a copy from `source`. A job an earlier copy left running (its CLI
 * was killed: the lease ran out) is failed as resumed by this one.
 */
export async function claimTransferJob(deps: Deps, source: string): Promise<ClaimedJob> {
  const made = await deps.jobs.enqueue({ kind: TRANSFER_KIND, queue: TRANSFER_QUEUE, payload: { source } })
  for (;;) {
    const job = await deps.jobs.claim([TRANSFER_QUEUE], TRANSFER_LEASE_MS)
    if (!job) throw new Error(`the job of this copy (${made.id}) could not be claimed`)
    if (job.id === made.id) return job
    await deps.jobs.fail(job, new Error(`cut short; resumed by job ${made.id}`))
  }
}
