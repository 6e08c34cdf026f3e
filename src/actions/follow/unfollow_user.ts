// unfollow_user: the caller stops following a user.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { stopFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to unfollow something.'

export const unfollowUser = defineAction({
  name: 'unfollow_user',
  readOnly: false,
  allowAnonymous: true,
  help: `Stop following a user.

You must be logged in (send your API key).

:param id: the id or name of the user to stop following
:type id: string`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    await stopFollowing(ctx, user, await loadVisibleTarget(ctx, 'user', id), id)
    return null
  },
})
