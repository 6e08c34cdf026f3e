// harvest_job_show: one run, with its counts and its most frequent errors.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { requireCanSeeJobs } from '../../auth/harvest'
import { jobDict, loadJob, loadSourceRow } from '../../model/harvest'
import { reqString } from '../../validation/fields'

export async function authorizeJobRead(ctx: ActionContext, input: Record<string, unknown>) {
  const job = await loadJob(ctx, input.id)
  await requireCanSeeJobs(ctx, await loadSourceRow(ctx, job.source_id))
}

export const harvestJobShow = defineAction({
  name: 'harvest_job_show',
  readOnly: true,
  help: `Show a harvest job: its status and times, the counts of added, updated, not modified,
deleted and errored datasets (stats), and its most frequent errors.

You need package_update's rights on the job's source.

:param id: the id of the harvest job
:type id: string
:rtype: dictionary`,
  auth: authorizeJobRead,
  params: z.object({ id: reqString }),
  async run(ctx, { id }) {
    return jobDict(ctx, await loadJob(ctx, id))
  },
})
