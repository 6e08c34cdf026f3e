// user_generate_apikey: replace a user's API key with a new random one.
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { apiAtLeast } from '../../config/api-compat'
import { activities, changeLog, users } from '../../db/schema'
import { activityRow } from '../../model/activity'
import { changeRow } from '../../model/changes'
import { requireCanEditUser } from '../../auth/user'
import { findUser, forgetUsers, loadUser, userToDict } from '../../model/user'

export const userGenerateApikey = defineAction({
  name: 'user_generate_apikey',
  readOnly: false,
  help: `Give a user a new API key; the old key stops working at once.

Only the user themself and sysadmins may do this.

:param id: the id or name of the user
:type id: string
:returns: the updated user, including the new key
:rtype: dictionary`,
  // ckan 2.10 removed legacy API keys and this action with them
  offered: (config) => !apiAtLeast(config, '2.10'),
  // ckan: the refusal says "update user" here, not "edit user"
  auth: (ctx, input) => requireCanEditUser(ctx, { id: input.id }, 'update'),
  params: z.looseObject({}),
  async run(ctx, _params, input) {
    const user = await loadUser(ctx, input.id, { notFound: 'User was not found.' })
    // ckan: the key is cycled through user_update, which records "changed user"
    const activity = activityRow(ctx, 'changed user', user.id, {})
    await ctx.db.batch([
      ctx.db.update(users).set({ apikey: ctx.newId() }).where(eq(users.id, user.id)),
      ctx.db.insert(changeLog).values(changeRow('user', user.id)),
      ...(activity ? [ctx.db.insert(activities).values({ ...activity, user_id: user.id })] : []),
    ])
    forgetUsers(ctx)
    return userToDict(ctx, (await findUser(ctx, user.id))!, { includePrivate: true })
  },
})
