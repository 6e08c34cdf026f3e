// package_resource_reorder: puts some of a dataset's resources first, in the given order.
import { z } from 'zod'
import { noteChanged } from '../../model/changed-entities'
import { eq } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import { defineAction, type DataDict } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { isMissing, MISSING } from '../../validation/fields'
import { activities, changeLog, packages, resources } from '../../db/schema'
import { activityRow, recordsPrivateActivity } from '../../model/activity'
import { changeRow } from '../../model/changes'
import { forgetPackages, loadPackage, packageDict } from '../../model/package'
import { requireLoggedIn } from '../../auth/caller'
import { requireCanEditPackage, requireCanReadPackage } from '../../auth/package'

/** The dataset and its resources in the new order; checks in CKAN's order (409, 404, 403, 409). */
async function reorder(ctx: ActionContext, input: DataDict, checkRead: boolean) {
  const missing: Record<string, string[]> = {}
  if (isMissing(input.id) || typeof input.id === 'object') missing.id = [MISSING]
  if (input.order === undefined || input.order === null) missing.order = [MISSING]
  if (Object.keys(missing).length) throw new ValidationError(missing)
  // ckan: the order errors carry a plain string, not a list
  const order = input.order
  if (!Array.isArray(order)) throw new ValidationError({ order: 'Must be a list of resource' })
  if (new Set(order).size !== order.length)
    throw new ValidationError({ order: 'Must supply unique resource_ids' })
  const pkg = await loadPackage(ctx, input.id)
  if (checkRead) await requireCanReadPackage(ctx, pkg)
  const dict = await packageDict(ctx, pkg.id)
  const rest = [...dict.resources]
  const first: Record<string, unknown>[] = []
  for (const rid of order) {
    const i = rest.findIndex((r) => r.id === rid)
    if (i < 0) throw new ValidationError({ order: `resource_id ${String(rid)} can not be found` })
    first.push(...rest.splice(i, 1))
  }
  const ordered = [...first, ...rest].map(
    (r, position): Record<string, unknown> => ({ ...r, position }),
  )
  return { pkg, dict, ordered }
}

export const packageResourceReorder = defineAction({
  name: 'package_resource_reorder',
  readOnly: false,
  help: `Reorder the resources of a dataset (package).

The resources listed in \`order\` come first, in that order; the others follow in their current
order. You must be allowed to edit the dataset.

:param id: the id or name of the dataset
:type id: string
:param order: resource ids, each at most once
:type order: list of strings
:returns: the dataset id as given and the ids of all its resources in their new order
:rtype: dictionary`,
  // ckan: the request is checked and the dataset read before an anonymous caller is refused
  allowAnonymous: true,
  auth: async (ctx, input) => {
    const { pkg } = await reorder(ctx, input, true)
    requireLoggedIn(ctx, 'package_resource_reorder')
    await requireCanEditPackage(ctx, pkg)
  },
  params: z.object({ id: z.unknown(), order: z.unknown() }),
  async run(ctx, _params, input) {
    const { pkg, dict, ordered: reordered } = await reorder(ctx, input, false)
    const now = ctx.now()
    const steps: BatchItem<'sqlite'>[] = reordered.map((r, position) =>
      ctx.db.update(resources).set({ position }).where(eq(resources.id, String(r.id))),
    )
    // ckan: the new order is saved through package_update, which counts as a change
    steps.push(
      ctx.db.update(packages).set({ metadata_modified: now }).where(eq(packages.id, pkg.id)),
    )
    steps.push(ctx.db.insert(changeLog).values(changeRow('package', pkg.id)))
    const activity =
      pkg.private && !recordsPrivateActivity(ctx)
        ? null
      : activityRow(ctx, 'changed package', pkg.id, {
          package: { ...dict, metadata_modified: now, resources: reordered },
        })
    if (activity) steps.push(ctx.db.insert(activities).values(activity))
    await ctx.db.batch(steps as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])
    forgetPackages(ctx)
    if (reordered.some((r, i) => r.id !== dict.resources[i]?.id)) noteChanged(ctx, 'packages', pkg.id)
    return { id: input.id, order: reordered.map((r) => r.id) }
  },
})
