// The group actions, for the registry.
import type { Action } from '../action'

export const actions: Action<any, any>[] = []
