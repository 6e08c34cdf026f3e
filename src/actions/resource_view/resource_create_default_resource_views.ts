// resource_create_default_resource_views: adds the site's default views a resource lacks.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import type { DataDict } from '../../data-dict'
import { NotFound, ValidationError } from '../../errors'
import { requireCanAddViews } from '../../auth/resource-view'
import { requireLoggedIn } from '../../auth/caller'
import { packageDict } from '../../model/package'
import { createDefaultViews, findActiveResource } from '../../model/resource-view'
import { ckanBool, MISSING } from '../../validation/fields'

const NAME = 'resource_create_default_resource_views'

/** The id of the `resource` dict: a Validation Error when there is none. */
function resourceId(input: DataDict): string {
  const r = input.resource
  const id = r && typeof r === 'object' && !Array.isArray(r) ? (r as DataDict).id : undefined
  if (typeof id !== 'string' || id === '') throw new ValidationError({ resource: [MISSING] })
  return id
}

async function loadTarget(ctx: ActionContext, input: DataDict) {
  const res = await findActiveResource(ctx, resourceId(input))
  if (!res) throw new NotFound()
  return res
}

/**
 * The help of create_datastore_views and of the answer, which package_create_default_resource_views
 * shares.
 */
export const DATASTORE_VIEWS_HELP = `:param create_datastore_views: create the views that need the DataStore instead
    (optional, default: False)
:type create_datastore_views: bool
:returns: the views created (possibly none)
:rtype: list of dictionaries`

/** The parameters checked before run, here and in package_create_default_resource_views. */
export const defaultViewsParams = z.looseObject({ create_datastore_views: ckanBool(false) })

export const resourceCreateDefaultResourceViews = defineAction({
  name: 'resource_create_default_resource_views',
  readOnly: false,
  // ckan: a missing resource is reported before an anonymous caller is refused
  allowAnonymous: true,
  help: `Create the default views of a resource, where they apply.

The default view types are those of service.views.default_views (ckan.views.default_views)
that are enabled. Each is created if it can show the resource (image_view for image formats,
recline_view for tabular formats or DataStore data, ...) and the resource has no view of that
type yet. Only types that do not need the DataStore are considered, or with
create_datastore_views only those that do. The resource is read as stored; the given dicts
only name it. You must be allowed to edit the resource's dataset.

:param resource: the resource, a dict with its id
:type resource: dictionary
:param package: the resource's dataset (optional, ignored: it is read from the resource)
:type package: dictionary
${DATASTORE_VIEWS_HELP}`,
  async auth(ctx, input) {
    resourceId(input)
    requireLoggedIn(ctx, NAME)
    await requireCanAddViews(ctx, NAME, await loadTarget(ctx, input))
  },
  params: defaultViewsParams,
  async run(ctx, params, input) {
    const res = await loadTarget(ctx, input)
    const shown = (await packageDict(ctx, res.package_id)).resources.find((r) => r.id === res.id)
    if (!shown) throw new NotFound()
    return createDefaultViews(ctx, res.package_id, [shown], params.create_datastore_views)
  },
})
