// Who may read, create, edit and delete resources: the rights on their dataset (CKAN's resource auth).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import type { DataDict } from '../data-dict'
import { loadPackage } from '../model/package'
import type { ResourceRow } from '../model/resource'
import { loadResource, requireId } from '../model/resource-write'
import { requireLoggedIn } from './caller'
import { canEditPackage, canReadPackage, requireCanReadPackage } from './package'

/** resource_show's rule: the caller may read the resource's dataset. */
export async function requireCanReadResource(ctx: ActionContext, res: ResourceRow) {
  const pkg = await loadPackage(ctx, res.package_id)
  if (!(await canReadPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read resource ${res.id}`)
}

/** ckan resource_create auth: the dataset is read first (404, read rights), then edit rights. */
export async function authorizeResourceCreate(ctx: ActionContext, input: DataDict) {
  const ref = requireId(input, 'package_id')
  const pkg = await loadPackage(ctx, ref)
  // ckan: reading the dataset comes first, as resource_create shows it before authorizing
  await requireCanReadPackage(ctx, pkg)
  requireLoggedIn(ctx, 'resource_create')
  if (!(await canEditPackage(ctx, pkg)))
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to create resources on dataset ${ref}`,
    )
}

/**
 * resource_update/_patch/_delete auth: the resource and its dataset are looked up (404s first),
 * then anonymous callers are refused, then the caller needs edit rights on the dataset.
 */
export async function authorizeResourceWrite(
  ctx: ActionContext,
  action: string,
  input: DataDict,
  verb: 'edit' | 'delete',
  notFound?: string,
) {
  const res = await loadResource(ctx, requireId(input), notFound)
  const pkg = await loadPackage(ctx, res.package_id)
  requireLoggedIn(ctx, action)
  if (!(await canEditPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${verb} resource ${res.id}`)
}
