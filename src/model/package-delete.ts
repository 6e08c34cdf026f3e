// package_delete's write: the dataset marked deleted, out of its groups and collaborations, in one batch.
import { and, eq, inArray } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import { activities, changeLog, groups, members, packages } from '../db/schema'
import type { ActionContext } from '../context'
import { activityRow, recordsPrivateActivity } from './activity'
import { changeRow, packageDetail } from './changes'
import { dropDatasetCollaborators } from './collaborator'
import { forgetPackages, packageDict, type PackageRow } from './package'
import type { RawStatement } from '../db/executor'

/**
 * Marks a dataset deleted (auth already checked). `also`: statements that commit in the same
 * batch (a harvest object's outcome).
 */
export async function deletePackage(ctx: ActionContext, pkg: PackageRow, opts: { also?: RawStatement[] } = {}) {
  const now = ctx.now()
  const before = await packageDict(ctx, pkg.id)
  const groupIds = ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.is_organization, false))
  const steps: BatchItem<'sqlite'>[] = [
    ctx.db.update(packages).set({ state: 'deleted', metadata_modified: now }).where(eq(packages.id, pkg.id)),
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
    ctx.db
      .insert(changeLog)
      .values(changeRow('package', pkg.id, 'upsert', packageDetail({ state: 'deleted', private: pkg.private }, pkg))),
    // ckan: and so do its collaborators
    ...dropDatasetCollaborators(ctx, pkg.id),
  ]
  // ckan: private datasets record no activity, and "deleted package" is recorded only once
  const activity =
    (pkg.private && !recordsPrivateActivity(ctx)) || pkg.state === 'deleted'
      ? null
      : activityRow(ctx, 'deleted package', pkg.id, {
          package: { ...before, state: 'deleted', metadata_modified: now, groups: [] },
        })
  if (activity) steps.push(ctx.db.insert(activities).values(activity))
  await ctx.writer.write([...steps, ...(opts.also ?? [])])
  forgetPackages(ctx)
  await ctx.changes.catchUp() // this process's cached collaborations too
}
