// package_show: one dataset with its resources, tags, extras, groups and organization.
import { z } from 'zod'
import { defineAction } from '../action'
import { ckanBool, reqString } from '../../validation/fields'
import { loadPackage, packageDict } from '../../model/package'
import { requireCanReadPackage } from '../../auth/package'
import { withTrackingSummaries } from '../../model/usage'


export const packageShow = defineAction({
  name: 'package_show',
  readOnly: true,
  help: `Return the metadata of a dataset (package) and its resources.

:param id: the id or name of the dataset
:type id: string
:param use_default_schema: use the default package schema instead of a plugin schema
    (optional, default: False)
:type use_default_schema: bool
:param include_tracking: add tracking information to the dataset and its resources: total and
    recent (the last service.tracking.recent_days) uses, and the same by kind (page_views,
    api_reads, downloads) (optional, default: False)
:type include_tracking: bool
:rtype: dictionary`,
  // ckan: package_show with no id reports name_or_id
  auth: async (ctx, input) =>
    requireCanReadPackage(ctx, await loadPackage(ctx, input.id ?? input.name_or_id, { field: 'name_or_id' })),
  params: z.object({
    id: reqString.optional(),
    name_or_id: reqString.optional(),
    use_default_schema: ckanBool(false),
    include_tracking: ckanBool(false),
  }),
  async run(ctx, params) {
    const row = await loadPackage(ctx, params.id ?? params.name_or_id, { field: 'name_or_id' })
    const dict = await packageDict(ctx, row.id)
    // the usage figures as last flushed (service.tracking_enabled; zeros where nothing is counted)
    return params.include_tracking ? withTrackingSummaries(ctx, row.id, dict) : dict
  },
})
