// harvest_object_show: one harvested record, by id or as the one a dataset was last written from.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { NotFound, ValidationError } from '../../errors'
import { requireCanReadSource } from '../../auth/harvest'
import { requireCanReadPackage } from '../../auth/package'
import { currentObjectOfPackage, findObject, loadSourceRow, objectDict } from '../../model/harvest'
import { findPackage } from '../../model/package'
import { isMissing } from '../../validation/fields'

async function target(ctx: ActionContext, input: Record<string, unknown>) {
  if (!isMissing(input.id)) {
    const obj = await findObject(ctx, String(input.id))
    if (!obj) throw new NotFound('Harvest object not found')
    return obj
  }
  if (!isMissing(input.dataset_id)) {
    const pkg = await findPackage(ctx, String(input.dataset_id))
    if (!pkg) throw new NotFound('Dataset not found')
    await requireCanReadPackage(ctx, pkg)
    const obj = await currentObjectOfPackage(ctx, pkg.id)
    if (!obj) throw new NotFound('Harvest object not found')
    return obj
  }
  throw ValidationError.message('Please provide either an "id" or a "dataset_id" parameter')
}

export const harvestObjectShow = defineAction({
  name: 'harvest_object_show',
  readOnly: true,
  help: `Show a harvest object: the remote record one run gathered (content), its guid, state,
report status, errors, and the dataset it was written to.

Anyone who may see the object's source may see it.

:param id: the id of the harvest object
:type id: string
:param dataset_id: the id or name of a harvested dataset, instead of id: the object it was last
    written from
:type dataset_id: string
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const obj = await target(ctx, input)
    await requireCanReadSource(ctx, await loadSourceRow(ctx, obj.harvest_source_id))
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    return objectDict(ctx, await target(ctx, input))
  },
})
