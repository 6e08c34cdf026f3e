// harvest_source_job_history_clear: a source's jobs, objects and errors deleted; its datasets stay.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { requireCanEditSource } from '../../auth/harvest'
import { clearHistoryStatements, loadSourceRow, logStatement, openJob } from '../../model/harvest'
import { ckanBool, idOrName } from '../../validation/fields'

export const harvestSourceJobHistoryClear = defineAction({
  name: 'harvest_source_job_history_clear',
  readOnly: false,
  help: `Clear a harvest source's job history: its jobs, harvest objects and errors are deleted;
the datasets it harvested stay.

You need package_update's rights on the source.

:param id: the id or name of the harvest source
:type id: string
:param keep_current: keep the objects local datasets were last written from, and their jobs
    (optional, default: False)
:type keep_current: bool
:returns: the source's id
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanEditSource(ctx, await loadSourceRow(ctx, input.id)),
  params: z.object({ id: idOrName, keep_current: ckanBool(false) }),
  async run(ctx, { id, keep_current }) {
    const row = await loadSourceRow(ctx, id)
    if (await openJob(ctx, row.id))
      throw ValidationError.message('The source has a job waiting or running: abort it first (harvest_job_abort)')
    await ctx.writer.write([
      ...clearHistoryStatements(row.id, keep_current),
      logStatement(ctx.now(), 'INFO', `Harvest source ${row.id}: job history cleared`),
    ])
    return { id: row.id }
  },
})
