// group_followee_count: how many groups and organizations a user follows.
import { followeeCount } from '../../model/follower'
import { followeeCountAction } from './user_followee_count'

export const groupFolloweeCount = followeeCountAction({
  name: 'group_followee_count',
  what: 'groups and organizations',
  count: (ctx, row) => followeeCount(ctx, row, 'group'),
})
