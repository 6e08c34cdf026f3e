// Who may add, change and remove members of groups and organizations (CKAN's member auth functions).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized, ValidationError } from '../errors'
import { MISSING } from '../validation/fields'
import { findGroup, type GroupRow } from '../model/group'
import { findMembership } from '../model/member'
import { hasPermission } from './permissions'

/**
 * ckan member_create/member_delete auth: any member of a group may add or remove its datasets;
 * everything else needs the admin role.
 */
export async function requireCanEditMembers(ctx: ActionContext, g: GroupRow, objectType: unknown) {
  const perm = !g.is_organization && objectType === 'package' ? 'manage_group' : 'admin'
  if (!(await hasPermission(ctx, g.id, perm)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to edit group ${g.id}`)
}

/**
 * ckan group_member_create/_delete (and the organization ones) auth: the admin role; without an
 * id the rule cannot even start (2.9 crashes; we answer Missing value).
 */
export async function requireCanManageMembers(
  ctx: ActionContext,
  id: unknown,
): Promise<GroupRow | undefined> {
  if (typeof id !== 'string' || !id) throw new ValidationError({ id: [MISSING] })
  const g = await findGroup(ctx, id)
  if (!g || !(await hasPermission(ctx, g.id, 'admin')))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to add members`)
  return g
}

/** ckan: an admin cannot lower their own capacity in a group (checked once the call is valid). */
export async function requireNotRevokingOwnAdmin(
  ctx: ActionContext,
  groupId: string,
  userId: string,
  capacity: string,
) {
  if (userId !== ctx.user?.id || capacity === 'admin') return
  const current = await findMembership(ctx, groupId, 'user', userId)
  if (current?.capacity === 'admin')
    throw new NotAuthorized('Administrators cannot revoke their own admin status')
}
