// organization_member_delete: takes a user out of an organization.
import { memberDeleteAction } from './group_member_delete'

export const organizationMemberDelete = memberDeleteAction({
  name: 'organization_member_delete',
  isOrg: true,
})
