// harvest_job_abort: stops a source's latest job (or the job given) if it is waiting or running.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { NotFound, ValidationError } from '../../errors'
import { requireCanEditSource } from '../../auth/harvest'
import { abortStatements, findJob, jobDict, listJobs, loadJob, loadSourceRow } from '../../model/harvest'
import { findPackage } from '../../model/package'
import { isMissing } from '../../validation/fields'

/** ckanext-harvest: source_id (its latest job), else id as a source, else id as a job. */
async function target(ctx: ActionContext, input: Record<string, unknown>) {
  const ref = isMissing(input.source_id) ? input.id : input.source_id
  if (isMissing(ref) || typeof ref === 'object') throw new ValidationError({ id: ['Missing value'] })
  const pkg = await findPackage(ctx, String(ref))
  if (pkg && pkg.type === 'harvest') {
    const [latest] = await listJobs(ctx, { sourceId: pkg.id, limit: 1 })
    if (!latest) throw new NotFound('Error: source has no jobs')
    return latest
  }
  if (!isMissing(input.source_id)) throw new NotFound('Harvest source not found')
  return loadJob(ctx, ref)
}

export const harvestJobAbort = defineAction({
  name: 'harvest_job_abort',
  readOnly: false,
  help: `Abort a harvest job that is waiting or running: it is marked Aborted, its unfinished
objects ERROR, and its import stops before the next page of objects. A finished job is left as
it is.

You need package_update's rights on the source.

:param source_id: the id or name of a harvest source: its latest job is aborted
:type source_id: string
:param id: the id of the job (or of the source), instead of source_id
:type id: string
:returns: the job
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const job = await target(ctx, input)
    await requireCanEditSource(ctx, await loadSourceRow(ctx, job.source_id))
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const job = await target(ctx, input)
    if (job.status === 'New' || job.status === 'Running') {
      await ctx.writer.write(abortStatements(job.id, ctx.now()))
      if (job.queue_job_id) await ctx.jobs.cancel(job.queue_job_id)
    }
    return jobDict(ctx, (await findJob(ctx, job.id))!)
  },
})
