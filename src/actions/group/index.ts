// The group actions, for the registry.
import type { Action } from '../action'
import { groupAutocomplete } from './group_autocomplete'
import { groupCreate } from './group_create'
import { groupDelete } from './group_delete'
import { groupList } from './group_list'
import { groupListAuthz } from './group_list_authz'
import { groupPackageShow } from './group_package_show'
import { groupPatch } from './group_patch'
import { groupPurge } from './group_purge'
import { groupShow } from './group_show'
import { groupUpdate } from './group_update'

export const actions: Action<any, any>[] = [
  groupCreate,
  groupShow,
  groupList,
  groupUpdate,
  groupPatch,
  groupDelete,
  groupPurge,
  groupListAuthz,
  groupPackageShow,
  groupAutocomplete,
]
