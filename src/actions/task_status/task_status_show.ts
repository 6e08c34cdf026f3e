// task_status_show: one task status, by id or by entity_id, task_type and key.
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound, ValidationError } from '../../errors'
import { asText } from '../../model/package-validate'
import {
  findTaskStatus,
  findTaskStatusByKey,
  taskStatusToDict,
  type TaskStatusRow,
} from '../../model/task-status'
import { MISSING } from '../../validation/fields'

export const taskStatusShow = defineAction({
  name: 'task_status_show',
  readOnly: true,
  auth: 'anyone',
  help: `Return a task status.

Either the id parameter or the entity_id, task_type and key parameters must be given.

:param id: the id of the task status (optional)
:type id: string
:param entity_id: the entity_id of the task status (optional)
:type entity_id: string
:param task_type: the task_type of the task status (optional)
:type task_type: string
:param key: the key of the task status (optional)
:type key: string
:rtype: dictionary`,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    let row: TaskStatusRow | undefined
    if (input.id) row = await findTaskStatus(ctx, input.id)
    else {
      // ckan: the three keys are demanded one at a time
      for (const k of ['entity_id', 'task_type', 'key'])
        if (input[k] === undefined) throw ValidationError.field(k, MISSING)
      const { entity_id, task_type, key } = input
      // ckan compares with = NULL, which matches nothing
      if (entity_id !== null && task_type !== null && key !== null)
        row = await findTaskStatusByKey(ctx, asText(entity_id), asText(task_type), asText(key))
    }
    if (!row) throw new NotFound()
    return taskStatusToDict(row)
  },
})
