// recently_changed_packages_activity_list: the site-wide stream of dataset activities.
import { z } from 'zod'
import { defineAction } from '../action'
import { activityToDict } from '../../model/activity'
import { activityPage, viewerFor } from '../../model/activity-query'
import { recentPackagesStream } from '../../model/activity-sources'
import { activityPageOf, pageParams } from '../../validation/activity'

export const recentlyChangedPackagesActivityList = defineAction({
  name: 'recently_changed_packages_activity_list',
  readOnly: true,
  help: `Return the activities of every dataset on the site (new, changed and deleted datasets),
newest first.

Activities of datasets that are private now are shown only to those who may read them.

:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: 'anyone',
  params: z.object(pageParams),
  async run(ctx, p) {
    const viewer = await viewerFor(ctx, ctx.user)
    const rows = await activityPage(ctx, recentPackagesStream(), {
      viewer,
      ...activityPageOf(ctx.config, p),
    })
    return rows.map((r) => activityToDict(r, false))
  },
})
