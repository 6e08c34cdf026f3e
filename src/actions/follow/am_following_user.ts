// am_following_user: whether the caller follows a user.
import { z } from 'zod'
import { defineAction } from '../action'
import { NotAuthorized } from '../../errors'
import { loadVisibleTarget } from '../../auth/follow'
import { isFollowing } from '../../model/follower'

export const amFollowingUser = defineAction({
  name: 'am_following_user',
  readOnly: true,
  help: `Return true if you follow the given user, false if not.

You must be logged in (send your API key).

:param id: the id or name of the user
:type id: string
:rtype: bool`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const target = await loadVisibleTarget(ctx, 'user', id)
    // ckan: the id is checked first; only then is an anonymous caller refused
    if (!ctx.user) throw new NotAuthorized()
    return isFollowing(ctx, ctx.user.id, target, 'user')
  },
})
