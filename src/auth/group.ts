// Who may create, read, edit and delete groups and organizations (CKAN's group auth functions).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import { kindOf, type GroupRow } from '../model/group'
import { roleHas, userCapacities } from './permissions'

/** ckan group_create / organization_create auth: the site's user_create_<kind>s option. */
export function requireCanCreateGroup(ctx: ActionContext, isOrg: boolean) {
  const kind = kindOf(isOrg)
  if (!ctx.config.bool(`service.auth.user_create_${kind}s`))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to create ${kind}s`)
}

/** Active groups: everyone. Others: sysadmins and members. */
export async function requireCanReadGroup(ctx: ActionContext, g: GroupRow) {
  if (g.state === 'active' || ctx.user?.sysadmin) return
  if (ctx.user && (await userCapacities(ctx, ctx.user.id)).has(g.id)) return
  throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read group ${g.id}`)
}

/** ckan: editing a group or organization (and its members) needs its admin role. */
export async function isGroupAdmin(ctx: ActionContext, g: GroupRow): Promise<boolean> {
  if (ctx.user?.sysadmin) return true
  if (!ctx.user) return false
  return roleHas((await userCapacities(ctx, ctx.user.id)).get(g.id), 'admin')
}

export async function requireCanEditGroup(ctx: ActionContext, g: GroupRow) {
  if (!(await isGroupAdmin(ctx, g)))
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to edit ${kindOf(g.is_organization)} ${g.id}`,
    )
}

/** ckan: deleting needs user_delete_groups / user_delete_organizations and the admin role. */
export async function requireCanDeleteGroup(ctx: ActionContext, g: GroupRow) {
  const kind = kindOf(g.is_organization)
  const option = g.is_organization
    ? 'service.auth.user_delete_organizations'
    : 'service.auth.user_delete_groups'
  if (!ctx.user?.sysadmin && !ctx.config.bool(option))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to delete ${kind}s`)
  if (!(await isGroupAdmin(ctx, g)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to delete ${kind} ${g.id}`)
}
