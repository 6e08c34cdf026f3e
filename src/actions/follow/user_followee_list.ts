// user_followee_list: the users a user follows, for that user and sysadmins (and the factory the
// dataset, group and organization lists are built with).
import type { ActionContext, UserRow } from '../../context'
import { requireCanSeeFolloweesOf } from '../../auth/follow'
import { followedUsers, publicUserDicts } from '../../model/follower'
import { followeeAction } from './user_followee_count'

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
export const followeeListAction = ({ name, what, order, detail, list }: FolloweeListSpec) =>
  followeeAction({
    name,
    help: `Return the ${what} that the given user follows, ${order}.

Only the user themself and sysadmins may see this. ${detail}

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
    auth: (ctx, input) => requireCanSeeFolloweesOf(ctx, input.id),
    of: list,
  })

export const userFolloweeList = followeeListAction({
  name: 'user_followee_list',
  what: 'users',
  order: 'sorted by name',
  detail: `Deleted users are left out; the user dicts
carry no e-mail address or API key.`,
  list: async (ctx, row) => publicUserDicts(ctx, await followedUsers(ctx, row)),
})
