// user_follower_list: the users following a user, sysadmins only (and the factory the dataset,
// group and organization lists are built with).
import { z } from 'zod'
import { defineAction } from '../action'
import { sysadminsOnly } from '../../auth/caller'
import { loadVisibleTarget } from '../../auth/follow'
import { followerUsers, publicUserDicts } from '../../model/follower'
import type { FollowerActionSpec } from './user_follower_count'

/** The *_follower_list actions share one implementation. */
export function followerListAction({ name, kind, noun, a = 'a' }: FollowerActionSpec) {
  return defineAction({
    name,
    readOnly: true,
    help: `Return the users that follow ${a} ${noun}, sorted by name.

Only sysadmins may list followers. The user dicts carry no e-mail address or API key.

:param id: the id or name of the ${noun}
:type id: string
:rtype: list of dictionaries`,
    // ckan: CKAN's "sysadmin" pseudo rule refuses everyone else, anonymous included
    auth: sysadminsOnly('Not authorized'),
    params: z.object({ id: z.unknown().optional() }),
    async run(ctx, { id }) {
      const target = await loadVisibleTarget(ctx, kind, id)
      return publicUserDicts(ctx, await followerUsers(ctx, target, kind))
    },
  })
}

export const userFollowerList = followerListAction({
  name: 'user_follower_list',
  kind: 'user',
  noun: 'user',
})
