// The vocabulary actions, for the registry.
import type { Action } from '../action'
import { vocabularyCreate } from './vocabulary_create'
import { vocabularyDelete } from './vocabulary_delete'
import { vocabularyList } from './vocabulary_list'
import { vocabularyShow } from './vocabulary_show'
import { vocabularyUpdate } from './vocabulary_update'

export const actions: Action<any, any>[] = [
  vocabularyList,
  vocabularyShow,
  vocabularyCreate,
  vocabularyUpdate,
  vocabularyDelete,
]
