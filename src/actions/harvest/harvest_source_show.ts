// harvest_source_show: one source (by id, name or URL) with its settings and status.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { NotFound } from '../../errors'
import { requireCanReadSource } from '../../auth/harvest'
import { loadSourceRow, sourceFromDict, sourceIds, sourceShow, sourceStatus } from '../../model/harvest'
import { packageDicts } from '../../model/package'
import { isMissing } from '../../validation/fields'
import { normalizeUrl } from '../../jobs/harvest/source-input'

/** ckanext-harvest: `id`, else the source whose URL is `url`. */
export async function sourceTarget(ctx: ActionContext, input: Record<string, unknown>) {
  if (isMissing(input.id) && typeof input.url === 'string' && input.url) {
    const norm = normalizeUrl(input.url)
    const dicts = await packageDicts(ctx, await sourceIds(ctx), { cache: false })
    const found = [...dicts.values()].find((d) => normalizeUrl(sourceFromDict(d).url) === norm)
    if (!found) throw new NotFound('Harvest source not found')
    return loadSourceRow(ctx, found.id)
  }
  return loadSourceRow(ctx, input.id)
}

export const harvestSourceShow = defineAction({
  name: 'harvest_source_show',
  readOnly: true,
  help: `Show a harvest source: its dataset fields, url, source_type, frequency and config, and its
status (job count, last job, datasets it keeps).

:param id: the id or name of the harvest source
:type id: string
:param url: the URL of the source, instead of id (optional)
:type url: string
:returns: the harvest source
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanReadSource(ctx, await sourceTarget(ctx, input)),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    return sourceShow(ctx, await sourceTarget(ctx, input))
  },
})
