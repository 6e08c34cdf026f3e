// unfollow_user: the caller stops following a user (and the factory unfollow_dataset and
// unfollow_group are built with).
import { loadUnfollowTarget } from '../../auth/follow'
import { stopFollowing } from '../../model/follow-target'
import { callerFollowAction, type FollowKindSpec } from './follow_user'

const MUST_LOG_IN = 'You must be logged in to unfollow something.'

/** unfollow_user, unfollow_dataset and unfollow_group share one implementation. */
export function unfollowAction({ name, kind, note }: FollowKindSpec) {
  return callerFollowAction({
    name,
    mustLogIn: MUST_LOG_IN,
    help: `Stop following a ${kind}.

You must be logged in (send your API key).${note ? ` ${note}` : ''}

:param id: the id or name of the ${kind} to stop following
:type id: string`,
    async act(ctx, user, id) {
      await stopFollowing(ctx, user, await loadUnfollowTarget(ctx, user, kind, id), id)
      return null
    },
  })
}

export const unfollowUser = unfollowAction({ name: 'unfollow_user', kind: 'user' })
