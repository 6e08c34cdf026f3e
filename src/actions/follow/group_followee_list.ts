// group_followee_list: the groups a user follows (for that user and sysadmins).
import type { ActionContext, UserRow } from '../../context'
import { followedGroups } from '../../model/follower'
import { SHOW_DEFAULTS, groupDict } from '../../model/group'
import { followeeListAction } from './user_followee_list'

/** The groups (or organizations) `user` follows, as group_show (organization_show) gives them. */
export const followedGroupDicts = (isOrg: boolean) => async (ctx: ActionContext, user: UserRow) => {
  const out: Record<string, unknown>[] = []
  for (const g of await followedGroups(ctx, user, isOrg))
    out.push(await groupDict(ctx, g, SHOW_DEFAULTS(ctx, isOrg)))
  return out
}

export const groupFolloweeList = followeeListAction({
  name: 'group_followee_list',
  what: 'groups',
  order: 'in the order they were followed',
  detail: `Each dict is the one group_show gives;
deleted groups are left out. Organizations are listed by
organization_followee_list.`,
  list: followedGroupDicts(false),
})
