// harvest_source_delete: the source dataset deleted, its waiting or running job aborted; with
// clear_source, its harvested datasets and history go too.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanDeleteSource } from '../../auth/harvest'
import { abortStatements, loadSourceRow, openJob } from '../../model/harvest'
import { deletePackage } from '../../model/package-delete'
import { ckanBool, idOrName } from '../../validation/fields'
import { clearSource } from './harvest_source_clear'

export const harvestSourceDelete = defineAction({
  name: 'harvest_source_delete',
  readOnly: false,
  help: `Delete a harvest source (its dataset is marked deleted and it runs no more).

You need package_delete's rights on the source.

:param id: the id or name of the harvest source
:type id: string
:param clear_source: also purge the datasets it harvested and its job history (optional,
    default: False)
:type clear_source: bool`,
  auth: async (ctx, input) => requireCanDeleteSource(ctx, await loadSourceRow(ctx, input.id)),
  params: z.object({ id: idOrName, clear_source: ckanBool(false) }),
  async run(ctx, { id, clear_source }) {
    const row = await loadSourceRow(ctx, id)
    const open = await openJob(ctx, row.id)
    if (open) {
      await ctx.writer.write(abortStatements(open.id, ctx.now()))
      if (open.queue_job_id) await ctx.jobs.cancel(open.queue_job_id)
    }
    if (clear_source) await clearSource(ctx, row.id)
    await deletePackage(ctx, row)
    return null
  },
})
