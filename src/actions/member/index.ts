// The member actions, for the registry.
import type { Action } from '../action'
import { groupMemberCreate } from './group_member_create'
import { groupMemberDelete } from './group_member_delete'
import { memberCreate } from './member_create'
import { memberDelete } from './member_delete'
import { memberList } from './member_list'
import { memberRolesList } from './member_roles_list'
import { organizationMemberCreate } from './organization_member_create'
import { organizationMemberDelete } from './organization_member_delete'

export const actions: Action<any, any>[] = [
  memberCreate,
  memberDelete,
  memberList,
  memberRolesList,
  groupMemberCreate,
  groupMemberDelete,
  organizationMemberCreate,
  organizationMemberDelete,
]
