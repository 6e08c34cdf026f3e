// Who may see and change resource views: the rights on their resource's dataset (CKAN's view auth).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import { loadPackage } from '../model/package'
import type { ResourceRow } from '../model/resource'
import { requireLoggedIn } from './caller'
import { canEditPackage } from './package'
import { requireCanReadResource } from './resource'

/** resource_view_show / _list: resource_show's rule (read rights on the dataset). */
export const requireCanReadViews = (ctx: ActionContext, res: ResourceRow) =>
  requireCanReadResource(ctx, res)

/**
 * ckan resource_create's rule, used by resource_view_create and
 * resource_create_default_resource_views: logged in, with edit rights on the dataset.
 */
export async function requireCanAddViews(ctx: ActionContext, action: string, res: ResourceRow) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  requireLoggedIn(ctx, action)
  if (!(await canEditPackage(ctx, await loadPackage(ctx, res.package_id))))
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to create resources on dataset ${res.package_id}`,
    )
}

/** ckan resource_update's rule (resource_view_update, _reorder): edit rights on the dataset. */
export async function requireCanEditViews(ctx: ActionContext, action: string, res: ResourceRow) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  requireLoggedIn(ctx, action)
  if (!(await canEditPackage(ctx, await loadPackage(ctx, res.package_id))))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit resource ${res.id}`)
}

/** ckan resource_delete's rule (resource_view_delete): delete rights on the dataset. */
export async function requireCanDeleteViews(ctx: ActionContext, res: ResourceRow) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  requireLoggedIn(ctx, 'resource_view_delete')
  const pkg = await loadPackage(ctx, res.package_id)
  if (!(await canEditPackage(ctx, pkg, 'delete_dataset')))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to delete resource ${res.id}`)
}
