// organization_member_create: gives a user a role in an organization.
import { memberCreateAction } from './group_member_create'

export const organizationMemberCreate = memberCreateAction({
  name: 'organization_member_create',
  isOrg: true,
})
