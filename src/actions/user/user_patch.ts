// user_patch: update only the given keys of a user account (merged over its current values).
import { defineAction } from '../action'
import { invoke } from '../invoke'
import { loadUser, userToDict } from '../../model/user'
import { userUpdate } from './user_update'

export const userPatch = defineAction({
  name: 'user_patch',
  readOnly: false,
  help: `Update some keys of a user account, leaving the others as they are.

Same rules as user_update, but email need not be sent again.

:param id: the id or name of the user
:type id: string
:returns: the updated user
:rtype: dictionary`,
  auth: userUpdate.auth,
  params: userUpdate.params,
  async run(ctx, _params, input) {
    const user = await loadUser(ctx, input.id, { notFound: 'User was not found.' })
    // The caller is the user or a sysadmin, so the current dict carries the e-mail address.
    const { display_name: _shown, ...current } = await userToDict(ctx, user, {
      includePrivate: true,
    })
    return invoke(ctx, userUpdate, { ...current, ...input, id: user.id }, { skipAuth: true })
  },
})
