// The organization actions, for the registry.
import type { Action } from '../action'
import { organizationAutocomplete } from './organization_autocomplete'
import { organizationCreate } from './organization_create'
import { organizationDelete } from './organization_delete'
import { organizationList } from './organization_list'
import { organizationListForUser } from './organization_list_for_user'
import { organizationPatch } from './organization_patch'
import { organizationPurge } from './organization_purge'
import { organizationShow } from './organization_show'
import { organizationUpdate } from './organization_update'

export const actions: Action<any, any>[] = [
  organizationCreate,
  organizationShow,
  organizationList,
  organizationUpdate,
  organizationPatch,
  organizationDelete,
  organizationPurge,
  organizationListForUser,
  organizationAutocomplete,
]
