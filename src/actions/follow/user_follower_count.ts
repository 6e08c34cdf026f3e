// user_follower_count: how many users follow a user.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget } from '../../auth/follow'
import { followerCount } from '../../model/follower'

export const userFollowerCount = defineAction({
  name: 'user_follower_count',
  readOnly: true,
  help: `Return the number of followers of a user.

Users whose account was deleted are not counted.

:param id: the id or name of the user
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    return followerCount(ctx, await loadVisibleTarget(ctx, 'user', id), 'user')
  },
})
