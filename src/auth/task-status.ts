// Who may change task statuses: sysadmins only, with CKAN's messages (anyone may read them).
import type { ActionContext } from '../context'
import { requireLoggedIn, requireSysadmin } from './caller'

/** ckan task_status_update auth (also what each item of task_status_update_many is checked by). */
export function requireCanUpdateTaskStatus(ctx: ActionContext) {
  requireLoggedIn(ctx, 'task_status_update')
  requireSysadmin(ctx, 'update task_status table')
}

/** ckan task_status_delete auth. */
export function requireCanDeleteTaskStatus(ctx: ActionContext) {
  requireLoggedIn(ctx, 'task_status_delete')
  requireSysadmin(ctx, 'delete task_status')
}
