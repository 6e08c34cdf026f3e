// follow_user: the caller starts following a user.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { startFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to follow users'

export const followUser = defineAction({
  name: 'follow_user',
  readOnly: false,
  allowAnonymous: true,
  help: `Start following a user.

You must be logged in (send your API key).

:param id: the id or name of the user to follow, e.g. 'joeuser'
:type id: string
:returns: the follower relationship: follower_id, object_id and datetime
:rtype: dictionary`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    return startFollowing(ctx, user, await loadVisibleTarget(ctx, 'user', id))
  },
})
