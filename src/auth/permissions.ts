// Organization/group capacities → permissions, with admin roles cascading down the hierarchy.
import { and, eq, inArray } from 'drizzle-orm'
import { groups } from '../db/schema'
import { roleHas, userCapacities, type Permission } from '../model/capacity'
import type { ActionContext } from '../context'

export { CAPACITIES, roleHas, userCapacities, type Permission } from '../model/capacity'

/** The caller's capacity in one group or organization (undefined: none). */
export async function capacityIn(ctx: ActionContext, groupId: string): Promise<string | undefined> {
  if (!ctx.user) return undefined
  return (await userCapacities(ctx, ctx.user.id)).get(groupId)
}

/** Whether the caller holds `perm` in the group/organization (sysadmins hold everything). */
export async function hasPermission(ctx: ActionContext, groupId: string, perm: Permission) {
  if (!ctx.user) return false
  if (ctx.user.sysadmin) return true
  return roleHas(await capacityIn(ctx, groupId), perm)
}

/** Ids of the organizations/groups where the caller holds `perm`. */
export async function groupsWithPermission(ctx: ActionContext, perm: Permission): Promise<string[]> {
  if (!ctx.user) return []
  const caps = await userCapacities(ctx, ctx.user.id)
  return [...caps.entries()].filter(([, c]) => roleHas(c, perm)).map(([g]) => g)
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
