// group_member_delete: takes a user out of a group (organization_member_delete shares it).
import { z } from 'zod'
import { optString, reqString } from '../../validation/fields'
import { NotFound, ValidationError } from '../../errors'
import { findGroup } from '../../model/group'
import { endMembership, loadMemberObject } from '../../model/member'
import { memberAction } from './group_member_create'

const help = (kind: string) => `Remove a user from a ${kind}.

Only the ${kind}'s admins (and sysadmins) may do this.

:param id: the id or name of the ${kind}
:type id: string
:param username: the name or id of the user (user_id is accepted too)
:type username: string`

/** group_member_delete and organization_member_delete share one implementation. */
export function memberDeleteAction(which: { name: string; isOrg: boolean }) {
  return memberAction({
    ...which,
    help,
    params: z.object({ id: reqString, username: optString, user_id: optString }),
    async run(ctx, p) {
      const g = await findGroup(ctx, p.id)
      // ckan: 2.9 crashes on an unknown group here; we answer 404
      if (!g) throw new NotFound('Group was not found.')
      const ref = p.username ?? p.user_id
      if (!ref) throw new ValidationError({ username: ['Missing value'] })
      const user = await loadMemberObject(ctx, 'user', ref)
      await endMembership(ctx, g.id, 'user', user.id)
      return null
    },
  })
}

export const groupMemberDelete = memberDeleteAction({ name: 'group_member_delete', isOrg: false })
