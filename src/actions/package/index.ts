// The dataset (package) actions, for the registry.
import type { Action } from '../action'
import { packageShow } from './package_show'

export const actions: Action<any, any>[] = [packageShow]
