// dataset_followee_list: the datasets a user follows (for that user and sysadmins).
import { z } from 'zod'
import { defineAction } from '../action'
import { readablePackages, requireCanSeeFolloweesOf } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { followedPackages } from '../../model/follower'
import { packageDicts } from '../../model/package'

export const datasetFolloweeList = defineAction({
  name: 'dataset_followee_list',
  readOnly: true,
  help: `Return the datasets that the given user follows, in the order they were followed.

Only the user themself and sysadmins may see this. Deleted datasets, and datasets the caller may
not read now (one followed while public may have become private), are left out.

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
  auth: (ctx, input) => requireCanSeeFolloweesOf(ctx, input.id),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    const ids = (await readablePackages(ctx, await followedPackages(ctx, row))).map((p) => p.id)
    const dicts = await packageDicts(ctx, ids)
    return ids.map((i) => dicts.get(i)).filter((d) => d !== undefined)
  },
})
