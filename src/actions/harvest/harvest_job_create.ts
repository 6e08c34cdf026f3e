// harvest_job_create: a new run of a source, queued at once (unless run is false).
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { requireCanRunSource } from '../../auth/harvest'
import { findJob, insertJobStatement, jobDict, loadSourceRow, logStatement, openJob } from '../../model/harvest'
import { isOpenJobClash, newJobStatements } from '../../jobs/harvest/schedule'
import { ckanBool, reqString } from '../../validation/fields'

export const harvestJobCreate = defineAction({
  name: 'harvest_job_create',
  readOnly: false,
  help: `Create a harvest job for a source and queue it (its gather stage, then its import).

A source has at most one job waiting or running. You need package_update's rights on the source.

:param source_id: the id or name of the harvest source
:type source_id: string
:param run: queue the job at once (optional, default: True); a job created with run False waits
    until \`npm run admin -- harvest run\` starts it
:type run: bool
:returns: the new job
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanRunSource(ctx, await loadSourceRow(ctx, input.source_id, 'source_id')),
  params: z.object({ source_id: reqString, run: ckanBool(true) }),
  async run(ctx, { source_id, run }) {
    const row = await loadSourceRow(ctx, source_id, 'source_id')
    if (row.state !== 'active') throw ValidationError.message('Can not create jobs on inactive sources')
    if (await openJob(ctx, row.id)) throw ValidationError.message('There already is an unrun job for this source')
    let id: string
    const now = ctx.now()
    const log = (jobId: string) => logStatement(now, 'INFO', `Harvest job ${jobId} created for ${row.name}`)
    try {
      if (run) {
        const job = newJobStatements(ctx, row.id)
        id = job.id
        await ctx.writer.write([...job.statements, log(id)])
      } else {
        id = ctx.newId()
        const insert = insertJobStatement({ id, source_id: row.id, created: now, queue_job_id: '' })
        await ctx.writer.write([{ ...insert, args: insert.args.map((a) => (a === '' ? null : a)) }, log(id)])
      }
    } catch (e) {
      if (isOpenJobClash(e)) throw ValidationError.message('There already is an unrun job for this source')
      throw e
    }
    return jobDict(ctx, (await findJob(ctx, id))!)
  },
})
