// organization_delete: marks an organization deleted; its datasets lose their organization.
import { deleteAction } from '../group/group_delete'

export const organizationDelete = deleteAction({ name: 'organization_delete', isOrg: true })
