// job_cancel: deletes a background job that no runner holds (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound, ValidationError } from '../../errors'
import { reqString } from '../../validation/fields'

export const jobCancel = defineAction({
  name: 'job_cancel',
  readOnly: false,
  help: `Cancel a queued background job.

Removes the job from its queue and deletes it. A job that a worker is running cannot be
cancelled: its handler would go on regardless, so the call is refused instead. Only sysadmins
may cancel jobs.

:param id: the id of the background job
:type id: string`,
  auth: 'sysadmin',
  params: z.object({ id: reqString }),
  async run(ctx, { id }) {
    // the delete itself skips running jobs, so a job claimed meanwhile is never deleted
    if (await ctx.jobs.cancel(id)) return null
    const job = await ctx.jobs.show(id)
    if (!job) throw new NotFound()
    throw ValidationError.field('id', `Job ${id} is running and cannot be cancelled`)
  },
})
