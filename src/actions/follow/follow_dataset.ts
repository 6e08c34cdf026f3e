// follow_dataset: the caller starts following a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget, requireLoggedInTo } from '../../auth/follow'
import { startFollowing } from '../../model/follow-target'

const MUST_LOG_IN = 'You must be logged in to follow a dataset.'

export const followDataset = defineAction({
  name: 'follow_dataset',
  readOnly: false,
  allowAnonymous: true,
  help: `Start following a dataset.

You must be logged in (send your API key). A private dataset can be
followed only by those who may read it.

:param id: the id or name of the dataset to follow, e.g. 'warandpeace'
:type id: string
:returns: the follower relationship: follower_id, object_id and datetime
:rtype: dictionary`,
  auth: (ctx) => void requireLoggedInTo(ctx, MUST_LOG_IN),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const user = requireLoggedInTo(ctx, MUST_LOG_IN)
    return startFollowing(ctx, user, await loadVisibleTarget(ctx, 'dataset', id))
  },
})
