// task_status_update_many: task_status_update for each item of a list, all in one write.
import { z } from 'zod'
import { defineAction } from '../action'
import { requireCanUpdateTaskStatus } from '../../auth/task-status'
import {
  checkTaskStatusInput,
  loadTaskStatusIfId,
  saveTaskStatuses,
  taskStatusList,
  taskStatusToDict,
  type TaskStatusWrite,
} from '../../model/task-status'

export const taskStatusUpdateMany = defineAction({
  name: 'task_status_update_many',
  readOnly: false,
  // ckan: each item is looked up (404) and then checked as task_status_update checks it
  allowAnonymous: true,
  help: `Create or update many task statuses at once (sysadmins only).

Each item is handled as task_status_update handles it, in order; either all of
them are saved or, when one fails, none.

:param data: the task status dictionaries (see task_status_update)
:type data: list of dictionaries
:returns: {"results": [the task statuses, in the order given]}
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const items = taskStatusList(input)
    if (items[0]) await loadTaskStatusIfId(ctx, items[0])
    // ckan checks nothing for an empty list; refusing it too costs clients nothing
    requireCanUpdateTaskStatus(ctx)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const writes: TaskStatusWrite[] = []
    for (const item of taskStatusList(input)) {
      const row = await loadTaskStatusIfId(ctx, item)
      writes.push({ row, input: checkTaskStatusInput(item) })
    }
    const saved = await saveTaskStatuses(ctx, writes)
    return { results: saved.map(taskStatusToDict) }
  },
})
