// group_follower_count: how many users follow a group.
import { followerCountAction } from './user_follower_count'

export const groupFollowerCount = followerCountAction({
  name: 'group_follower_count',
  kind: 'group',
  noun: 'group',
})
