// task_status_delete: removes a task status (sysadmins only).
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { requireCanDeleteTaskStatus } from '../../auth/task-status'
import { taskStatuses } from '../../db/schema'
import { loadTaskStatus } from '../../model/task-status'

export const taskStatusDelete = defineAction({
  name: 'task_status_delete',
  readOnly: false,
  // ckan: an unknown id is a 404 before the caller is checked
  allowAnonymous: true,
  help: `Delete a task status.

Only sysadmins may delete task statuses.

:param id: the id of the task status to delete
:type id: string`,
  auth: async (ctx, input) => {
    await loadTaskStatus(ctx, input.id)
    requireCanDeleteTaskStatus(ctx)
  },
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    const row = await loadTaskStatus(ctx, input.id)
    await ctx.writer.write([ctx.db.delete(taskStatuses).where(eq(taskStatuses.id, row.id))])
    return null // ckan: task_status_delete returns nothing
  },
})
