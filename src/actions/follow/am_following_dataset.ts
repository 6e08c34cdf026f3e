// am_following_dataset: whether the caller follows a dataset.
import { amFollowingAction } from './am_following_user'

export const amFollowingDataset = amFollowingAction({
  name: 'am_following_dataset',
  kind: 'dataset',
})
