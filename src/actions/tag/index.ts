// The tag actions, for the registry.
import type { Action } from '../action'
import { tagAutocomplete } from './tag_autocomplete'
import { tagCreate } from './tag_create'
import { tagDelete } from './tag_delete'
import { tagList } from './tag_list'
import { tagSearch } from './tag_search'
import { tagShow } from './tag_show'

export const actions: Action<any, any>[] = [
  tagList,
  tagShow,
  tagSearch,
  tagAutocomplete,
  tagCreate,
  tagDelete,
]
