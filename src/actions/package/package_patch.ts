// package_patch: changes only the given top-level keys of a dataset.
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { loadPackage, packageDict } from '../../model/package'
import { packageWritePolicy } from '../../auth/package'
import { updatePackage } from '../../model/package-write'
import { isMissing, MISSING } from '../../validation/fields'
import { updateAction } from './package_update'

async function target(ctx: ActionContext, input: Record<string, unknown>) {
  if (isMissing(input.id) || typeof input.id === 'object')
    throw new ValidationError({ id: [MISSING] })
  const row = await loadPackage(ctx, input.id)
  return { row, dict: await packageDict(ctx, row.id) }
}

export const packagePatch = updateAction({
  name: 'package_patch',
  intro: `Update some fields of a dataset (package), keeping the others.

The given top-level keys replace the stored ones; a given list (resources, tags, extras,
groups) replaces the whole list, so resources left out of a given list are deleted. Everything
else is as package_update.

:param id: the id or name of the dataset
:type id: string`,
  target,
  write(ctx, input, { row, dict }) {
    // ckan: relationships are carried over only when the patch gives them
    const { relationships_as_subject: _s, relationships_as_object: _o, ...shown } = dict
    const merged: Record<string, unknown> = { ...shown, ...input, id: row.id }
    // ckan: resources a patch adds get no default views
    return updatePackage(ctx, merged, row, dict, packageWritePolicy(ctx), { defaultViews: false })
  },
})
