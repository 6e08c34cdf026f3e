// unfollow_dataset: the caller stops following a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireLoggedInTo } from '../../auth/follow'
import { canReadPackage } from '../../auth/package'
import { loadFollowTarget, stopFollowing, targetNotFound } from '../../model/follow-target'
import { findFollow } from '../../model/follower'

const MUST_LOG_IN = 'You must be logged in to unfollow something.'

export const unfollowDataset = defineAction({
  name: 'unfollow_dataset',
  readOnly: false,
  allowAnonymous: true,
  help: `Stop following a dataset.

You must be logged in (send your API key). A dataset you may no longer read
(it became private) can still be unfollowed if you follow it; otherwise it is
treated as unknown.

:param id: the id or name of the dataset to stop following
:type id: string`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    const target = await loadFollowTarget(ctx, 'dataset', id)
    // Beyond CKAN: a follower who lost read access may still let go (they know the dataset, and
    // the answer tells nobody else anything); to anyone else it stays unknown.
    if (!(await canReadPackage(ctx, target.row)) && !(await findFollow(ctx, user.id, target.id, 'dataset')))
      throw targetNotFound('dataset')
    await stopFollowing(ctx, user, target, id)
    return null
  },
})
