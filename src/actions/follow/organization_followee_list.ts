// organization_followee_list: the organizations a user follows (for that user and sysadmins).
import { followedGroupDicts } from './group_followee_list'
import { followeeListAction } from './user_followee_list'

export const organizationFolloweeList = followeeListAction({
  name: 'organization_followee_list',
  what: 'organizations',
  order: 'in the order they were followed',
  detail: `Each dict is the one organization_show gives;
deleted organizations are left out.`,
  list: followedGroupDicts(true),
})
