// What the *_activity_list actions of activity/ and dashboard/ share: the help of their paging
// parameters, and one page of a stream as activity dicts.
import type { ActionContext } from '../context'
import { activityToDict } from '../model/activity'
import { activityPage, viewerFor, type Source, type Viewer } from '../model/activity-query'
import { activityPageOf } from '../validation/activity'

/** The help of the offset and limit parameters. */
export const PAGE_PARAMS_HELP = `:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int`

/**
 * The page `p` of the stream (the union of the sources it gives for the viewer) as the caller
 * may see it, newest first, as activity dicts without their data. `includeHidden`: the
 * include_hidden_activity parameter, where the action honours it; ckan: ignore_not_sysadmin
 * drops the flag for everyone else.
 */
export async function activityListPage(
  ctx: ActionContext,
  stream: (viewer: Viewer) => Source[],
  p: { offset?: number; limit?: number },
  includeHidden?: boolean,
) {
  const viewer = await viewerFor(ctx, ctx.user)
  const rows = await activityPage(ctx, stream(viewer), {
    viewer,
    ...activityPageOf(ctx.config, p),
    includeHidden: includeHidden && (!!ctx.user?.sysadmin || !!ctx.ignoreAuth),
  })
  return rows.map((r) => activityToDict(r, false))
}
