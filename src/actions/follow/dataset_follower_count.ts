// dataset_follower_count: how many users follow a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget } from '../../auth/follow'
import { followerCount } from '../../model/follower'

export const datasetFollowerCount = defineAction({
  name: 'dataset_follower_count',
  readOnly: true,
  help: `Return the number of followers of a dataset.

Users whose account was deleted are not counted. A dataset the caller may not read is
reported as not found.

:param id: the id or name of the dataset
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    return followerCount(ctx, await loadVisibleTarget(ctx, 'dataset', id), 'dataset')
  },
})
