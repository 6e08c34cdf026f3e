// The loader's progress in task_status (entity the resource, task type and key "xloader"), as
// ckanext-xloader keeps it; xloader_status reads it back.
import type { ActionContext } from '../../context'
import type { RawStatement } from '../../db/executor'
import { saveTaskStatuses } from '../../model/task-status'

export type LoadState = 'pending' | 'running' | 'complete' | 'error'

export interface LoadStatus {
  job_id: string
  state: LoadState
  rows_loaded: number
  error: string | null
  last_updated: string
}

const KEY = { entity_type: 'resource', task_type: 'xloader', key: 'xloader' } as const

/** Records the load's state (one small write of its own). */
export async function saveLoadStatus(ctx: ActionContext, resourceId: string, s: LoadStatus) {
  await saveTaskStatuses(ctx, [
    {
      input: {
        entity_id: resourceId,
        ...KEY,
        value: JSON.stringify({ job_id: s.job_id, rows_loaded: s.rows_loaded }),
        state: s.state,
        error: s.error === null ? '' : JSON.stringify({ message: s.error }),
        last_updated: s.last_updated,
      },
    },
  ])
}

/** The "pending" status of a job just enqueued, for the same write batch as the enqueue. */
export function pendingStatusStatement(ctx: ActionContext, resourceId: string, jobId: string): RawStatement {
  return {
    sql: `INSERT INTO task_status (id, entity_id, entity_type, task_type, key, value, state, error, last_updated)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', '', ?)
      ON CONFLICT (entity_id, task_type, key) DO UPDATE SET
        value = excluded.value, state = 'pending', error = '', last_updated = excluded.last_updated`,
    args: [
      ctx.newId(),
      resourceId,
      KEY.entity_type,
      KEY.task_type,
      KEY.key,
      JSON.stringify({ job_id: jobId, rows_loaded: 0 }),
      ctx.now(),
    ],
  }
}
