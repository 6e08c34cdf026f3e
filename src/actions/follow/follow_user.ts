// follow_user: the caller starts following a user (and the factory follow_dataset and
// follow_group are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext, UserRow } from '../../context'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import type { FollowKind } from '../../model/follower'
import { startFollowing } from '../../model/follow-target'

/** Which follower action: its name, the kind of object, and a sentence for its help. */
export interface FollowKindSpec {
  name: string
  kind: FollowKind
  /** A sentence the help adds after "You must be logged in", with its line break. */
  note?: string
}

export interface FollowActionSpec extends FollowKindSpec {
  /** What an anonymous caller is told (CKAN's wording differs per action). */
  mustLogIn: string
  /** The id in the help's example. */
  example: string
}

/**
 * follow_* and unfollow_*: writes by the caller, who must be logged in (else `mustLogIn` says
 * so, also where auth is skipped); `act` does the write for the `id` given.
 */
export function callerFollowAction<R>({
  name,
  mustLogIn,
  help,
  act,
}: {
  name: string
  mustLogIn: string
  help: string
  act: (ctx: ActionContext, user: UserRow, id: unknown) => Promise<R>
}) {
  return defineAction({
    name,
    readOnly: false,
    allowAnonymous: true,
    help,
    auth: (ctx) => void requireLoggedInTo(ctx, mustLogIn),
    params: z.object({ id: z.unknown().optional() }),
    run: async (ctx, { id }) => act(ctx, requireLoggedInTo(ctx, mustLogIn), id),
  })
}

/** follow_user, follow_dataset and follow_group share one implementation. */
export function followAction({ name, kind, mustLogIn, example, note }: FollowActionSpec) {
  return callerFollowAction({
    name,
    mustLogIn,
    help: `Start following a ${kind}.

You must be logged in (send your API key).${note ? ` ${note}` : ''}

:param id: the id or name of the ${kind} to follow, e.g. '${example}'
:type id: string
:returns: the follower relationship: follower_id, object_id and datetime
:rtype: dictionary`,
    act: async (ctx, user, id) => startFollowing(ctx, user, await loadVisibleTarget(ctx, kind, id)),
  })
}

export const followUser = followAction({
  name: 'follow_user',
  kind: 'user',
  mustLogIn: 'You must be logged in to follow users',
  example: 'joeuser',
})
