// dataset_followee_list: the datasets a user follows (for that user and sysadmins).
import { readablePackages } from '../../auth/follow'
import { followedPackages } from '../../model/follower'
import { packageDicts } from '../../model/package'
import { followeeListAction } from './user_followee_list'

export const datasetFolloweeList = followeeListAction({
  name: 'dataset_followee_list',
  what: 'datasets',
  order: 'in the order they were followed',
  detail: `Deleted datasets, and datasets the caller may
not read now (one followed while public may have become private), are left out.`,
  async list(ctx, row) {
    const ids = (await readablePackages(ctx, await followedPackages(ctx, row))).map((p) => p.id)
    const dicts = await packageDicts(ctx, ids)
    return ids.map((i) => dicts.get(i)).filter((d) => d !== undefined)
  },
})
