// Who may read, create, edit, delete, purge and bulk-update datasets (CKAN's package auth functions).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized, NotFound } from '../errors'
import { isMissing } from '../validation/fields'
import type { DataDict } from '../data-dict'
import { groupRefs, groupsByRef } from '../model/package-lookup'
import type { PackageAuthInfo, PackageDict, PackageRow } from '../model/package'
import type { GroupRow } from '../model/package-dict'
import { asText } from '../model/package-validate'
import { findGroupId } from '../model/package-bulk'
import { capacityIn, hasPermission, orgsWithPermission, type Permission } from './permissions'
import { requireLoggedIn } from './caller'
import { canEditAsCollaborator, collaboratorCapacity, collaboratorMayNotMove } from './collaborator'
import type { PackageWritePolicy } from '../model/package-write'
import type { ReviseRules } from '../model/package-revise'

export type { PackageAuthInfo }

/**
 * Active public datasets: everyone. Private, draft or deleted ones: sysadmins, members (any role)
 * of the owning organization, the creator of an unowned dataset, or its collaborators (any
 * capacity, while the feature is on).
 */
export async function canReadPackage(ctx: ActionContext, pkg: PackageAuthInfo): Promise<boolean> {
  if (pkg.state === 'active' && !pkg.private) return true
  if (!ctx.user) return false
  if (ctx.user.sysadmin) return true
  if (pkg.owner_org) {
    if ((await capacityIn(ctx, pkg.owner_org)) !== undefined) return true
  } else if (pkg.creator_user_id === ctx.user.id) return true
  return (await collaboratorCapacity(ctx, pkg.id)) !== undefined
}

