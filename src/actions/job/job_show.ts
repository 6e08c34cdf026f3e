// job_show: one background job by id, whatever its state (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { jobToDict } from '../../jobs/job-queue'
import { reqString } from '../../validation/fields'

export const jobShow = defineAction({
  name: 'job_show',
  readOnly: true,
  help: `Show details for a background job.

Only sysadmins may see jobs.

:param id: the id of the background job
:type id: string
:returns: details about the background job
:rtype: dictionary`,
  auth: 'sysadmin',
  params: z.object({ id: reqString }),
  async run(ctx, { id }) {
    const job = await ctx.jobs.show(id)
    if (!job) throw new NotFound()
    return jobToDict(job)
  },
})
