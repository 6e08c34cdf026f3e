// harvest_source_update: a source's settings and dataset fields replaced; also the factory
// harvest_source_patch is built with.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { requireCanEditSource } from '../../auth/harvest'
import { packageWritePolicy } from '../../auth/package'
import { updatePackage } from '../../model/package-write'
import { packageDict } from '../../model/package'
import { loadSourceRow, sourceShowDict, sourceStatus } from '../../model/harvest'
import { sourceDatasetInput } from '../../jobs/harvest/source-input'
import { isMissing } from '../../validation/fields'

const PARAMS = `:param id: the id or name of the harvest source
:type id: string
:param url: the URL of the remote catalogue
:type url: string
:param source_type: the harvester to use (see harvesters_info_show)
:type source_type: string
:param frequency: MANUAL, ALWAYS, HOURLY, DAILY, WEEKLY, BIWEEKLY or MONTHLY
:type frequency: string
:param config: the harvester's options as a JSON object
:type config: string

The other parameters are those of package_update (name, title, notes, owner_org, private...).
:returns: the harvest source
:rtype: dictionary`

const target = (ctx: ActionContext, input: Record<string, unknown>) =>
  loadSourceRow(ctx, isMissing(input.id) ? input.name : input.id)

export function sourceWrite({ name, intro, merge }: { name: string; intro: string; merge: boolean }) {
  return defineAction({
    name,
    readOnly: false,
    help: `${intro}\n\nYou need package_update's rights on the source.\n\n${PARAMS}`,
    auth: async (ctx, input) => requireCanEditSource(ctx, await target(ctx, input)),
    params: z.record(z.string(), z.unknown()),
    async run(ctx, _params, input) {
      const row = await target(ctx, input)
      const current = await packageDict(ctx, row.id)
      let raw: Record<string, unknown> = { ...input }
      if (merge) {
        const shown = sourceShowDict(current)
        delete shown.status
        raw = { ...shown, ...input }
      }
      const { dict, errors } = await sourceDatasetInput(ctx, raw, row.id)
      if (Object.keys(errors).length) throw new ValidationError(errors)
      const updated = await updatePackage(ctx, { ...dict, id: row.id }, row, current, packageWritePolicy(ctx))
      return { ...sourceShowDict(updated), status: await sourceStatus(ctx, row.id) }
    },
  })
}

export const harvestSourceUpdate = sourceWrite({
  name: 'harvest_source_update',
  intro: 'Update a harvest source, replacing its fields (those not given are cleared, as package_update does).',
  merge: false,
})
