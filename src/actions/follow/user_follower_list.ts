// user_follower_list: the users following a user (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { sysadminsOnly } from '../../auth/caller'
import { loadVisibleTarget } from '../../auth/follow'
import { followerUsers, publicUserDicts } from '../../model/follower'

export const userFollowerList = defineAction({
  name: 'user_follower_list',
  readOnly: true,
  help: `Return the users that follow a user, sorted by name.

Only sysadmins may list followers. The user dicts carry no e-mail address or API key.

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
  // ckan: CKAN's "sysadmin" pseudo rule refuses everyone else, anonymous included
  auth: sysadminsOnly('Not authorized'),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const target = await loadVisibleTarget(ctx, 'user', id)
    return publicUserDicts(ctx, await followerUsers(ctx, target, 'user'))
  },
})
