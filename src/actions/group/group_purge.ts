// group_purge: removes a group for good (sysadmins only; organization_purge shares it).
import { z } from 'zod'
import { defineAction } from '../action'
import { idOrName } from '../../validation/fields'
import { kindOf, loadGroup } from '../../model/group'
import { removeGroup } from '../../model/group-write'
import { requireSysadmin } from '../../auth/caller'
import { imageKey, isUploadedImage } from '../../model/image-upload'
import { deleteBlobs } from '../../storage/staged-upload'

const help = (kind: string) => `Purge a ${kind}.

Unlike ${kind}_delete, this removes the ${kind}, its extras and all its memberships from the
database; it cannot be undone. ${kind === 'organization' ? 'The datasets it owned remain, without an organization.' : 'Its datasets remain, just no longer in the group.'}
Only sysadmins may purge ${kind}s.

:param id: the id or name of the ${kind}
:type id: string`

/** group_purge and organization_purge share one implementation. */
export function purgeAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  // ckan: this message has no full stop, unlike group_delete's
  const notFound = isOrg ? 'Organization was not found' : 'Group was not found'
  return defineAction({
    name,
    readOnly: false,
    help: help(kind),
    // ckan: the group is looked up (404) before a non-sysadmin is refused
    auth: async (ctx, input) => {
      await loadGroup(ctx, input.id, { isOrg, notFound })
      requireSysadmin(ctx, name)
    },
    params: z.object({ id: idOrName }),
    async run(ctx, { id }) {
      // seed: purging an organization always keeps its datasets, without organization
      const g = await loadGroup(ctx, id, { isOrg, notFound })
      await removeGroup(ctx, g, true)
      if (isUploadedImage(g.image_url))
        await deleteBlobs(ctx.blobs, [imageKey('group', g.image_url)])
      return null
    },
  })
}

export const groupPurge = purgeAction({ name: 'group_purge', isOrg: false })
