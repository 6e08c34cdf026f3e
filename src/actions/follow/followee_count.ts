// followee_count: how many users, datasets, groups and organizations a user follows.
import { invoke } from '../invoke'
import { datasetFolloweeCount } from './dataset_followee_count'
import { groupFolloweeCount } from './group_followee_count'
import { followeeCountAction, userFolloweeCount } from './user_followee_count'

export const followeeCount = followeeCountAction({
  name: 'followee_count',
  summary: `Return the number of objects of any kind that the given user follows: users, datasets,
groups and organizations.`,
  detail: 'Datasets are counted as dataset_followee_count counts them: only those the caller may read.',
  async count(ctx, row) {
    let n = 0
    for (const action of [userFolloweeCount, datasetFolloweeCount, groupFolloweeCount])
      n += await invoke(ctx, action, { id: row.id }, { skipAuth: true })
    return n
  },
})
