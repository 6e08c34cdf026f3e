// Who may see an activity and its data (CKAN's activity_list / activity_show auth functions).
import type { ActionContext, UserRow } from '../context'
import { NotAuthorized } from '../errors'
import type { StoredActivity } from '../model/activity'
import { readableAtTheTime, viewerFor } from '../model/activity-query'
import { loadPackage } from '../model/package'
import { requireCanEditPackage, requireCanReadPackage } from './package'

/**
 * ckan activity_list auth for a dataset: whoever may show it sees its activities; their data
 * (whole dataset dicts as they were) needs edit rights unless public_activity_stream_detail.
 */
export async function requireCanSeePackageActivity(
  ctx: ActionContext,
  packageId: unknown,
  includeData: boolean,
) {
  const pkg = await loadPackage(ctx, packageId)
  if (includeData && !ctx.config.bool('service.auth.public_activity_stream_detail'))
    await requireCanEditPackage(ctx, pkg)
  else await requireCanReadPackage(ctx, pkg)
}

/**
 * ckan activity_show auth (also activity_data_show and activity_diff, with data): only dataset
 * activities can be authorised; sysadmins, who never get here, see every activity.
 */
export async function requireCanSeeActivity(
  ctx: ActionContext,
  activity: StoredActivity,
  includeData: boolean,
) {
  if (ctx.user?.sysadmin) return
  if (!activity.activity_type.includes('package'))
    throw new NotAuthorized('object_type not recognized')
  // ckan 2.11: the permission labels of the time are checked before the dataset itself
  await requireCouldReadThen(ctx, activity)
  await requireCanSeePackageActivity(ctx, activity.object_id, includeData)
}

/**
 * ckan 2.11: the activity of a dataset that was private then needs its permission labels (see
 * readableAtTheTime); also asked of the earlier activity activity_diff compares with.
 */
export async function requireCouldReadThen(ctx: ActionContext, activity: StoredActivity) {
  if (ctx.ignoreAuth) return
  if (!readableAtTheTime(await viewerFor(ctx, ctx.user), activity))
    throw new NotAuthorized('Unauthorized to view activity data')
}

/** ckan dashboard_activity_list auth (all dashboard actions): any logged-in user, for their own. */
export function requireDashboardUser(ctx: ActionContext): UserRow {
  if (!ctx.user) throw new NotAuthorized('You must be logged in to access your dashboard.')
  return ctx.user
}
