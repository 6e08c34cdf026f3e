// organization_follower_list: the users following an organization (sysadmins only).
import { followerListAction } from './user_follower_list'

export const organizationFollowerList = followerListAction({
  name: 'organization_follower_list',
  kind: 'group',
  noun: 'organization',
  a: 'an',
})
