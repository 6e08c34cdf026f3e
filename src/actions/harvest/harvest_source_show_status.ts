// harvest_source_show_status: how a source's runs went (job count, last job, datasets kept).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanReadSource } from '../../auth/harvest'
import { loadSourceRow, sourceStatus } from '../../model/harvest'

export const harvestSourceShowStatus = defineAction({
  name: 'harvest_source_show_status',
  readOnly: true,
  help: `A status report of a harvest source: how many jobs it had, its last job (with counts of
added, updated, unchanged, deleted and errored datasets) and how many datasets it keeps.

:param id: the id or name of the harvest source
:type id: string
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanReadSource(ctx, await loadSourceRow(ctx, input.id)),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    return sourceStatus(ctx, (await loadSourceRow(ctx, input.id)).id)
  },
})
