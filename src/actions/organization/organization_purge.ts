// organization_purge: removes an organization for good; its datasets remain without organization.
import { purgeAction } from '../group/group_purge'

export const organizationPurge = purgeAction({ name: 'organization_purge', isOrg: true })
