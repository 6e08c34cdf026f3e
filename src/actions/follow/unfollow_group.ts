// unfollow_group: the caller stops following a group.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { stopFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to unfollow something.'

export const unfollowGroup = defineAction({
  name: 'unfollow_group',
  readOnly: false,
  allowAnonymous: true,
  help: `Stop following a group.

You must be logged in (send your API key). Organizations are unfollowed with this
action too.

:param id: the id or name of the group to stop following
:type id: string`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    await stopFollowing(ctx, user, await loadVisibleTarget(ctx, 'group', id), id)
    return null
  },
})
