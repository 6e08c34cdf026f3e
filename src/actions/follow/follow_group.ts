// follow_group: the caller starts following a group.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { startFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to follow a group.'

export const followGroup = defineAction({
  name: 'follow_group',
  readOnly: false,
  allowAnonymous: true,
  help: `Start following a group.

You must be logged in (send your API key). Organizations are followed
with this action too.

:param id: the id or name of the group to follow, e.g. 'roger'
:type id: string
:returns: the follower relationship: follower_id, object_id and datetime
:rtype: dictionary`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    return startFollowing(ctx, user, await loadVisibleTarget(ctx, 'group', id))
  },
})
