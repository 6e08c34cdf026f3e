// group_delete: marks a group deleted and ends its memberships (organization_delete shares it).
import { z } from 'zod'
import { defineAction } from '../action'
import { idOrName } from '../../validation/fields'
import { ValidationError } from '../../errors'
import { kindOf, loadGroup } from '../../model/group'
import { requireCanDeleteGroup } from '../../auth/group'
import { ownsLiveDatasets, removeGroup } from '../../model/group-write'
import { NOT_FOUND } from './group_update'

const help = (kind: string) => `Delete a ${kind}.

The ${kind} is marked deleted and leaves every list; its memberships (users, datasets, parent
and child ${kind}s) end. ${
  kind === 'organization'
    ? `Its datasets become datasets without an organization; when the site does not
allow those (service.auth.create_unowned_dataset), an organization that still has datasets
cannot be deleted. `
    : ''
}Only the ${kind}'s admins (and sysadmins) may delete it, and only while
service.auth.user_delete_${kind}s is on.

:param id: the id or name of the ${kind}
:type id: string`

/** group_delete and organization_delete share one implementation. */
export function deleteAction({ name, isOrg }: { name: string; isOrg: boolean }) {
  const kind = kindOf(isOrg)
  return defineAction({
    name,
    readOnly: false,
    help: help(kind),
    auth: async (ctx, input) =>
      requireCanDeleteGroup(ctx, await loadGroup(ctx, input.id, { isOrg, notFound: NOT_FOUND })),
    params: z.object({ id: idOrName }),
    async run(ctx, { id }) {
      const g = await loadGroup(ctx, id, { isOrg, notFound: NOT_FOUND })
      if (
        isOrg &&
        !ctx.config.bool('service.auth.create_unowned_dataset') &&
        (await ownsLiveDatasets(ctx, g.id))
      )
        throw ValidationError.message('Organization cannot be deleted while it still has datasets')
      await removeGroup(ctx, g, false)
      return null
    },
  })
}

export const groupDelete = deleteAction({ name: 'group_delete', isOrg: false })
