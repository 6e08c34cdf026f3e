// dataset_followee_count: how many datasets a user follows, of those the caller may read.
import { z } from 'zod'
import { defineAction } from '../action'
import { readablePackages } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { followedPackages } from '../../model/follower'

export const datasetFolloweeCount = defineAction({
  name: 'dataset_followee_count',
  readOnly: true,
  help: `Return the number of datasets that the given user follows.

Only datasets the caller may read now are counted (a followed dataset may have become private
since), so the count matches what dataset_followee_list shows the caller. Deleted datasets are
not counted.

:param id: the id or name of the user
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    // Counting what the caller may read keeps private datasets from showing even as a number.
    return (await readablePackages(ctx, await followedPackages(ctx, row))).length
  },
})
