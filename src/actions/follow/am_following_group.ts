// am_following_group: whether the caller follows a group.
import { z } from 'zod'
import { defineAction } from '../action'
import { NotAuthorized } from '../../errors'
import { loadVisibleTarget } from '../../auth/follow'
import { isFollowing } from '../../model/follower'

export const amFollowingGroup = defineAction({
  name: 'am_following_group',
  readOnly: true,
  help: `Return true if you follow the given group, false if not.

You must be logged in (send your API key). Organizations are asked about with this
action too.

:param id: the id or name of the group
:type id: string
:rtype: bool`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const target = await loadVisibleTarget(ctx, 'group', id)
    // ckan: the id is checked first; only then is an anonymous caller refused
    if (!ctx.user) throw new NotAuthorized()
    return isFollowing(ctx, ctx.user.id, target, 'group')
  },
})
