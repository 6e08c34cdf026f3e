// am_following_dataset: whether the caller follows a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { NotAuthorized } from '../../errors'
import { loadVisibleTarget } from '../../auth/follow'
import { isFollowing } from '../../model/follower'

export const amFollowingDataset = defineAction({
  name: 'am_following_dataset',
  readOnly: true,
  help: `Return true if you follow the given dataset, false if not.

You must be logged in (send your API key).

:param id: the id or name of the dataset
:type id: string
:rtype: bool`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const target = await loadVisibleTarget(ctx, 'dataset', id)
    // ckan: the id is checked first; only then is an anonymous caller refused
    if (!ctx.user) throw new NotAuthorized()
    return isFollowing(ctx, ctx.user.id, target, 'dataset')
  },
})
