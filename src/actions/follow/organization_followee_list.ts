// organization_followee_list: the organizations a user follows (for that user and sysadmins).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanSeeFolloweesOf } from '../../auth/follow'
import { loadFollowTarget } from '../../model/follow-target'
import { followedGroups } from '../../model/follower'
import { SHOW_DEFAULTS, groupDict } from '../../model/group'

export const organizationFolloweeList = defineAction({
  name: 'organization_followee_list',
  readOnly: true,
  help: `Return the organizations that the given user follows, in the order they were followed.

Only the user themself and sysadmins may see this. Each dict is the one organization_show gives;
deleted organizations are left out.

:param id: the id or name of the user
:type id: string
:rtype: list of dictionaries`,
  auth: (ctx, input) => requireCanSeeFolloweesOf(ctx, input.id),
  params: z.object({ id: z.unknown().optional() }),
  async run(ctx, { id }) {
    const { row } = await loadFollowTarget(ctx, 'user', id)
    const out: Record<string, unknown>[] = []
    for (const g of await followedGroups(ctx, row, true))
      out.push(await groupDict(ctx, g, SHOW_DEFAULTS(ctx, true)))
    return out
  },
})
