// package_delete: marks a dataset deleted and drops it from its groups.
import { z } from 'zod'
import { and, eq, inArray } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import { defineAction } from '../action'
import { idOrName } from '../../validation/fields'
import { activities, changeLog, groups, members, packages } from '../../db/schema'
import { activityRow } from '../../model/activity'
import { changeRow, packageDetail } from '../../model/changes'
import { dropDatasetCollaborators } from '../../model/collaborator'
import { forgetPackages, loadPackage, packageDict } from '../../model/package'
import { requireCanDeletePackage } from '../../auth/package'

export const packageDelete = defineAction({
  name: 'package_delete',
  readOnly: false,
  help: `Delete a dataset (package).

The dataset is marked deleted: it leaves search results, lists and its groups, but members of
its organization can still read it, and package_patch with state "active" brings it back.
dataset_purge removes it for good. You must be allowed to edit the dataset.

:param id: the id or name of the dataset
:type id: string`,
  // ckan: the dataset is looked up (404) before anonymous callers are refused
  allowAnonymous: true,
  auth: async (ctx, input) => {
    const pkg = await loadPackage(ctx, input.id)
    await requireCanDeletePackage(ctx, pkg)
  },
  params: z.object({ id: idOrName }),
  async run(ctx, { id }) {
    const pkg = await loadPackage(ctx, id)
    const now = ctx.now()
    const before = await packageDict(ctx, pkg.id)
    const groupIds = ctx.db
      .select({ id: groups.id })
      .from(groups)
      .where(eq(groups.is_organization, false))
    const steps: BatchItem<'sqlite'>[] = [
      ctx.db
        .update(packages)
        .set({ state: 'deleted', metadata_modified: now })
        .where(eq(packages.id, pkg.id)),
      // Group memberships end with the dataset; ownership by its organization stays.
      ctx.db
        .update(members)
        .set({ state: 'deleted' })
        .where(
          and(
            eq(members.table_id, pkg.id),
            eq(members.table_name, 'package'),
            eq(members.state, 'active'),
            inArray(members.group_id, groupIds),
          ),
        ),
      ctx.db.insert(changeLog).values(changeRow('package', pkg.id, 'upsert', packageDetail({ state: 'deleted', private: pkg.private }, pkg))),
      // ckan: and so do its collaborators
      ...dropDatasetCollaborators(ctx, pkg.id),
    ]
    // ckan: private datasets record no activity, and "deleted package" is recorded only once
    const activity =
      pkg.private || pkg.state === 'deleted'
        ? null
        : activityRow(ctx, 'deleted package', pkg.id, {
            package: { ...before, state: 'deleted', metadata_modified: now, groups: [] },
          })
    if (activity) steps.push(ctx.db.insert(activities).values(activity))
    await ctx.db.batch(steps as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])
    forgetPackages(ctx)
    await ctx.changes.catchUp() // this process's cached collaborations too
    return null // ckan: package_delete returns nothing
  },
})
