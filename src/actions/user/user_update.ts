// user_update: change a user account (the user themself or a sysadmin); the name stays.
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { activities, changeLog, users } from '../../db/schema'
import { activityRow } from '../../model/activity'
import { changeRow } from '../../model/changes'
import { applyImage, planImage } from '../../model/image-upload'
import {
  checkUserInput,
  findUser,
  forgetUsers,
  loadUser,
  userToDict,
} from '../../model/user'
import { requireCanEditUser } from '../../auth/user'
import { PROFILE_PARAMS_HELP } from './user_create'

export const userUpdate = defineAction({
  name: 'user_update',
  readOnly: false,
  // ckan: the rule itself answers anonymous callers ("Have to be logged in to edit user")
  allowAnonymous: true,
  help: `Update a user account.

Only the user themself and sysadmins may do this. Keys that are left out keep their
current value, except email, which must always be sent. The login name cannot be
changed (unless the account is still pending).

:param id: the id or name of the user
:type id: string
:param email: the e-mail address
:type email: string
:param password: a new password (optional)
:type password: string
${PROFILE_PARAMS_HELP}
:param sysadmin, state, plugin_extras, password_hash: as for user_create (sysadmins only)
:returns: the updated user
:rtype: dictionary`,
  auth: (ctx, input) => requireCanEditUser(ctx, input),
  // ckan: validation needs the database (unique e-mail) and reports all fields at once
  params: z.looseObject({}),
  async run(ctx, _params, input) {
    const user = await loadUser(ctx, input.id, { notFound: 'User was not found.' })
    const image = planImage(ctx, 'user', input, user.image_url)
    const given = image.imageUrl === undefined ? input : { ...input, image_url: image.imageUrl }
    const { values, pluginExtrasGiven } = await checkUserInput(ctx, given, user)
    const activity = activityRow(ctx, 'changed user', user.id, {})
    await ctx.db.batch([
      ctx.db.update(users).set(values).where(eq(users.id, user.id)),
      ctx.db.insert(changeLog).values(changeRow('user', user.id)),
      // ckan: the account itself is the actor of "changed user"
      ...(activity ? [ctx.db.insert(activities).values({ ...activity, user_id: user.id })] : []),
    ])
    forgetUsers(ctx)
    await applyImage(ctx, image)
    const updated = (await findUser(ctx, user.id))!
    return userToDict(ctx, updated, {
      includePluginExtras: !!ctx.user?.sysadmin && pluginExtrasGiven,
    })
  },
})
