// The rating action, for the registry.
import type { Action } from '../action'
import { ratingCreate } from './rating_create'

export const actions: Action<any, any>[] = [ratingCreate]
