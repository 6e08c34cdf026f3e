// Object-level authorization checks used by action auth rules (CKAN's auth functions).
import { and, eq, inArray } from 'drizzle-orm'
import { groups } from '../db/schema'
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import { capacityIn, groupsWithPermission, hasPermission, type Permission } from './permissions'

export interface PackageAuthInfo {
  id: string
  owner_org: string | null
  private: boolean
  state: string
  creator_user_id: string | null
}

export function requireSysadmin(ctx: ActionContext, what: string) {
  if (!ctx.user?.sysadmin) throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${what}`)
}

export function requireLoggedIn(ctx: ActionContext, action: string) {
  if (!ctx.user) throw new NotAuthorized(`Action ${action} requires an authenticated user`)
}

/**
 * Active public datasets: everyone. Private, draft or deleted ones: sysadmins, members (any role)
 * of the owning organization, or the creator of an unowned dataset.
 */
export async function canReadPackage(ctx: ActionContext, pkg: PackageAuthInfo): Promise<boolean> {
  if (pkg.state === 'active' && !pkg.private) return true
  if (!ctx.user) return false
  if (ctx.user.sysadmin) return true
  if (pkg.owner_org) return (await capacityIn(ctx, pkg.owner_org)) !== undefined
  return pkg.creator_user_id === ctx.user.id
}

export async function requireCanReadPackage(ctx: ActionContext, pkg: PackageAuthInfo) {
  if (!(await canReadPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read package ${pkg.id}`)
}

/** Organizations (not groups) where the caller holds `perm`. */
export async function orgsWithPermission(ctx: ActionContext, perm: Permission): Promise<string[]> {
  const ids = await groupsWithPermission(ctx, perm)
  if (!ids.length) return []
  const rows = await ctx.db
    .select({ id: groups.id })
    .from(groups)
    .where(and(inArray(groups.id, ids), eq(groups.is_organization, true), eq(groups.state, 'active')))
  return rows.map((r) => r.id)
}

/**
 * ckan package_update auth: owned datasets need update_dataset in the organization; unowned ones
 * any logged-in user when both unowned options are on (anonymous with anon_create_dataset too),
 * else create_dataset in some organization.
 */
export async function canEditPackage(
  ctx: ActionContext,
  pkg: Pick<PackageAuthInfo, 'owner_org'>,
  perm: Permission = 'update_dataset',
): Promise<boolean> {
  if (ctx.user?.sysadmin) return true
  if (pkg.owner_org) return hasPermission(ctx, pkg.owner_org, perm)
  const c = ctx.config
  const unowned =
    c.bool('service.auth.create_unowned_dataset') &&
    c.bool('service.auth.create_dataset_if_not_in_organization')
  if (!ctx.user) return unowned && c.bool('service.auth.anon_create_dataset')
  if (unowned) return true
  return (await orgsWithPermission(ctx, perm)).length > 0
}

export async function requireCanEditPackage(ctx: ActionContext, pkg: PackageAuthInfo, perm: Permission = 'update_dataset') {
  if (!(await canEditPackage(ctx, pkg, perm)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit package ${pkg.id}`)
}

/**
 * ckan package_create auth: with an organization, create_dataset there; without, the unowned
 * options (or create_dataset in some organization).
 */
export async function canCreatePackage(ctx: ActionContext, ownerOrg: string | null): Promise<boolean> {
  if (ctx.user?.sysadmin) return true
  if (ownerOrg) return hasPermission(ctx, ownerOrg, 'create_dataset')
  return canEditPackage(ctx, { owner_org: null }, 'create_dataset')
}
