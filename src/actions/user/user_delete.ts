// user_delete: mark a user deleted and end its memberships (sysadmins only).
import { z } from 'zod'
import { and, eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { changeLog, members, users } from '../../db/schema'
import { NotFound, ValidationError } from '../../errors'
import { sysadminsOnly } from '../../auth/caller'
import { changeRow } from '../../model/changes'
import { dropUserCollaborations } from '../../model/collaborator'
import { findUser, forgetUsers } from '../../model/user'
import { MISSING } from '../../validation/fields'

export const userDelete = defineAction({
  name: 'user_delete',
  readOnly: false,
  help: `Delete a user account.

The user is marked deleted (its key stops working) and removed from every group and
organization. Only sysadmins may do this.

:param id: the id or name of the user
:type id: string`,
  // ckan: a plain "Access denied" for everyone but sysadmins
  auth: sysadminsOnly(),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    if (id === undefined || id === null) throw new ValidationError({ id: [MISSING] })
    const user = typeof id === 'object' ? undefined : await findUser(ctx, String(id))
    if (!user) throw new NotFound(`User "${String(id)}" was not found.`)
    const memberships = await ctx.db
      .select({ group_id: members.group_id })
      .from(members)
      .where(
        and(
          eq(members.table_id, user.id),
          eq(members.table_name, 'user'),
          eq(members.state, 'active'),
        ),
      )
    const groupIds = [...new Set(memberships.map((m) => m.group_id))]
    await ctx.db.batch([
      ctx.db.update(users).set({ state: 'deleted' }).where(eq(users.id, user.id)),
      ctx.db
        .update(members)
        .set({ state: 'deleted' })
        .where(and(eq(members.table_id, user.id), eq(members.table_name, 'user'))),
      ctx.db.insert(changeLog).values(changeRow('user', user.id, 'delete', 'deleted')),
      ...groupIds.map((g) => ctx.db.insert(changeLog).values(changeRow('group', g))),
      // ckan: the user stops being a collaborator on any dataset
      ...dropUserCollaborations(ctx, user.id),
    ])
    forgetUsers(ctx)
    return null
  },
})