export async function requireCanReadPackage(ctx: ActionContext, pkg: PackageAuthInfo) {
  if (!(await canReadPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read package ${pkg.id}`)
}

/**
 * ckan package_update auth: owned datasets need update_dataset in the organization; unowned ones
 * any logged-in user when both unowned options are on (anonymous with anon_create_dataset too),
 * else create_dataset in some organization. Where that refuses, an editor or admin collaborator
 * of the dataset (`pkg.id`) may still update or delete it.
 */
export async function canEditPackage(
  ctx: ActionContext,
  pkg: Pick<PackageAuthInfo, 'owner_org'> & { id?: string },
  perm: Permission = 'update_dataset',
): Promise<boolean> {
  if (ctx.user?.sysadmin) return true
  if (await orgRulesAllowEdit(ctx, pkg, perm)) return true
  // ckan: package_delete's auth is package_update's, so collaborators who edit may delete
  const collaborates = perm === 'update_dataset' || perm === 'delete_dataset'
  return collaborates && !!pkg.id && canEditAsCollaborator(ctx, pkg.id)
}

async function orgRulesAllowEdit(
  ctx: ActionContext,
  pkg: Pick<PackageAuthInfo, 'owner_org'>,
  perm: Permission,
): Promise<boolean> {
  if (pkg.owner_org) return hasPermission(ctx, pkg.owner_org, perm)
  const c = ctx.config
  const unowned =
    c.bool('service.auth.create_unowned_dataset') &&
    c.bool('service.auth.create_dataset_if_not_in_organization')
  if (!ctx.user) return unowned && c.bool('service.auth.anon_create_dataset')
  if (unowned) return true
  return (await orgsWithPermission(ctx, perm)).length > 0
}

export async function requireCanEditPackage(
  ctx: ActionContext,
  pkg: Pick<PackageAuthInfo, 'owner_org' | 'id'>,
  perm: Permission = 'update_dataset',
) {
  if (!(await canEditPackage(ctx, pkg, perm)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit package ${pkg.id}`)
}

/** ckan package_delete auth: logged in, then delete_dataset on the dataset. */
export async function requireCanDeletePackage(ctx: ActionContext, pkg: PackageAuthInfo) {
  requireLoggedIn(ctx, 'package_delete')
  await requireCanEditPackage(ctx, pkg, 'delete_dataset')
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

/**
 * ckan owner_org validator: a dataset may go into an organization where the caller holds
 * create_dataset (a Validation Error, not a refusal, when not).
 */
export const canAddDatasetToOrg = (ctx: ActionContext, orgId: string) =>
  hasPermission(ctx, orgId, 'create_dataset')

/**
 * ckan package_membership_list_save: a dataset's update adds it to, or takes it out of, only the
 * groups the caller may read; memberships in other groups are kept as they are.
 */
export const canChangeDatasetGroup = (ctx: ActionContext, groupId: string) =>
  hasPermission(ctx, groupId, 'read')

/** The rules a dataset write asks while it resolves the organization and the groups. */
export const packageWritePolicy = (ctx: ActionContext): PackageWritePolicy => ({
  mayNotMove: (target) => collaboratorMayNotMove(ctx, target),
  mayAddToOrg: (orgId) => canAddDatasetToOrg(ctx, orgId),
  mayChangeGroup: (groupId) => canChangeDatasetGroup(ctx, groupId),
})

/** Groups being added to a dataset need manage_group there; ones it is already in do not. */
async function requireGroupsManageable(ctx: ActionContext, refs: string[], current: Set<string>) {
  if (!refs.length) return
  const found = await groupsByRef(ctx, refs)
  const rows: GroupRow[] = []
  for (const ref of refs) {
    const g = found.get(ref)
    if (!g) throw new NotFound('Group was not found.')
    rows.push(g)
  }
  for (const g of rows) {
    if (current.has(g.id)) continue
    if (!(await hasPermission(ctx, g.id, 'manage_group')))
      throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit these groups`)
  }
}

/** ckan package_create authorization: creating at all, the listed groups, then the organization. */
export async function authorizePackageCreate(ctx: ActionContext, raw: DataDict) {
  const who = callerName(ctx)
  if (!(await canCreatePackage(ctx, null)))
    throw new NotAuthorized(`User ${who} not authorized to create packages`)
  const refs = groupRefs(raw.groups)
  const org =
    isMissing(raw.owner_org) || typeof raw.owner_org === 'object'
      ? undefined
      : asText(raw.owner_org)
  if (org) await groupsByRef(ctx, [...refs, org]) // one query for both
  await requireGroupsManageable(ctx, refs, new Set())
  if (org) {
    const o = (await groupsByRef(ctx, [org])).get(org)
    if (!o || !(await hasPermission(ctx, o.id, 'create_dataset')))
      throw new NotAuthorized(`User ${who} not authorized to add dataset to this organization`)
  }
}

/** ckan package_update authorization: edit rights, then manage_group on groups being added. */
export async function authorizePackageUpdate(
  ctx: ActionContext,
  raw: DataDict,
  pkg: PackageRow,
  current: PackageDict,
) {
  if (!(await canEditPackage(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit package ${pkg.id}`)
  const ids = new Set((current.groups as { id: string }[]).map((g) => g.id))
  await requireGroupsManageable(ctx, groupRefs(raw.groups), ids)
}

/**
 * package_revise's rules, asked between its reads: package_show's rule on the stored dataset,
 * then package_revise's own (a logged-in caller) and package_update's on the revised dict.
 */
export const reviseRules = (ctx: ActionContext): ReviseRules => ({
  async read(row) {
    if (!ctx.ignoreAuth) await requireCanReadPackage(ctx, row)
  },
  async update(next, row, current) {
    if (ctx.ignoreAuth || ctx.user?.sysadmin) return
    if (!ctx.user) throw new NotAuthorized('Action package_revise requires an authenticated user')
    await authorizePackageUpdate(ctx, next, row, current)
  },
  write: packageWritePolicy(ctx),
})

/** ckan: dataset_purge is for sysadmins; others are refused without detail once it exists. */
export function requireCanPurgePackage(ctx: ActionContext) {
  requireLoggedIn(ctx, 'dataset_purge')
  throw new NotAuthorized()
}

/** ckan: only admins of org_id may bulk update; the refusal carries no detail. */
export async function authorizeBulkUpdate(ctx: ActionContext, input: DataDict) {
  const orgId = await findGroupId(ctx, input.org_id)
  if (!orgId || !(await hasPermission(ctx, orgId, 'admin'))) throw new NotAuthorized()
}
