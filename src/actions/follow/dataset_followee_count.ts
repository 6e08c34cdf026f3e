// dataset_followee_count: how many datasets a user follows, of those the caller may read.
import { readablePackages } from '../../auth/follow'
import { followedPackages } from '../../model/follower'
import { followeeCountAction } from './user_followee_count'

export const datasetFolloweeCount = followeeCountAction({
  name: 'dataset_followee_count',
  summary: 'Return the number of datasets that the given user follows.',
  detail: `Only datasets the caller may read now are counted (a followed dataset may have become private
since), so the count matches what dataset_followee_list shows the caller. Deleted datasets are
not counted.`,
  // Counting what the caller may read keeps private datasets from showing even as a number.
  count: async (ctx, row) => (await readablePackages(ctx, await followedPackages(ctx, row))).length,
})
