// organization_activity_list: the activity stream of an organization and the datasets it owns.
import { groupActivityListAction } from './group_activity_list'

export const organizationActivityList = groupActivityListAction({
  name: 'organization_activity_list',
  isOrg: true,
})
