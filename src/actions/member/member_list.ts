// member_list: the active members (datasets, users, groups) of a group or organization.
import { z } from 'zod'
import { and, asc, eq, ne, or, sql } from 'drizzle-orm'
import { defineAction } from '../action'
import { idOrName, optString } from '../../validation/fields'
import { members, packages } from '../../db/schema'
import { loadGroup } from '../../model/group'
import { requireCanReadGroup } from '../../auth/group'

// ckan: user roles are shown with their display names
const ROLE_TEXT: Record<string, string> = { admin: 'Admin', editor: 'Editor', member: 'Member' }

export const memberList = defineAction({
  name: 'member_list',
  readOnly: true,
  help: `Return the members of a group or organization.

Each member is a list of three items: its id, its type ("package", "user" or "group") and
its capacity (a group member is a parent group). User roles are given as "Admin", "Editor" or "Member"; datasets in a group
have the capacity "public", datasets owned by an organization "organization".

:param id: the id or name of the group or organization
:type id: string
:param object_type: only members of this type (optional)
:type object_type: string
:param capacity: only members with this (lowercase) capacity (optional)
:type capacity: string
:rtype: list of lists`,
  auth: async (ctx, input) => requireCanReadGroup(ctx, await loadGroup(ctx, input.id)),
  params: z.object({ id: idOrName, object_type: optString, capacity: optString }),
  async run(ctx, { id, object_type, capacity }) {
    const g = await loadGroup(ctx, id)
    // ckan: the group members of a group are its parents; our rows keep a parent in group_id
    // (see member_create), so those rows are found by table_id and answered by group_id.
    const conds = [
      or(
        and(eq(members.group_id, g.id), ne(members.table_name, 'group')),
        and(eq(members.table_id, g.id), eq(members.table_name, 'group')),
      )!,
      eq(members.state, 'active'),
    ]
    if (object_type) conds.push(eq(members.table_name, object_type))
    if (capacity) conds.push(eq(members.capacity, capacity))
    // An organization's datasets are the live ones it owns, whatever rows exist for them.
    if (g.is_organization) conds.push(ne(members.capacity, 'organization'))
    const rows = await ctx.db
      .select({
        id: sql<string>`CASE WHEN ${members.table_name} = 'group' THEN ${members.group_id} ELSE ${members.table_id} END`,
        type: members.table_name,
        capacity: members.capacity,
      })
      .from(members)
      .where(and(...conds))
      .orderBy(sql`rowid`)
    const out = rows.map((m) => [m.id, m.type, ROLE_TEXT[m.capacity] ?? m.capacity])
    if (
      g.is_organization &&
      (!object_type || object_type === 'package') &&
      (!capacity || capacity === 'organization')
    ) {
      const owned = await ctx.db
        .select({ id: packages.id })
        .from(packages)
        .where(and(eq(packages.owner_org, g.id), ne(packages.state, 'deleted')))
        .orderBy(asc(packages.metadata_created), asc(packages.id))
      for (const p of owned) out.push([p.id, 'package', 'organization'])
    }
    return out
  },
})
