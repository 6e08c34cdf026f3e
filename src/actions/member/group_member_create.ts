// group_member_create: gives a user a role in a group (organization_member_create shares it).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { reqString } from '../../validation/fields'
import { ValidationError, type ErrorDict } from '../../errors'
import { CAPACITIES } from '../../auth/permissions'
import { requireCanManageMembers, requireNotRevokingOwnAdmin } from '../../auth/member'
import { findGroup, kindOf } from '../../model/group'
import { loadMemberObject, memberDict, setMembership } from '../../model/member'

const help = (kind: string) => `Make a user a member of a ${kind}, or change their role there.

Only the ${kind}'s admins (and sysadmins) may do this. An admin cannot lower their own role.

:param id: the id or name of the ${kind}
:type id: string
:param username: the name or id of the user
:type username: string
:param role: "member", "editor" or "admin"
:type role: string
:returns: the membership
:rtype: dictionary`

/**
 * The group_member_* and organization_member_* actions: writes to a group's users, for its admins
 * (and sysadmins). `help` is given the kind ("group" or "organization").
 */
export function memberAction<P extends z.ZodType, R>(spec: {
  name: string
  isOrg: boolean
  help: (kind: string) => string
  params: P
  run: (ctx: ActionContext, p: z.output<P>) => Promise<R>
}) {
  return defineAction({
    name: spec.name,
    readOnly: false,
    help: spec.help(kindOf(spec.isOrg)),
    auth: async (ctx, input) => {
      await requireCanManageMembers(ctx, input.id)
    },
    params: spec.params,
    run: spec.run,
  })
}

/** group_member_create and organization_member_create share one implementation. */
export function memberCreateAction(which: { name: string; isOrg: boolean }) {
  return memberAction({
    ...which,
    help,
    params: z.object({ id: reqString, username: reqString, role: reqString }),
    async run(ctx, p) {
      const errors: ErrorDict = {}
      const g = await findGroup(ctx, p.id)
      if (!g) errors.id = ['That group name or ID does not exist.']
      const user = await loadMemberObject(ctx, 'user', p.username).catch(() => undefined)
      if (!user) errors.username = ['Not found: User']
      if (!(CAPACITIES as readonly string[]).includes(p.role))
        errors.role = ['role does not exist.']
      if (Object.keys(errors).length) throw new ValidationError(errors)
      await requireNotRevokingOwnAdmin(ctx, g!.id, user!.id, p.role)
      return memberDict(await setMembership(ctx, g!.id, 'user', user!.id, p.role))
    },
  })
}

export const groupMemberCreate = memberCreateAction({ name: 'group_member_create', isOrg: false })
