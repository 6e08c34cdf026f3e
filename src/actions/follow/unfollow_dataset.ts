// unfollow_dataset: the caller stops following a dataset.
import { unfollowAction } from './unfollow_user'

export const unfollowDataset = unfollowAction({
  name: 'unfollow_dataset',
  kind: 'dataset',
  note: `A dataset you may no longer read
(it became private) can still be unfollowed if you follow it; otherwise it is
treated as unknown.`,
})
