// dataset_follower_list: the users following a dataset (sysadmins only).
import { followerListAction } from './user_follower_list'

export const datasetFollowerList = followerListAction({
  name: 'dataset_follower_list',
  kind: 'dataset',
  noun: 'dataset',
})
