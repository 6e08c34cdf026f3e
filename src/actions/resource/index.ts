// The resource actions, for the registry.
import type { Action } from '../action'
import { formatAutocomplete } from './format_autocomplete'
import { resourceSearch } from './resource_search'
import { resourceCreate } from './resource_create'
import { resourceDelete } from './resource_delete'
import { resourcePatch } from './resource_patch'
import { resourceShow } from './resource_show'
import { resourceUpdate } from './resource_update'

export const actions: Action<any, any>[] = [
  resourceCreate,
  resourceShow,
  resourceUpdate,
  resourcePatch,
  resourceDelete,
  resourceSearch,
  formatAutocomplete,
]
