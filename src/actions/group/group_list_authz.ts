// group_list_authz: the groups the caller may manage (add datasets to), as list dicts.
import { z } from 'zod'
import { and, eq, inArray } from 'drizzle-orm'
import { defineAction } from '../action'
import { ckanBool } from '../../validation/fields'
import { groups, members } from '../../db/schema'
import { CAPACITIES } from '../../auth/permissions'
import { groupListItems } from '../../model/group'

export const groupListAuthz = defineAction({
  name: 'group_list_authz',
  readOnly: true,
  help: `Return the groups the caller may manage, that is add datasets to.

Those are the active groups (not organizations) where the caller is a member, editor or
admin; sysadmins get every active group.

:param available_only: only groups the dataset being edited is not in yet; has no effect
    through the API (optional, default: False)
:type available_only: bool
:param am_member: for sysadmins, only the groups they are a member of (optional,
    default: False)
:type am_member: bool
:returns: group dicts with their dataset counts, sorted by display name
:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({ available_only: ckanBool(false), am_member: ckanBool(false) }),
  async run(ctx, { am_member }) {
    if (!ctx.user) return []
    const conds = [eq(groups.is_organization, false), eq(groups.state, 'active')]
    if (!ctx.user.sysadmin || am_member) {
      // ckan: direct memberships only, in any role that may manage the group
      const mine = await ctx.db
        .select({ id: members.group_id })
        .from(members)
        .where(
          and(
            eq(members.table_id, ctx.user.id),
            eq(members.table_name, 'user'),
            eq(members.state, 'active'),
            inArray(members.capacity, [...CAPACITIES]),
          ),
        )
      if (!mine.length) return []
      conds.push(
        inArray(
          groups.id,
          mine.map((m) => m.id),
        ),
      )
    }
    const rows = await ctx.db
      .select()
      .from(groups)
      .where(and(...conds))
    return groupListItems(
      ctx,
      rows.map((group) => ({ group })),
      true,
    )
  },
})
