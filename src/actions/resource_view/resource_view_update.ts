// resource_view_update: changes a view's title, description and settings.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanEditViews } from '../../auth/resource-view'
import { checkViewUpdate, saveViewUpdate, viewToDict } from '../../model/resource-view'

export const resourceViewUpdate = defineAction({
  name: 'resource_view_update',
  readOnly: false,
  // ckan: the fields are checked before the caller, anonymous or not
  allowAnonymous: true,
  help: `Update a view of a resource.

The title and description are kept when not given; the type's settings become exactly the
ones given (with their defaults). The view type cannot change: view_type and package_id are
ignored. You must be allowed to edit the resource's dataset.

:param id: the id of the view
:type id: string

The other parameters are those of resource_view_create.

:returns: the updated view
:rtype: dictionary`,
  async auth(ctx, input) {
    const { res } = await checkViewUpdate(ctx, input)
    await requireCanEditViews(ctx, 'resource_view_update', res)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { view, res, fields } = await checkViewUpdate(ctx, input)
    return viewToDict(await saveViewUpdate(ctx, view, fields), res.package_id)
  },
})
