// dataset_follower_count: how many users follow a dataset.
import { followerCountAction } from './user_follower_count'

export const datasetFollowerCount = followerCountAction({
  name: 'dataset_follower_count',
  kind: 'dataset',
  noun: 'dataset',
  note: `A dataset the caller may not read is
reported as not found.`,
})
