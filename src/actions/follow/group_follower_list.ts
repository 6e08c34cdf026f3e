// group_follower_list: the users following a group (sysadmins only).
import { followerListAction } from './user_follower_list'

export const groupFollowerList = followerListAction({
  name: 'group_follower_list',
  kind: 'group',
  noun: 'group',
})
