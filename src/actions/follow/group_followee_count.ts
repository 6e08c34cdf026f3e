// group_followee_count: how many groups and organizations a user follows.
import { followeeCount } from '../../model/follower'
import { followeeCountAction } from './user_followee_count'

export const groupFolloweeCount = followeeCountAction({
  name: 'group_followee_count',
  summary: 'Return the number of groups and organizations that the given user follows.',
  count: (ctx, row) => followeeCount(ctx, row, 'group'),
})
