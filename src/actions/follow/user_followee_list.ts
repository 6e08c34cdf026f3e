// user_followee_list: the users a user follows (for that user and sysadmins).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanSeeFolloweesOf } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { followedUsers, publicUserDicts } from '../../model/follower'

export const userFolloweeList = defineAction({
  name: 'user_followee_list',
  readOnly: true,
  help: `Return the users that the given user follows, sorted by name.

Only the user themself and sysadmins may see this. Deleted users are left out; the user dicts
carry no e-mail address or API key.

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
  auth: (ctx, input) => requireCanSeeFolloweesOf(ctx, input.id),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    return publicUserDicts(ctx, await followedUsers(ctx, row))
  },
})
