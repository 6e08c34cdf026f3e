// user_followee_count: how many users a user follows (and the factories the other followee
// counts and lists, and followee_count, are built with).
import { z } from 'zod'
import { defineAction, type AuthRule } from '../action'
import type { ActionContext, UserRow } from '../../context'
import { loadFollowTarget } from '../../model/follow-target'
import { followeeCount } from '../../model/follower'

/** An action about what the user `id` names follows: `of` answers for that user. */
export function followeeAction<R>({ name, help, auth = 'anyone', of }: {
  name: string
  help: string
  auth?: AuthRule
  of: (ctx: ActionContext, user: UserRow) => Promise<R>
}) {
  return defineAction({
    name,
    readOnly: true,
    help,
    auth,
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      return of(ctx, (await loadFollowTarget(ctx, 'user', id)).row)
    },
  })
}

export interface FolloweeCountSpec {
  name: string
  /** The help's first paragraph. */
  summary: string
  /** The help's second paragraph. */
  detail?: string
  count(ctx: ActionContext, user: UserRow): Promise<number>
}

/** The *_followee_count actions share one implementation. */
export const followeeCountAction = ({
  name,
  summary,
  detail = 'Deleted ones are not counted.',
  count,
}: FolloweeCountSpec) =>
  followeeAction({
    name,
    help: `${summary}

${detail}

:param id: the id or name of the user
:type id: string
:rtype: int`,
    of: count,
  })

export const userFolloweeCount = followeeCountAction({
  name: 'user_followee_count',
  summary: 'Return the number of users that the given user follows.',
  count: (ctx, row) => followeeCount(ctx, row, 'user'),
})
