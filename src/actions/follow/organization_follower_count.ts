// organization_follower_count: how many users follow an organization.
import { z } from 'zod'
import { defineAction } from '../action'
import { loadVisibleTarget } from '../../auth/follow'
import { followerCount } from '../../model/follower'

export const organizationFollowerCount = defineAction({
  name: 'organization_follower_count',
  readOnly: true,
  help: `Return the number of followers of an organization.

Users whose account was deleted are not counted.

:param id: the id or name of the organization
:type id: string
:rtype: int`,
  auth: 'anyone',
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    return followerCount(ctx, await loadVisibleTarget(ctx, 'group', id), 'group')
  },
})
