// resource_view_delete: removes a view of a resource.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanDeleteViews } from '../../auth/resource-view'
import { deleteView, loadView } from '../../model/resource-view'

export const resourceViewDelete = defineAction({
  name: 'resource_view_delete',
  readOnly: false,
  // ckan: an unknown view is a 404 even for anonymous callers
  allowAnonymous: true,
  help: `Delete a view of a resource.

You must be allowed to delete the resource, that is to edit its dataset.

:param id: the id of the view
:type id: string`,
  auth: async (ctx, input) => requireCanDeleteViews(ctx, (await loadView(ctx, input)).res),
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    await deleteView(ctx, (await loadView(ctx, input)).view)
    return null // ckan: resource_view_delete returns nothing
  },
})
