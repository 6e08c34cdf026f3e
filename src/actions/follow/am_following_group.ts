// am_following_group: whether the caller follows a group (organizations too).
import { amFollowingAction } from './am_following_user'

export const amFollowingGroup = amFollowingAction({
  name: 'am_following_group',
  kind: 'group',
  note: `Organizations are asked about with this
action too.`,
})
