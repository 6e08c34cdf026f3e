// xloader_status: the state of the latest load of a resource, in ckanext-xloader's shape.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeLoader } from '../../auth/datastore'
import { loadStatusDict, requiredId } from '../../jobs/loader/report'

export const xloaderStatus = defineAction({
  name: 'xloader_status',
  readOnly: false,
  help: `Show the status of the latest load of a resource into the DataStore.

:param resource_id: the resource
:type resource_id: string
:returns: status (pending, running, complete or error), job_id, last_updated, task_info (the job:
  status, timestamps, rows_loaded, logs) and error (a dict with the message, or null)
:rtype: dictionary`,
  auth: authorizeLoader,
  params: z.looseObject({ resource_id: z.string().min(1).optional(), id: z.string().min(1).optional() }),
  async run(ctx, p) {
    return loadStatusDict(ctx, requiredId(p))
  },
})
