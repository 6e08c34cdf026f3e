// The term translation actions, for the registry.
import type { Action } from '../action'
import { termTranslationShow } from './term_translation_show'
import { termTranslationUpdate } from './term_translation_update'
import { termTranslationUpdateMany } from './term_translation_update_many'

export const actions: Action<any, any>[] = [
  termTranslationShow,
  termTranslationUpdate,
  termTranslationUpdateMany,
]
