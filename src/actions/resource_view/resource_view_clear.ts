// resource_view_clear: deletes all views of the site, or all of some types (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { sysadminsOnly } from '../../auth/caller'
import { clearViews } from '../../model/resource-view'
import { stringList } from '../../validation/fields'

export const resourceViewClear = defineAction({
  name: 'resource_view_clear',
  readOnly: false,
  help: `Delete every resource view, or every view of the given types.

Only sysadmins may clear views.

:param view_types: the view types to delete (optional, default: all)
:type view_types: list of strings`,
  auth: sysadminsOnly(),
  params: z.object({ view_types: stringList }),
  async run(ctx, { view_types }) {
    await clearViews(ctx, view_types ?? [])
    return null // ckan: resource_view_clear returns nothing
  },
})
