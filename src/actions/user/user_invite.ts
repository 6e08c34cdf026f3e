// user_invite: create a pending account for an e-mail address, give it a role in a group, and mail an invitation.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { activities, changeLog, members, users } from '../../db/schema'
import { NotFound, ValidationError, type ErrorDict } from '../../errors'
import { requireCanManageMembers } from '../../auth/member'
import { CAPACITIES } from '../../auth/permissions'
import { activityRow } from '../../model/activity'
import { changeRow } from '../../model/changes'
import { findGroup, forgetGroups } from '../../model/group'
import { findUser, forgetUsers, isUniqueViolation, userToDict } from '../../model/user'
import { pendingUserRow } from '../../model/user-invite'
import { mailUser } from '../../notify/mailer'
import { invitationMail } from '../../notify/invite'
import { isEmail, isMissing, MISSING } from '../../validation/fields'
import type { DataDict } from '../../data-dict'
import type { ActionContext } from '../../context'

/** ckan default_user_invite_schema, plus the role check organization_member_create would make. */
async function checkInvite(ctx: ActionContext, input: DataDict) {
  const errors: ErrorDict = {}
  const { email, group_id, role } = input
  if (isMissing(email)) errors.email = [MISSING]
  else if (typeof email !== 'string' || !isEmail(email))
    errors.email = [`Email ${String(email)} is not a valid format`]
  else {
    const [holder] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    if (holder) errors.email = [`The email address '${email}' belongs to a registered user.`]
  }
  if (isMissing(group_id)) errors.group_id = [MISSING]
  if (isMissing(role)) errors.role = [MISSING]
  else if (!(CAPACITIES as readonly unknown[]).includes(role))
    errors.role = ['role does not exist.']
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return { email: email as string, groupId: String(group_id), role: role as string }
}

export const userInvite = defineAction({
  name: 'user_invite',
  readOnly: false,
  help: `Invite someone by e-mail: create a pending user account for them, make it a member of
an organization or group, and send them a link where they choose their password.

Only sysadmins and admins of the organization or group may invite. The user name is made
from the e-mail address. Nothing is created when the e-mail cannot be sent.

:param email: the e-mail address of the person invited
:type email: string
:param group_id: the id or name of the organization or group
:type group_id: string
:param role: their role there: "member", "editor" or "admin"
:type role: string
:returns: the new user
:rtype: dictionary`,
  // ckan: the auth of group_member_create, on group_id
  auth: async (ctx, input) => {
    if (isMissing(input.group_id)) throw new ValidationError({ group_id: [MISSING] })
    await requireCanManageMembers(ctx, asText(input.group_id))
  },
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const { email, groupId, role } = await checkInvite(ctx, input)
    const group = await findGroup(ctx, groupId)
    if (!group) throw new NotFound() // ckan: a bare "Not found"
    const user = await pendingUserRow(ctx, email)
    const mail = invitationMail({
      siteTitle: ctx.config.str('service.site_title'),
      siteUrl: ctx.config.str('service.site_url'),
      userId: user.id,
      userName: user.name,
      resetKey: user.reset_key,
      groupTitle: group.title || group.name,
      isOrganization: group.is_organization,
      role,
    })
    // The mail goes first: if it fails, nothing has been written (ckan deletes the user instead).
    try {
      await mailUser(ctx.mailer, user, mail)
    } catch (e) {
      // ckan: the message's source line continuation leaves 17 spaces after the comma
      throw ValidationError.message(
        `Error sending the invite email,${' '.repeat(17)}the user was not created: ${
          e instanceof Error ? e.message : String(e)
        }`,
      )
    }
    // ckan: the new user is the actor of its own "new user" activity, as in user_create
    const activity = activityRow(ctx, 'new user', user.id, {})
    try {
      await ctx.writer.write([
        ctx.db.insert(users).values(user),
        ctx.db.insert(members).values({
          id: ctx.newId(),
          group_id: group.id,
          table_id: user.id,
          table_name: 'user',
          capacity: role,
          state: 'active',
        }),
        ctx.db.insert(changeLog).values([changeRow('user', user.id), changeRow('group', group.id)]),
        ...(activity ? [ctx.db.insert(activities).values({ ...activity, user_id: user.id })] : []),
      ])
    } catch (e) {
      // Another account took the generated name between our check and the insert.
      if (isUniqueViolation(e))
        throw ValidationError.message('The invited user could not be created, please try again')
      throw e
    }
    forgetUsers(ctx)
    forgetGroups(ctx)
    await ctx.changes.catchUp()
    return userToDict(ctx, (await findUser(ctx, user.id))!)
  },
})
