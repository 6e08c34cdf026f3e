// package_patch: changes only the given top-level keys of a dataset.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { loadPackage, packageDict } from '../../model/package'
import { authorizePackageUpdate, packageWritePolicy } from '../../auth/package'
import { updatePackage } from '../../model/package-write'
import { isMissing, MISSING } from '../../validation/fields'

async function target(ctx: ActionContext, input: Record<string, unknown>) {
  if (isMissing(input.id) || typeof input.id === 'object')
    throw new ValidationError({ id: [MISSING] })
  const row = await loadPackage(ctx, input.id)
  return { row, dict: await packageDict(ctx, row.id) }
}

export const packagePatch = defineAction({
  name: 'package_patch',
  readOnly: false,
  help: `Update some fields of a dataset (package), keeping the others.

The given top-level keys replace the stored ones; a given list (resources, tags, extras,
groups) replaces the whole list, so resources left out of a given list are deleted. Everything
else is as package_update.

:param id: the id or name of the dataset
:type id: string

The other parameters are those of package_create.

:returns: the updated dataset
:rtype: dictionary`,
  async auth(ctx, input) {
    const { row, dict } = await target(ctx, input)
    await authorizePackageUpdate(ctx, input, row, dict)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const { row, dict } = await target(ctx, input)
    // ckan: relationships are carried over only when the patch gives them
    const { relationships_as_subject: _s, relationships_as_object: _o, ...shown } = dict
    const merged: Record<string, unknown> = { ...shown, ...input, id: row.id }
    // ckan: resources a patch adds get no default views
    return updatePackage(ctx, merged, row, dict, packageWritePolicy(ctx), { defaultViews: false })
  },
})
