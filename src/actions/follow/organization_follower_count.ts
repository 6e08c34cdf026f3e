// organization_follower_count: how many users follow an organization.
import { followerCountAction } from './user_follower_count'

export const organizationFollowerCount = followerCountAction({
  name: 'organization_follower_count',
  kind: 'group',
  noun: 'organization',
  a: 'an',
})
