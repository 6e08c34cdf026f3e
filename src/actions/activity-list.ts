// What the *_activity_list actions of activity/ and dashboard/ share: the help of their paging
// parameters, and one page of a stream as activity dicts.
import type { ActionContext } from '../context'
import { apiAtLeast } from '../config/api-compat'
import { activityToDict } from '../model/activity'
import {
  activityPage,
  viewerFor,
  type PageOptions,
  type Source,
  type Viewer,
} from '../model/activity-query'
import { activityPageOf } from '../validation/activity'

/** The help of the offset, limit, before and after parameters. */
export const PAGE_PARAMS_HELP = `:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int
:param before: only activities before this time, in seconds since the epoch (UTC)
    (optional)
:type before: float
:param after: only activities after this time, in seconds since the epoch (UTC); given
    without before, the page is counted from the activities closest after it (still newest
    first) (optional)
:type after: float`

/** The help of activity_types (and exclude_activity_types where the action reads it). */
export const typesHelp = (exclude: boolean) => `:param activity_types: only activities of these types,
    e.g. ["new package", "changed package"] (optional)
:type activity_types: list of strings${
  exclude
    ? `
:param exclude_activity_types: all activities but those of these types; not together with
    activity_types (optional)
:type exclude_activity_types: list of strings`
    : ''
}`

/**
 * Whether the activity dicts of lists carry their whole data (CKAN 2.10's activity plugin) or
 * only the title of each object (2.9).
 */
export const listsCarryData = (ctx: ActionContext) => apiAtLeast(ctx.config, '2.10')

export interface ListParams {
  offset?: number
  limit?: number
  before?: string
  after?: string
  /** the include_hidden_activity parameter, where the action honours it */
  include_hidden_activity?: boolean
  types?: PageOptions['types']
}

/**
 * The page of the stream (the union of the sources it gives for the viewer) as the caller may
 * see it, newest first, as activity dicts. ckan: ignore_not_sysadmin drops include_hidden_activity
 * for everyone but sysadmins.
 */
export async function activityListPage(
  ctx: ActionContext,
  stream: (viewer: Viewer) => Source[],
  p: ListParams,
) {
  const viewer = await viewerFor(ctx, ctx.user)
  const rows = await activityPage(ctx, stream(viewer), {
    viewer,
    ...activityPageOf(ctx.config, p),
    includeHidden: !!p.include_hidden_activity && (!!ctx.user?.sysadmin || !!ctx.ignoreAuth),
    types: p.types,
  })
  const withData = listsCarryData(ctx)
  return rows.map((r) => activityToDict(r, withData))
}
