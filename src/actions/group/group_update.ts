// group_update: replaces a group's fields and memberships (organization_update shares it).
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import {
  groupDict,
  kindOf,
  loadGroup,
  type GroupDictOptions,
  type GroupRow,
} from '../../model/group'
import { groupParams, saveGroup, withGroupSchema } from '../../model/group-write'
import { applyImage, planImage } from '../../model/image-upload'
import { requireCanEditGroup } from '../../auth/group'
import { apiAtLeast } from '../../config/api-compat'
import { ValidationError } from '../../errors'
import type { DataDict } from '../action'

/** ckan: update and patch return the dict with up to 10 datasets and no follower count. */
export const UPDATE_RESULT: GroupDictOptions = {
  datasets: 10,
  count: true,
  extras: true,
  users: true,
  groups: true,
  tags: true,
  followers: false,
  forUpdate: true,
}

export const NOT_FOUND = 'Group was not found.'

/**
 * ckan 2.10: a `type` other than the group's own is refused, before the caller's rights are
 * checked; 2.9 kept the old type and ignored the one given.
 */
function refuseTypeChange(ctx: ActionContext, g: GroupRow, input: DataDict) {
  if (!apiAtLeast(ctx.config, '2.10')) return
  if (input.type !== undefined && input.type !== null && input.type !== g.type)
    throw ValidationError.message('Type cannot be updated')
}

const help = (kind: string) => `Update a ${kind}.

Only the ${kind}'s admins (and sysadmins) may update it. Fields not given keep their values,
but the member lists are replaced: leaving out users removes every member (admins too), and
leaving out groups removes the parent ${kind}s.${kind === 'group' ? ' Datasets are replaced only when packages is given.' : ' packages is ignored: datasets join an organization through their owner_org.'}
Extras are replaced only when a non-empty extras list is given. The type cannot be changed:
with service.api_compat 2.10 or later a different type is refused, under 2.9 it is ignored.

:param id: the id or name of the ${kind}
:type id: string

The other parameters are those of ${kind}_create (name is optional).

:returns: the updated ${kind}
:rtype: dictionary`

/** group_update / organization_update (`partial` false) and their _patch forms (`partial` true). */
export function updateAction(o: { name: string; isOrg: boolean; partial: boolean; help?: string }) {
  const { isOrg, partial } = o
  const kind = kindOf(isOrg)
  return defineAction({
    name: o.name,
    readOnly: false,
    help: o.help ?? help(kind),
    auth: async (ctx, input) => {
      const g = await loadGroup(ctx, input.id, { isOrg, notFound: NOT_FOUND })
      refuseTypeChange(ctx, g, input)
      await requireCanEditGroup(ctx, g)
    },
    params: groupParams(false),
    async run(ctx, params, input) {
      const existing = await loadGroup(ctx, params.id, { isOrg, notFound: NOT_FOUND })
      refuseTypeChange(ctx, existing, input) // again: sysadmins pass no auth rule
      const image = planImage(ctx, 'group', input, existing.image_url)
      const current = partial ? () => groupDict(ctx, existing, UPDATE_RESULT) : undefined
      const typed = await withGroupSchema(ctx, { isOrg, type: existing.type, create: false, current }, input, params)
      const p = { ...typed, image_url: image.imageUrl ?? typed.image_url }
      const row = await saveGroup(ctx, { isOrg, existing, params: p, partial })
      await applyImage(ctx, image)
      return groupDict(ctx, row, UPDATE_RESULT)
    },
  })
}

export const groupUpdate = updateAction({ name: 'group_update', isOrg: false, partial: false })
