// resource_show: one resource, as its dataset lists it.
import { z } from 'zod'
import { defineAction } from '../action'
import { ckanBool, reqString } from '../../validation/fields'
import {
  loadResource,
  requireId,
  shownResource,
} from '../../model/resource-write'
import { requireCanReadResource } from '../../auth/resource'
import { withTrackingSummaries } from '../../model/usage'

export const resourceShow = defineAction({
  name: 'resource_show',
  readOnly: true,
  help: `Return the metadata of a resource.

You must be allowed to read the resource's dataset.

:param id: the id of the resource
:type id: string
:param include_tracking: add tracking information to the resource (optional, default: False)
:type include_tracking: bool
:rtype: dictionary`,
  auth: async (ctx, input) =>
    requireCanReadResource(ctx, await loadResource(ctx, requireId(input))),
  params: z.object({ id: reqString, include_tracking: ckanBool(false) }),
  async run(ctx, params) {
    const { shown } = await shownResource(ctx, await loadResource(ctx, params.id))
    if (!params.include_tracking) return shown
    const { tracking_summary } = await withTrackingSummaries(ctx, String(shown.package_id), { id: shown.id })
    return { ...shown, tracking_summary }
  },
})
