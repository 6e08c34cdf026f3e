// task_status_update: creates or updates one task status (sysadmins only).
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanUpdateTaskStatus } from '../../auth/task-status'
import {
  checkTaskStatusInput,
  loadTaskStatusIfId,
  saveTaskStatuses,
  taskStatusToDict,
} from '../../model/task-status'

export const taskStatusUpdate = defineAction({
  name: 'task_status_update',
  readOnly: false,
  // ckan: an unknown id is a 404 before the caller is checked
  allowAnonymous: true,
  help: `Create or update a task status.

Only sysadmins may do this. With an id, that task status is updated; without one,
the task status with the same entity_id, task_type and key is updated, or a new
one created. Optional values that are left out keep their stored value (a new
task status gets an empty value and the current time as last_updated).

:param id: the id of the task status to update (optional)
:type id: string
:param entity_id: the id of the entity (e.g. a resource) the task is about
:type entity_id: string
:param entity_type: the type of the entity (e.g. 'resource')
:type entity_type: string
:param task_type: the type of task (e.g. 'qa')
:type task_type: string
:param key: the key of the status (e.g. 'openness_score')
:type key: string
:param value: the value (optional)
:type value: string
:param state: the state of the task (optional)
:type state: string
:param last_updated: when the task last ran, YYYY-MM-DDThh:mm:ss (optional)
:type last_updated: string
:param error: an error message (optional)
:type error: string
:returns: the task status
:rtype: dictionary`,
  auth: async (ctx, input) => {
    await loadTaskStatusIfId(ctx, input)
    requireCanUpdateTaskStatus(ctx)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const row = await loadTaskStatusIfId(ctx, input)
    const [saved] = await saveTaskStatuses(ctx, [{ row, input: checkTaskStatusInput(input) }])
    return taskStatusToDict(saved!)
  },
})
