// The activity stream actions, for the registry.
import type { Action } from '../action'
import { activityCreate } from './activity_create'
import { activityDataShow } from './activity_data_show'
import { activityDiff } from './activity_diff'
import { activityShow } from './activity_show'
import { groupActivityList } from './group_activity_list'
import { organizationActivityList } from './organization_activity_list'
import { packageActivityList } from './package_activity_list'
import { recentlyChangedPackagesActivityList } from './recently_changed_packages_activity_list'
import { userActivityList } from './user_activity_list'

export const actions: Action<any, any>[] = [
  userActivityList,
  packageActivityList,
  groupActivityList,
  organizationActivityList,
  recentlyChangedPackagesActivityList,
  activityShow,
  activityDataShow,
  activityDiff,
  activityCreate,
]
