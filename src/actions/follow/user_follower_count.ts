// user_follower_count: how many users follow a user (and the factory the dataset, group and
// organization counts are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget } from '../../auth/follow'
import { followerCount, type FollowKind } from '../../model/follower'

export interface FollowerActionSpec {
  name: string
  /** What the id names: organizations are groups here. */
  kind: FollowKind
  /** The object's name in the help, with its article ("an organization"). */
  noun: string
  a?: 'a' | 'an'
}

/** The *_follower_count actions share one implementation. */
export function followerCountAction({
  name,
  kind,
  noun,
  a = 'a',
  note,
}: FollowerActionSpec & { note?: string }) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the number of followers of ${a} ${noun}.

Users whose account was deleted are not counted.${note ? ` ${note}` : ''}

:param id: the id or name of the ${noun}
:type id: string
:rtype: int`,
    auth: 'anyone',
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      return followerCount(ctx, await loadVisibleTarget(ctx, kind, id), kind)
    },
  })
}

export const userFollowerCount = followerCountAction({
  name: 'user_follower_count',
  kind: 'user',
  noun: 'user',
})
