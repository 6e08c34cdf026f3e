// dashboard_new_activities_count: how many activities on the caller's dashboard are new.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireDashboardUser } from '../../auth/activity'
import { dashboardActivities } from '../../model/dashboard'
import { activityPageOf, pageParams } from '../../validation/activity'

export const dashboardNewActivitiesCount = defineAction({
  name: 'dashboard_new_activities_count',
  readOnly: true,
  help: `Return the number of new activities on your dashboard (see dashboard_activity_list);
your own activities are not counted.

Only the first page of the dashboard is counted, so the number is at most
service.activity_list_limit (31).

:rtype: int`,
  auth: (ctx) => void requireDashboardUser(ctx),
  // ckan: the data dict is passed on to dashboard_activity_list, paging included
  params: z.object(pageParams),
  async run(ctx, p) {
    const page = await dashboardActivities(
      ctx,
      requireDashboardUser(ctx),
      activityPageOf(ctx.config, p),
    )
    return page.filter((a) => a.is_new).length
  },
})
