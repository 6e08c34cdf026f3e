// package_update: replaces a dataset's metadata, resources, tags, extras and groups; also the
// factory package_patch is built with.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { loadPackage, packageDict, type PackageDict, type PackageRow } from '../../model/package'
import { authorizePackageUpdate, packageWritePolicy } from '../../auth/package'
import { updatePackage } from '../../model/package-write'
import { isMissing } from '../../validation/fields'

type Target = { row: PackageRow; dict: PackageDict }

/** ckan: the target is `id` or else `name`; a missing one is a string, not a list. */
export async function updateTarget(ctx: ActionContext, input: Record<string, unknown>) {
  const ref = isMissing(input.id) ? input.name : input.id
  if (isMissing(ref) || typeof ref === 'object') throw new ValidationError({ id: 'Missing value' })
  const row = await loadPackage(ctx, ref, { notFound: 'Package was not found.' })
  return { row, dict: await packageDict(ctx, row.id) }
}

/**
 * package_update and package_patch: the dataset `target` finds is checked with package_update's
 * rule, then `write` changes it. `intro` is the help up to the parameters of package_create.
 */
export function updateAction<R>(spec: {
  name: string
  allowAnonymous?: boolean
  intro: string
  target: (ctx: ActionContext, input: Record<string, unknown>) => Promise<Target>
  write: (ctx: ActionContext, input: Record<string, unknown>, target: Target) => Promise<R>
}) {
  return defineAction({
    name: spec.name,
    readOnly: false,
    allowAnonymous: spec.allowAnonymous,
    help: `${spec.intro}

The other parameters are those of package_create.

:returns: the updated dataset
:rtype: dictionary`,
    async auth(ctx, input) {
      const { row, dict } = await spec.target(ctx, input)
      await authorizePackageUpdate(ctx, input, row, dict)
    },
    params: z.record(z.string(), z.unknown()),
    async run(ctx, _params, input) {
      return spec.write(ctx, input, await spec.target(ctx, input))
    },
  })
}

export const packageUpdate = updateAction({
  name: 'package_update',
  // ckan: unowned datasets may be edited anonymously when the site allows it
  allowAnonymous: true,
  intro: `Update a dataset (package), replacing its metadata.

Keys that are not given are cleared: text fields become null, and a missing resources,
tags or extras list removes all of them. Use package_patch to change only some fields.
Resources given with the id of an existing resource are updated in place, resources without
an id are added, and existing resources that are not listed are deleted. The dataset's id and
type cannot change. You must be allowed to edit the dataset.

:param id: the id or name of the dataset to update
:type id: string
:param name: the dataset's new name, or (without id) the name of the dataset to update
    (optional)
:type name: string`,
  target: updateTarget,
  write: (ctx, input, { row, dict }) => updatePackage(ctx, input, row, dict, packageWritePolicy(ctx)),
})
