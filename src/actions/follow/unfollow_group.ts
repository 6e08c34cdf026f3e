// unfollow_group: the caller stops following a group (organizations too).
import { unfollowAction } from './unfollow_user'

export const unfollowGroup = unfollowAction({
  name: 'unfollow_group',
  kind: 'group',
  note: `Organizations are unfollowed with this
action too.`,
})
