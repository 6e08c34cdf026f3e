// user_followee_list: the users a user follows, for that user and sysadmins (and the factory the
// dataset, group and organization lists are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext, UserRow } from '../../context'
import { requireCanSeeFolloweesOf } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { followedUsers, publicUserDicts } from '../../model/follower'

export interface FolloweeListSpec {
  name: string
  /** What is listed, for the help ("groups"). */
  what: string
  /** In which order, for the help. */
  order: string
  /** The rest of the help's second paragraph. */
  detail: string
  list(ctx: ActionContext, user: UserRow): Promise<Record<string, unknown>[]>
}

/** The *_followee_list actions share one implementation. */
export function followeeListAction({ name, what, order, detail, list }: FolloweeListSpec) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the ${what} that the given user follows, ${order}.

Only the user themself and sysadmins may see this. ${detail}

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
    auth: (ctx, input) => requireCanSeeFolloweesOf(ctx, input.id),
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      const { row } = await loadFollowTarget(ctx, 'user', id)
      return list(ctx, row)
    },
  })
}

export const userFolloweeList = followeeListAction({
  name: 'user_followee_list',
  what: 'users',
  order: 'sorted by name',
  detail: `Deleted users are left out; the user dicts
carry no e-mail address or API key.`,
  list: async (ctx, row) => publicUserDicts(ctx, await followedUsers(ctx, row)),
})
