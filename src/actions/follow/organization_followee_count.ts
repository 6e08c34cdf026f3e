// organization_followee_count: how many organizations a user follows (CKAN 2.10's addition).
import { followedGroups } from '../../model/follower'
import { followeeCountAction } from './user_followee_count'

// ckan: offered under every service.api_compat setting; a 2.9 client never calls it
export const organizationFolloweeCount = followeeCountAction({
  name: 'organization_followee_count',
  summary: 'Return the number of organizations that the given user follows.',
  count: async (ctx, row) => (await followedGroups(ctx, row, true)).length,
})
