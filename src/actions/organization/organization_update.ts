// organization_update: replaces an organization's fields and memberships.
import { updateAction } from '../group/group_update'

export const organizationUpdate = updateAction({
  name: 'organization_update',
  isOrg: true,
  partial: false,
})
