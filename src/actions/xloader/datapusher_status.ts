// datapusher_status: DataPusher's status shape over the loader's task status.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeLoader } from '../../auth/datastore'
import { loadStatusDict, requiredId } from '../../jobs/loader/report'

export const datapusherStatus = defineAction({
  name: 'datapusher_status',
  readOnly: false,
  help: `Show the status of the latest load of a resource (DataPusher's shape).

:param resource_id: the resource
:type resource_id: string
:returns: status, job_id, job_url, job_key, last_updated, task_info and error
:rtype: dictionary`,
  auth: authorizeLoader,
  params: z.looseObject({ resource_id: z.string().min(1).optional(), id: z.string().min(1).optional() }),
  async run(ctx, p) {
    const s = await loadStatusDict(ctx, requiredId(p))
    // ckan: DataPusher also names the job's key (null: jobs here need none)
    return { ...s, job_key: null }
  },
})
