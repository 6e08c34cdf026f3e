// harvest_job_report: a run's gather errors, and its object errors by object with the remote id.
import { z } from 'zod'
import { defineAction } from '../action'
import { jobReport, loadJob, sourceFromDict } from '../../model/harvest'
import { packageDict } from '../../model/package'
import { reqString } from '../../validation/fields'
import { harvesterNamed } from '../../jobs/harvest/registry'
import { authorizeJobRead } from './harvest_job_show'

export const harvestJobReport = defineAction({
  name: 'harvest_job_report',
  readOnly: true,
  help: `The report of a harvest job: its gather errors, and for every object that failed, the
remote identifier (guid), a link to the remote record where the harvester knows one, and each
error with its stage.

You need package_update's rights on the job's source.

:param id: the id of the harvest job
:type id: string
:rtype: dictionary`,
  auth: authorizeJobRead,
  params: z.object({ id: reqString }),
  async run(ctx, { id }) {
    const job = await loadJob(ctx, id)
    const source = sourceFromDict(await packageDict(ctx, job.source_id))
    const harvester = harvesterNamed(source.type)
    return jobReport(ctx, job, harvester?.originalUrl ? (guid) => harvester.originalUrl!(source, guid) : undefined)
  },
})
