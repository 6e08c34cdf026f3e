// user_followee_count: how many users a user follows.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadFollowTarget } from '../../model/follow-target'
import { followeeCount } from '../../model/follower'

export const userFolloweeCount = defineAction({
  name: 'user_followee_count',
  readOnly: true,
  help: `Return the number of users that the given user follows.

Deleted ones are not counted.

:param id: the id or name of the user
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    return followeeCount(ctx, row, 'user')
  },
})
