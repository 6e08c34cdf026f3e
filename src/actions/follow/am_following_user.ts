// am_following_user: whether the caller follows a user (and the factory am_following_dataset and
// am_following_group are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import { loadTargetOfCaller } from '../../auth/follow'
import { isFollowing } from '../../model/follower'
import type { FollowKindSpec } from './follow_user'

/** am_following_user, am_following_dataset and am_following_group share one implementation. */
export function amFollowingAction({ name, kind, note }: FollowKindSpec) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return true if you follow the given ${kind}, false if not.

You must be logged in (send your API key).${note ? ` ${note}` : ''}

:param id: the id or name of the ${kind}
:type id: string
:rtype: bool`,
    // ckan: the id is checked first; only then is an anonymous caller refused (the rule runs
    // again in run, so the refusal stands where auth is skipped)
    auth: async (ctx, input) => void (await loadTargetOfCaller(ctx, kind, input.id)),
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      const { user, target } = await loadTargetOfCaller(ctx, kind, id)
      return isFollowing(ctx, user.id, target, kind)
    },
  })
}

export const amFollowingUser = amFollowingAction({ name: 'am_following_user', kind: 'user' })
