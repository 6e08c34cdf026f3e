// The dashboard actions, for the registry.
import type { Action } from '../action'
import { dashboardActivityList } from './dashboard_activity_list'
import { dashboardMarkActivitiesOld } from './dashboard_mark_activities_old'
import { dashboardNewActivitiesCount } from './dashboard_new_activities_count'
import { sendEmailNotifications } from './send_email_notifications'

export const actions: Action<any, any>[] = [
  dashboardActivityList,
  dashboardNewActivitiesCount,
  dashboardMarkActivitiesOld,
  sendEmailNotifications,
]
