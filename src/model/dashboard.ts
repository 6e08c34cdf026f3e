// A user's dashboard: their own stream plus what they follow, and what is new since they looked.
import type { ActionContext, UserRow } from '../context'
import { dashboards } from '../db/schema'
import type { Stmt } from './write-batcher'
import { activityToDict, type ActivityDict } from './activity'
import {
  aboutObject,
  aboutObjectsIn,
  activityPage,
  byActor,
  byActorsIn,
  readableObject,
  sql,
  viewerFor,
  type Source,
  type Viewer,
} from './activity-query'
import { groupDatasets, orgDatasets } from './activity-sources'

type DashboardUser = Pick<UserRow, 'id' | 'sysadmin' | 'created'>

/**
 * ckan _dashboard_activity_query: activities by or about the user, by or about the users they
 * follow, about the datasets they follow, and about the groups and organizations they follow
 * with those groups' datasets.
 */
function dashboardSources(userId: string, v: Viewer, includeOwn: boolean): Source[] {
  const followed = (type: 'user' | 'dataset' | 'group') =>
    sql`SELECT f.object_id FROM follower f
      WHERE f.follower_id = ${userId} AND f.object_type = ${type}`
  // followed datasets the viewer may no longer read are dropped before their activities are read
  const datasets = sql`${followed('dataset')} AND ${readableObject(v, sql`f.object_id`)}`
  return [
    ...(includeOwn ? [byActor(userId)] : []),
    aboutObject(userId),
    byActorsIn(followed('user')),
    aboutObjectsIn(followed('user')),
    aboutObjectsIn(datasets),
    aboutObjectsIn(followed('group')),
    aboutObjectsIn(groupDatasets(followed('group'), v)),
    aboutObjectsIn(orgDatasets(followed('group'), v)),
  ]
}

/**
 * When the user last looked at their dashboard. ckan creates the dashboard row with the user,
 * so a user who never looked has seen everything up to their creation.
 */
export async function lastViewed(ctx: ActionContext, user: DashboardUser): Promise<string> {
  const [row] = await ctx.read(
    'SELECT activity_stream_last_viewed AS t FROM dashboard WHERE user_id = ?',
    [user.id],
  )
  return row ? String(row.t) : user.created
}

/**
 * A page of the user's dashboard, each activity marked `is_new` (never for their own), with
 * its whole data or (`withData` false) only the title of each object.
 */
export async function dashboardActivities(
  ctx: ActionContext,
  user: DashboardUser,
  page: { offset: number; limit: number; before?: string; after?: string },
  withData = false,
): Promise<ActivityDict[]> {
  const [viewer, seen] = await Promise.all([viewerFor(ctx, user), lastViewed(ctx, user)])
  // ckan: the dashboard always leaves out hidden users' activity
  const rows = await activityPage(ctx, dashboardSources(user.id, viewer, true), { viewer, ...page })
  return rows.map((r) => ({
    ...activityToDict(r, withData),
    is_new: r.user_id !== user.id && r.timestamp > seen,
  }))
}

/**
 * The user's dashboard activities (as that user may see them) newer than `since`, leaving out
 * what they did themselves, newest first, at most `limit`. For activity e-mail notifications.
 */
export async function dashboardActivitiesSince(
  ctx: ActionContext,
  user: Pick<UserRow, 'id' | 'sysadmin'>,
  since: string,
  limit: number,
): Promise<ActivityDict[]> {
  const viewer = await viewerFor(ctx, user)
  const rows = await activityPage(ctx, dashboardSources(user.id, viewer, false), {
    viewer,
    offset: 0,
    limit,
    since,
    excludeUser: user.id,
  })
  return rows.map((r) => activityToDict(r, false))
}

/**
 * The write that marks everything on the user's dashboard as seen (now). No change-log row:
 * nothing derived depends on it, and a row would make every cached dataset dict stale.
 */
export function markSeenStatements(ctx: ActionContext, user: DashboardUser): Stmt[] {
  const now = ctx.now()
  return [
    ctx.db
      .insert(dashboards)
      // ckan: email_last_sent starts when the dashboard does, i.e. with the user
      .values({ user_id: user.id, activity_stream_last_viewed: now, email_last_sent: user.created })
      .onConflictDoUpdate({
        target: dashboards.user_id,
        set: { activity_stream_last_viewed: now },
      }),
  ]
}
