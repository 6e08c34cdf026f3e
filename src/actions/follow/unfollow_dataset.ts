// unfollow_dataset: the caller stops following a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { stopFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to unfollow something.'

export const unfollowDataset = defineAction({
  name: 'unfollow_dataset',
  readOnly: false,
  allowAnonymous: true,
  help: `Stop following a dataset.

You must be logged in (send your API key). A dataset you may no longer read is
treated as unknown.

:param id: the id or name of the dataset to stop following
:type id: string`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    await stopFollowing(ctx, user, await loadVisibleTarget(ctx, 'dataset', id), id)
    return null
  },
})
