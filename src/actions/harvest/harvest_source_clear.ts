// harvest_source_clear: purges every dataset a source harvested and its whole job history; the
// source itself stays. Also the shared work of harvest_source_delete's clear_source.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { requireCanEditSource } from '../../auth/harvest'
import {
  abortStatements,
  clearHistoryStatements,
  harvestedPackageIds,
  loadSourceRow,
  logStatement,
  openJob,
} from '../../model/harvest'
import { findPackage } from '../../model/package'
import { idOrName } from '../../validation/fields'
import { invoke } from '../invoke'
import { datasetPurge } from '../package/dataset_purge'

export async function clearSource(ctx: ActionContext, sourceId: string) {
  const open = await openJob(ctx, sourceId)
  if (open) {
    await ctx.writer.write(abortStatements(open.id, ctx.now()))
    if (open.queue_job_id) await ctx.jobs.cancel(open.queue_job_id)
  }
  const sys: ActionContext = { ...ctx, ignoreAuth: true }
  for (const id of await harvestedPackageIds(ctx, sourceId)) {
    const row = await findPackage(ctx, id)
    if (row && row.id === id && row.id !== sourceId) await invoke({ ...sys, memo: new Map() }, datasetPurge, { id })
  }
  await ctx.writer.write([
    ...clearHistoryStatements(sourceId, false),
    logStatement(ctx.now(), 'INFO', `Harvest source ${sourceId} cleared`),
  ])
}

export const harvestSourceClear = defineAction({
  name: 'harvest_source_clear',
  readOnly: false,
  help: `Clear a harvest source: purge all the datasets it harvested and its jobs, objects and
errors. The source stays; its next run harvests everything again.

You need package_update's rights on the source.

:param id: the id or name of the harvest source
:type id: string
:returns: the source's id
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanEditSource(ctx, await loadSourceRow(ctx, input.id)),
  params: z.object({ id: idOrName }),
  async run(ctx, { id }) {
    const row = await loadSourceRow(ctx, id)
    await clearSource(ctx, row.id)
    return { id: row.id }
  },
})
