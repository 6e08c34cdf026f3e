// followee_count: how many users, datasets, groups and organizations a user follows.
import { z } from 'zod'
import { defineAction } from '../action'
import { invoke } from '../invoke'
import { loadFollowTarget } from '../../model/follow-target'
import { datasetFolloweeCount } from './dataset_followee_count'
import { groupFolloweeCount } from './group_followee_count'
import { userFolloweeCount } from './user_followee_count'

export const followeeCount = defineAction({
  name: 'followee_count',
  readOnly: true,
  help: `Return the number of objects of any kind that the given user follows: users, datasets,
groups and organizations.

Datasets are counted as dataset_followee_count counts them: only those the caller may read.

:param id: the id or name of the user
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    let n = 0
    for (const action of [userFolloweeCount, datasetFolloweeCount, groupFolloweeCount])
      n += await invoke(ctx, action, { id: row.id }, { skipAuth: true })
    return n
  },
})
