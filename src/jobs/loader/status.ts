// The loader's progress in task_status (entity the resource, task type and key "xloader"), as
// ckanext-xloader keeps it; xloader_status reads it back.
import type { ActionContext } from '../../context'
import type { RawStatement } from '../../db/executor'
import { findTaskStatusByKey, saveTaskStatuses } from '../../model/task-status'

export type LoadState = 'pending' | 'running' | 'complete' | 'error'

export interface LoadStatus {
  /** The job doing the load; null for a load run in its own process (the admin CLI). */
  job_id: string | null
  state: LoadState
  rows_loaded: number
  error: string | null
  last_updated: string
  /** SHA-256 of the file the last successful load read (ckanext-xloader keeps an MD5 in resource.hash). */
  file_hash: string | null
  /** The rows that load loaded (what an unchanged file reports again). */
  file_rows: number
  /** Set when the load was skipped because the file had not changed. */
  unchanged?: boolean
}

/** What the last load recorded in the task status value (an unreadable value counts as none). */
export async function findLoadValue(
  ctx: ActionContext,
  resourceId: string,
): Promise<{ file_rows: number; file_hash: string | null }> {
  const task = await findTaskStatusByKey(ctx, resourceId, KEY.task_type, KEY.key)
  let v: { file_rows?: unknown; file_hash?: unknown } = {}
  try {
    v = JSON.parse(task?.value ?? '{}') ?? {}
  } catch {
    // a value some client wrote with task_status_update
  }
  return {
    file_rows: typeof v.file_rows === 'number' ? v.file_rows : 0,
    file_hash: typeof v.file_hash === 'string' ? v.file_hash : null,
  }
}

const KEY = { entity_type: 'resource', task_type: 'xloader', key: 'xloader' } as const

/** Records the load's state (one small write of its own). */
export async function saveLoadStatus(ctx: ActionContext, resourceId: string, s: LoadStatus) {
  await saveTaskStatuses(ctx, [
    {
      input: {
        entity_id: resourceId,
        ...KEY,
        value: JSON.stringify({
          job_id: s.job_id,
          rows_loaded: s.rows_loaded,
          file_hash: s.file_hash,
          file_rows: s.file_rows,
          ...(s.unchanged && { unchanged: true }),
        }),
        state: s.state,
        error: s.error === null ? '' : JSON.stringify({ message: s.error }),
        last_updated: s.last_updated,
      },
    },
  ])
}

/**
 * The "pending" status of a job just enqueued, for the same write batch as the enqueue. The last
 * load's file hash is kept, so that the job can tell an unchanged file.
 */
export function pendingStatusStatement(ctx: ActionContext, resourceId: string, jobId: string): RawStatement {
  return {
    sql: `INSERT INTO task_status (id, entity_id, entity_type, task_type, key, value, state, error, last_updated)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', '', ?)
      ON CONFLICT (entity_id, task_type, key) DO UPDATE SET
        value = CASE WHEN json_valid(task_status.value)
          THEN json_set(excluded.value,
            '$.file_hash', json_extract(task_status.value, '$.file_hash'),
            '$.file_rows', json_extract(task_status.value, '$.file_rows'))
          ELSE excluded.value END,
        state = 'pending', error = '', last_updated = excluded.last_updated`,
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
