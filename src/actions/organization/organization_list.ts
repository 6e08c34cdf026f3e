// organization_list: the names (or dicts) of active organizations, filtered, sorted and paged.
import { listAction } from '../group/group_list'

export const organizationList = listAction({ name: 'organization_list', isOrg: true })
