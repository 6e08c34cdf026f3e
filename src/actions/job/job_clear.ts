// job_clear: empties job queues; jobs already running are left alone (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { queueNames } from '../../validation/fields'

export const jobClear = defineAction({
  name: 'job_clear',
  readOnly: false,
  help: `Clear background job queues.

Deletes the jobs waiting in the queues; jobs that are already being processed are not affected.
Only sysadmins may clear queues.

:param queues: the queues to clear; if not given, every queue is cleared
:type queues: list
:returns: the names of the cleared queues
:rtype: list`,
  auth: 'sysadmin',
  params: z.object({ queues: queueNames }),
  async run(ctx, { queues }) {
    return ctx.jobs.clear(queues)
  },
})
