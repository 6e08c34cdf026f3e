// resource_view_show: one view of a resource.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanReadViews } from '../../auth/resource-view'
import { loadView, viewToDict } from '../../model/resource-view'

export const resourceViewShow = defineAction({
  name: 'resource_view_show',
  readOnly: true,
  help: `Return a view of a resource.

You must be allowed to read the resource's dataset.

:param id: the id of the view
:type id: string
:returns: the view, its type's settings at the top level
:rtype: dictionary`,
  auth: async (ctx, input) => requireCanReadViews(ctx, (await loadView(ctx, input)).res),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { view, res } = await loadView(ctx, input)
    return viewToDict(view, res.package_id)
  },
})
