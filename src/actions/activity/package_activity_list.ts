// package_activity_list: the activity stream of one dataset, newest first.
import { defineAction } from '../action'
import { requireCanSeePackageActivity } from '../../auth/activity'
import { activityToDict } from '../../model/activity'
import { activityPage, viewerFor } from '../../model/activity-query'
import { packageStream } from '../../model/activity-sources'
import { loadPackage } from '../../model/package'
import { activityListParams, activityPageOf } from '../../validation/activity'

export const packageActivityList = defineAction({
  name: 'package_activity_list',
  readOnly: true,
  help: `Return a dataset's activity stream, newest first (without the datasets' details).

You must be allowed to see the dataset.

:param id: the id or name of the dataset
:type id: string
:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int
:param include_hidden_activity: also return activities by hidden users (the site user, or
    service.hide_activity_from_users), such as harvesting runs; sysadmins only, ignored for
    others (optional, default: False)
:type include_hidden_activity: bool
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: (ctx, input) => requireCanSeePackageActivity(ctx, input.id, false),
  params: activityListParams,
  async run(ctx, p) {
    const pkg = await loadPackage(ctx, p.id)
    const viewer = await viewerFor(ctx, ctx.user)
    const rows = await activityPage(ctx, packageStream(pkg.id), {
      viewer,
      ...activityPageOf(ctx.config, p),
      // ckan: ignore_not_sysadmin drops the flag for everyone else
      includeHidden: p.include_hidden_activity && (!!ctx.user?.sysadmin || !!ctx.ignoreAuth),
    })
    return rows.map((r) => activityToDict(r, false))
  },
})
