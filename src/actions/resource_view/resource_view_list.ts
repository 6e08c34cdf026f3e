// resource_view_list: the views of a resource, in their order.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanReadViews } from '../../auth/resource-view'
import { loadViewedResource, viewsOf, viewToDict } from '../../model/resource-view'
import { enabledViewType } from '../../model/view-types'

export const resourceViewList = defineAction({
  name: 'resource_view_list',
  readOnly: true,
  help: `Return the views of a resource, in their order.

Views of a type that is not enabled on this site are left out. You must be allowed to read the
resource's dataset.

:param id: the id of the resource
:type id: string
:rtype: list of dictionaries`,
  auth: async (ctx, input) => requireCanReadViews(ctx, await loadViewedResource(ctx, input)),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const res = await loadViewedResource(ctx, input)
    const views = await viewsOf(ctx, res.id)
    return views
      .filter((v) => enabledViewType(ctx.config, v.view_type))
      .map((v) => viewToDict(v, res.package_id))
  },
})
