// dashboard_mark_activities_old: mark everything on the caller's dashboard as seen.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireDashboardUser } from '../../auth/activity'
import { markSeenStatements } from '../../model/dashboard'

export const dashboardMarkActivitiesOld = defineAction({
  name: 'dashboard_mark_activities_old',
  readOnly: false,
  help: `Mark all the activities on your dashboard as seen, so that
dashboard_new_activities_count starts again from 0.`,
  auth: (ctx) => void requireDashboardUser(ctx),
  params: z.looseObject({}),
  async run(ctx) {
    await ctx.writer.write(markSeenStatements(ctx, requireDashboardUser(ctx)))
    return null
  },
})
