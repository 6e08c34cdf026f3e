// follow_group: the caller starts following a group (organizations too).
import { followAction } from './follow_user'

export const followGroup = followAction({
  name: 'follow_group',
  kind: 'group',
  mustLogIn: 'You must be logged in to follow a group.',
  example: 'roger',
  note: `Organizations are followed
with this action too.`,
})
