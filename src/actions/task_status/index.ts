// The task status actions, for the registry.
import type { Action } from '../action'
import { taskStatusDelete } from './task_status_delete'
import { taskStatusShow } from './task_status_show'
import { taskStatusUpdate } from './task_status_update'
import { taskStatusUpdateMany } from './task_status_update_many'

export const actions: Action<any, any>[] = [
  taskStatusShow,
  taskStatusUpdate,
  taskStatusUpdateMany,
  taskStatusDelete,
]
