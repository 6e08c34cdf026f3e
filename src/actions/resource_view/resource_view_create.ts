// resource_view_create: adds a view (image, web page, text, data explorer, table...) to a resource.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanAddViews } from '../../auth/resource-view'
import { checkViewCreate, insertViewStatement, viewToDict } from '../../model/resource-view'

export const resourceViewCreate = defineAction({
  name: 'resource_view_create',
  readOnly: false,
  // ckan: the fields are checked before the caller, anonymous or not
  allowAnonymous: true,
  help: `Create a view of a resource.

You must be allowed to edit the resource's dataset. The keys a view accepts depend on its
type: image_view takes image_url, webpage_view page_url, datatables_view responsive,
show_fields and filterable; the filterable types (recline_view, recline_grid_view,
datatables_view) also take filter_fields and filter_values, lists of the same length (a
single string is a one-item list). Any other key is an error. The new view comes after the
resource's other views.

:param resource_id: the id of the resource
:type resource_id: string
:param title: the title of the view
:type title: string
:param description: a description of the view (optional)
:type description: string
:param view_type: the type of the view, one of the enabled view types
:type view_type: string
:param config: the type's keys as a JSON object, instead of giving them directly (optional)
:type config: JSON string
:param id: the id of the new view (optional; only under service.api_compat 2.11, sysadmins
    only, a UUID)
:type id: string
:returns: the new view, its type's settings at the top level
:rtype: dictionary`,
  async auth(ctx, input) {
    const { res } = await checkViewCreate(ctx, input)
    await requireCanAddViews(ctx, 'resource_view_create', res)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { res, type, fields, id } = await checkViewCreate(ctx, input)
    const row = {
      id: id ?? ctx.newId(),
      resource_id: res.id,
      title: fields.title ?? null,
      description: fields.description ?? null,
      view_type: type.name,
      config: JSON.stringify(fields.config),
    }
    await ctx.writer.write([insertViewStatement(row)])
    return viewToDict({ ...row, order: 0 }, res.package_id) // ckan: the order is not shown
  },
})
