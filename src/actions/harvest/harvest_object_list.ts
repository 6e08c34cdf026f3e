// harvest_object_list: the ids of a source's harvest objects (the current ones by default).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanReadSource, requireHarvestSysadmin } from '../../auth/harvest'
import { loadSourceRow, objectIds } from '../../model/harvest'
import { ckanBool, optString } from '../../validation/fields'

export const harvestObjectList = defineAction({
  name: 'harvest_object_list',
  readOnly: true,
  help: `List the ids of a source's harvest objects (by default only the current ones: those its
datasets were last written from).

Anyone who may see the source may list them; only sysadmins may list every source's.

:param source_id: the id or name of a harvest source (required unless you are a sysadmin)
:type source_id: string
:param only_current: only current objects (optional, default: True)
:type only_current: bool
:rtype: list of strings`,
  auth: async (ctx, input) => {
    if (typeof input.source_id === 'string' && input.source_id)
      await requireCanReadSource(ctx, await loadSourceRow(ctx, input.source_id, 'source_id'))
    else requireHarvestSysadmin(ctx, 'list the objects of every harvest source')
  },
  params: z.object({ source_id: optString, only_current: ckanBool(true) }),
  async run(ctx, { source_id, only_current }) {
    const sourceId = source_id ? (await loadSourceRow(ctx, source_id, 'source_id')).id : undefined
    return objectIds(ctx, { sourceId, onlyCurrent: only_current })
  },
})
