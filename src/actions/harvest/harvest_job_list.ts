// harvest_job_list: a source's jobs (every source's, for sysadmins), newest first.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanListJobs, requireHarvestSysadmin } from '../../auth/harvest'
import { jobDict, listJobs, loadSourceRow } from '../../model/harvest'
import { optString } from '../../validation/fields'

export const harvestJobList = defineAction({
  name: 'harvest_job_list',
  readOnly: true,
  help: `List harvest jobs, newest first, with their counts (stats).

You need package_update's rights on the source; only sysadmins may list every source's jobs.

:param source_id: the id or name of a harvest source (required unless you are a sysadmin)
:type source_id: string
:param status: only jobs in this status: New, Running, Finished or Aborted (optional)
:type status: string
:rtype: list of dictionaries`,
  auth: async (ctx, input) => {
    if (typeof input.source_id === 'string' && input.source_id)
      await requireCanListJobs(ctx, await loadSourceRow(ctx, input.source_id, 'source_id'))
    else requireHarvestSysadmin(ctx, 'list the jobs of every harvest source')
  },
  params: z.object({ source_id: optString, status: optString }),
  async run(ctx, { source_id, status }) {
    const sourceId = source_id ? (await loadSourceRow(ctx, source_id, 'source_id')).id : undefined
    const jobs = await listJobs(ctx, { sourceId, status: status ?? undefined })
    return Promise.all(jobs.map((j) => jobDict(ctx, j, { errorSummary: false })))
  },
})
