// job_list: the jobs waiting in the queues (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { jobToDict } from '../../jobs/job-queue'
import { queueNames } from '../../validation/fields'

export const jobList = defineAction({
  name: 'job_list',
  readOnly: true,
  help: `List enqueued background jobs.

Only jobs still waiting are listed: running, finished and failed ones are not (as RQ's queues
hold only waiting jobs). Only sysadmins may list jobs.

:param queues: queues to list jobs from; if not given, the jobs of every queue are listed
:type queues: list
:returns: the currently enqueued background jobs, oldest first
:rtype: list`,
  auth: 'sysadmin',
  params: z.object({ queues: queueNames }),
  async run(ctx, { queues }) {
    return (await ctx.jobs.list({ queues })).map(jobToDict)
  },
})
