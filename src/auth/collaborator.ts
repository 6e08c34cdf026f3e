// What a dataset collaborator may do (CKAN's authz collaborator rules), behind the options.
import { callerName, type ActionContext, type UserRow } from '../context'
import type { DataDict } from '../data-dict'
import { NotAuthorized, ValidationError } from '../errors'
import { collaborationIds, collaboratorsEnabled, userCollaborations } from '../model/collaborator'

export { collaborationIds, collaboratorsEnabled }
import { loadPackage, type PackageRow } from '../model/package'
import { requireKeys } from './api-token'
import { requireLoggedIn } from './caller'
import { hasPermission } from './permissions'

export interface CollaboratedPackage {
  id: string
  owner_org: string | null
  creator_user_id: string | null
}

const adminsAllowed = (ctx: ActionContext) =>
  ctx.config.bool('service.auth.allow_admin_collaborators')

/** ckan get_collaborator_capacities: the capacities a collaborator may be given. */
export const collaboratorCapacities = (ctx: ActionContext): string[] =>
  adminsAllowed(ctx) ? ['admin', 'editor', 'member'] : ['editor', 'member']

/** ckan: the feature is off → a Validation Error with a bare message. */
export function requireCollaboratorsEnabled(ctx: ActionContext) {
  if (!collaboratorsEnabled(ctx)) throw ValidationError.message('Dataset collaborators not enabled')
}

/**
 * A `capacity` parameter: required ones must be an allowed capacity ("Role must be one of …");
 * optional filters may be empty ("Capacity must be one of …").
 */
export function checkCollaboratorCapacity(ctx: ActionContext, value: unknown, label: 'Role' | 'Capacity') {
  const allowed = collaboratorCapacities(ctx)
  if (label === 'Capacity' && (value === undefined || value === null || value === '')) return
  if (typeof value !== 'string' || !allowed.includes(value))
    throw ValidationError.message(`${label} must be one of "${allowed.join(', ')}"`)
}

/**
 * The user's capacity on the dataset as a collaborator, as the options let it count: none while
 * the feature is off (stored rows then grant nothing), and an admin row counts as an editor
 * unless admin collaborators are allowed.
 */
export async function collaboratorCapacity(
  ctx: ActionContext,
  packageId: string,
  user: Pick<UserRow, 'id'> | null = ctx.user,
): Promise<string | undefined> {
  if (!user || !collaboratorsEnabled(ctx)) return undefined
  const cap = (await userCollaborations(ctx, user.id)).get(packageId)
  return cap === 'admin' && !adminsAllowed(ctx) ? 'editor' : cap
}

/** ckan package_update auth: editor and admin collaborators may edit (and so delete) the dataset. */
export async function canEditAsCollaborator(ctx: ActionContext, packageId: string) {
  const cap = await collaboratorCapacity(ctx, packageId)
  return cap === 'editor' || cap === 'admin'
}

/**
 * ckan can_manage_collaborators: sysadmins; admins of the owning organization; the creator of an
 * unowned dataset where users may create those; admin collaborators when they are allowed.
 */
export async function canManageCollaborators(ctx: ActionContext, pkg: CollaboratedPackage) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return true
  if (!ctx.user) return false
  const c = ctx.config
  if (
    !pkg.owner_org &&
    c.bool('service.auth.create_dataset_if_not_in_organization') &&
    c.bool('service.auth.create_unowned_dataset') &&
    pkg.creator_user_id === ctx.user.id
  )
    return true
  if (pkg.owner_org && (await hasPermission(ctx, pkg.owner_org, 'admin'))) return true
  return (await collaboratorCapacity(ctx, pkg.id)) === 'admin'
}

/** Refuses with CKAN's message for the action: "User <u> not authorized to <what>". */
export async function requireCanManageCollaborators(
  ctx: ActionContext,
  pkg: CollaboratedPackage,
  what: string,
) {
  if (!(await canManageCollaborators(ctx, pkg)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${what}`)
}

/**
 * ckan owner_org_validator: while collaborators may not change the organization, an editor or
 * admin collaborator who is not also an editor of the dataset's organization may not move it.
 */
export async function collaboratorMayNotMove(ctx: ActionContext, pkg: CollaboratedPackage) {
  if (!ctx.user || ctx.user.sysadmin || ctx.ignoreAuth) return false
  if (!collaboratorsEnabled(ctx)) return false
  if (ctx.config.bool('service.auth.allow_collaborators_to_change_owner_org')) return false
  if (!(await canEditAsCollaborator(ctx, pkg.id))) return false
  return !(pkg.owner_org && (await hasPermission(ctx, pkg.owner_org, 'update_dataset')))
}

// ---- the rules of the package_collaborator_* actions, in CKAN's order -------------------------

/** The dataset of a collaborator action (ckan: its own "not found" wording per action). */
export const loadCollaboratedPackage = (ctx: ActionContext, input: DataDict, notFound: string) =>
  loadPackage(ctx, input.id, { notFound })

/** package_collaborator_create: keys, capacity, then the caller may manage the dataset's. */
export async function authorizeCollaboratorCreate(ctx: ActionContext, input: DataDict) {
  requireKeys(input, ['id', 'user_id', 'capacity'])
  checkCollaboratorCapacity(ctx, input.capacity, 'Role')
  requireLoggedIn(ctx, 'package_collaborator_create')
  const pkg = await loadCollaboratedPackage(ctx, input, 'Dataset not found')
  await requireCanManageCollaborators(ctx, pkg, 'add collaborators to this dataset')
}

/** package_collaborator_delete: keys, then the caller may manage the dataset's collaborators. */
export async function authorizeCollaboratorDelete(ctx: ActionContext, input: DataDict) {
  requireKeys(input, ['id', 'user_id'])
  requireLoggedIn(ctx, 'package_collaborator_delete')
  const pkg = await loadCollaboratedPackage(ctx, input, 'Package not found')
  await requireCanManageCollaborators(ctx, pkg, 'remove collaborators from this dataset')
}

/** package_collaborator_list: the dataset is looked up first, then the caller checked. */
export async function authorizeCollaboratorList(ctx: ActionContext, input: DataDict) {
  requireKeys(input, ['id'])
  const pkg: PackageRow = await loadCollaboratedPackage(ctx, input, 'Package not found')
  requireLoggedIn(ctx, 'package_collaborator_list')
  await requireCanManageCollaborators(ctx, pkg, 'list collaborators from this dataset')
}

/**
 * package_collaborator_list_for_user: the feature is checked first; then a user may list only
 * their own collaborations, and the refusal carries no detail.
 */
export function authorizeCollaborationList(ctx: ActionContext, input: DataDict) {
  requireKeys(input, ['id'])
  requireCollaboratorsEnabled(ctx)
  requireLoggedIn(ctx, 'package_collaborator_list_for_user')
  if (input.id !== ctx.user!.id && input.id !== ctx.user!.name) throw new NotAuthorized()
}

/**
 * package_collaborator_list_for_user, once the user is looked up: an unknown one (only sysadmins,
 * who skip the rule above, get this far with one) is refused, not "not found" (ckan).
 */
export function requireKnownCollaborationUser(user: UserRow | undefined): UserRow {
  if (!user) throw new NotAuthorized('Not allowed to retrieve collaborators')
  return user
}
