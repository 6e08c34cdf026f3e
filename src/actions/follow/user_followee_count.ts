// user_followee_count: how many users a user follows (and the factory the dataset and group
// counts are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext, UserRow } from '../../context'
import { loadFollowTarget } from '../../model/follow-target'
import { followeeCount } from '../../model/follower'

export interface FolloweeCountSpec {
  name: string
  /** What is counted, for the help ("groups and organizations"). */
  what: string
  /** The help's second paragraph. */
  detail?: string
  count(ctx: ActionContext, user: UserRow): Promise<number>
}

/** The *_followee_count actions share one implementation. */
export function followeeCountAction({ name, what, detail = 'Deleted ones are not counted.', count }: FolloweeCountSpec) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the number of ${what} that the given user follows.

${detail}

:param id: the id or name of the user
:type id: string
:rtype: int`,
    auth: 'anyone',
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      const { row } = await loadFollowTarget(ctx, 'user', id)
      return count(ctx, row)
    },
  })
}

export const userFolloweeCount = followeeCountAction({
  name: 'user_followee_count',
  what: 'users',
  count: (ctx, row) => followeeCount(ctx, row, 'user'),
})
