// package_create_default_resource_views: adds the site's default views to every resource of a dataset.
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import type { DataDict } from '../../data-dict'
import { ValidationError } from '../../errors'
import { requireLoggedIn } from '../../auth/caller'
import { requireCanEditPackage } from '../../auth/package'
import { loadPackage, packageDict } from '../../model/package'
import { createDefaultViews } from '../../model/resource-view'
import { MISSING } from '../../validation/fields'
import {
  DATASTORE_VIEWS_HELP,
  defaultViewsParams,
} from './resource_create_default_resource_views'

const NAME = 'package_create_default_resource_views'

/** The dataset named by the `package` dict (its id, else its name). */
function loadTarget(ctx: ActionContext, input: DataDict) {
  const p = input.package
  const dict = p && typeof p === 'object' && !Array.isArray(p) ? (p as DataDict) : undefined
  if (!dict) throw new ValidationError({ package: [MISSING] })
  return loadPackage(ctx, dict.id ?? dict.name)
}

export const packageCreateDefaultResourceViews = defineAction({
  name: 'package_create_default_resource_views',
  readOnly: false,
  // ckan: a missing package is reported before an anonymous caller is refused
  allowAnonymous: true,
  help: `Create the default views of every resource of a dataset, where they apply.

As resource_create_default_resource_views, for each resource of the dataset in turn. Only types
that do not need the DataStore are considered (the case of package_create and package_update),
or with create_datastore_views only those that do (the case after data is loaded). You must be
allowed to edit the dataset.

:param package: the dataset, a dict with its id (or name)
:type package: dictionary
${DATASTORE_VIEWS_HELP}`,
  async auth(ctx, input) {
    if (input.package === undefined || input.package === null)
      throw new ValidationError({ package: [MISSING] })
    requireLoggedIn(ctx, NAME)
    await requireCanEditPackage(ctx, await loadTarget(ctx, input))
  },
  params: defaultViewsParams,
  async run(ctx, params, input) {
    const pkg = await loadTarget(ctx, input)
    const dict = await packageDict(ctx, pkg.id)
    return createDefaultViews(ctx, pkg.id, dict.resources, params.create_datastore_views)
  },
})
