// dashboard_activity_list: the caller's dashboard, each activity marked new or not.
import { z } from 'zod'
import { defineAction } from '../action'
import { listsCarryData, PAGE_PARAMS_HELP } from '../activity-list'
import { requireDashboardUser } from '../../auth/activity'
import { dashboardActivities } from '../../model/dashboard'
import { activityPageOf, pageParams } from '../../validation/activity'

export const dashboardActivityList = defineAction({
  name: 'dashboard_activity_list',
  readOnly: true,
  help: `Return your dashboard's activity stream, newest first: your own activities, and those
of the users, datasets, groups and organizations you follow (with the datasets of those
groups and organizations).

Each activity has is_new: true when it happened after you last marked your dashboard seen
(dashboard_mark_activities_old); your own activities are never new. Each activity's data holds
only the title of its object under service.api_compat 2.9, and the whole object as it was after
the activity under 2.10 and later.

${PAGE_PARAMS_HELP}
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: (ctx) => void requireDashboardUser(ctx),
  params: z.object(pageParams),
  async run(ctx, p) {
    return dashboardActivities(
      ctx,
      requireDashboardUser(ctx),
      activityPageOf(ctx.config, p),
      listsCarryData(ctx),
    )
  },
})
