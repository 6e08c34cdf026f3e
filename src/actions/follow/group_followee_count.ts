// group_followee_count: how many groups (and, as CKAN 2.9 counts, organizations) a user follows.
import { apiAtLeast } from '../../config/api-compat'
import { followeeCount, followedGroups } from '../../model/follower'
import { followeeCountAction } from './user_followee_count'

export const groupFolloweeCount = followeeCountAction({
  name: 'group_followee_count',
  summary: 'Return the number of groups that the given user follows.',
  detail: `Deleted ones are not counted. As CKAN 2.9 does, organizations are counted too;
with service.api_compat 2.10 or later only groups are, as organization_followee_count
counts organizations.`,
  // ckan: 2.10 split the count when it added organization_followee_count
  count: async (ctx, row) =>
    apiAtLeast(ctx.config, '2.10')
      ? (await followedGroups(ctx, row, false)).length
      : followeeCount(ctx, row, 'group'),
})
