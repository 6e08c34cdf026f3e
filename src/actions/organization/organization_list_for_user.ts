// organization_list_for_user: the organizations where a user holds a permission (roles cascade down).
import { z } from 'zod'
import { and, eq, inArray } from 'drizzle-orm'
import { defineAction } from '../action'
import { ckanBool, optString } from '../../validation/fields'
import { NotFound } from '../../errors'
import { groups } from '../../db/schema'
import { roleHas, userCapacities, type Permission } from '../../auth/permissions'
import { groupListItems } from '../../model/group'
import { findUser } from '../../model/user'

export const organizationListForUser = defineAction({
  name: 'organization_list_for_user',
  readOnly: true,
  help: `Return the organizations where a user has a given permission.

Roles that cascade (service.auth.roles_that_cascade_to_sub_groups, by default admin) also
count in the organizations below. Sysadmins get every active organization, as admin.

:param id: the id or name of the user (optional, default: the caller)
:type id: string
:param permission: the permission to look for, e.g. "read", "create_dataset",
    "manage_group" or "admin" (optional, default: "manage_group", which every role has)
:type permission: string
:param include_dataset_count: add package_count to each organization (optional,
    default: False)
:type include_dataset_count: bool
:returns: organization dicts with the user's capacity, sorted by display name
:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({
    id: optString,
    permission: optString,
    include_dataset_count: ckanBool(false),
  }),
  async run(ctx, p) {
    let user = ctx.user
    if (p.id) {
      user = (await findUser(ctx, p.id)) ?? null
      if (!user) throw new NotFound()
    }
    if (!user) return []
    const active = and(eq(groups.is_organization, true), eq(groups.state, 'active'))
    if (user.sysadmin) {
      const rows = await ctx.db.select().from(groups).where(active)
      return groupListItems(
        ctx,
        rows.map((group) => ({ group, capacity: 'admin' })),
        p.include_dataset_count,
      )
    }
    // ckan: only a missing permission means manage_group; any other value (null, "") is looked up
    // as given, and one no role holds finds nothing
    const perm = (p.permission === undefined ? 'manage_group' : String(p.permission)) as Permission
    // ckan: admins hold every permission, even ones the other roles do not know
    const caps = [...(await userCapacities(ctx, user.id))].filter(
      ([, c]) => c === 'admin' || roleHas(c, perm),
    )
    if (!caps.length) return []
    const capacity = new Map(caps)
    const rows = await ctx.db
      .select()
      .from(groups)
      .where(and(active, inArray(groups.id, [...capacity.keys()])))
    return groupListItems(
      ctx,
      rows.map((group) => ({ group, capacity: capacity.get(group.id)! })),
      p.include_dataset_count,
    )
  },
})
