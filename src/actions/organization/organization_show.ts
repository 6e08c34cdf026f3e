// organization_show: one organization with its extras, parents, members and (on request) datasets.
import { showAction } from '../group/group_show'

export const organizationShow = showAction({ name: 'organization_show', isOrg: true })
