// organization_create: a new organization; the creator becomes its admin.
import { createAction } from '../group/group_create'

export const organizationCreate = createAction({ name: 'organization_create', isOrg: true })
