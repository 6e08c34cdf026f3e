// The change feed (issue 19): changes_list.
import type { Action } from '../action'
import { changesList } from './changes_list'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const actions: Action<any, any>[] = [changesList]
