// The loader's status as xloader_status answers it: the task_status row with its job's details.
import type { ActionContext } from '../../context'
import { NotFound, ValidationError } from '../../errors'
import { findTaskStatusByKey } from '../../model/task-status'

const parse = (text: string | null | undefined): unknown => {
  if (!text) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export async function loadStatusDict(ctx: ActionContext, resourceId: string) {
  const task = await findTaskStatusByKey(ctx, resourceId, 'xloader', 'xloader')
  // ckan: xloader_status is task_status_show underneath, hence its 404 before any load
  if (!task) throw new NotFound('Task status not found')
  const value = (parse(task.value) ?? {}) as { job_id?: string; rows_loaded?: number; unchanged?: boolean }
  const error = parse(task.error) as { message?: string } | null
  const job = value.job_id ? await ctx.jobs.show(value.job_id) : undefined
  const logs: { timestamp: string | null; level: string; message: string }[] = []
  if (job?.started) logs.push({ timestamp: job.started, level: 'INFO', message: 'Load started' })
  if (task.state === 'complete' && value.unchanged)
    logs.push({ timestamp: task.last_updated, level: 'INFO', message: 'The file is unchanged: not loaded again' })
  else if (task.state === 'complete')
    logs.push({ timestamp: task.last_updated, level: 'INFO', message: `Loaded ${value.rows_loaded ?? 0} rows` })
  if (task.state === 'error' && error?.message)
    logs.push({ timestamp: task.last_updated, level: 'ERROR', message: error.message })
  return {
    status: task.state,
    job_id: value.job_id ?? null,
    job_url: null,
    last_updated: task.last_updated,
    rows_loaded: value.rows_loaded ?? 0,
    task_info: job
      ? {
          job_id: job.id,
          status: job.status,
          created: job.created,
          started: job.started,
          finished_timestamp: job.ended,
          rows_loaded: value.rows_loaded ?? 0,
          error: error,
          logs,
        }
      : null,
    error: error,
  }
}

/** resource_id (or id) of a status call; a sysadmin skips the auth rule that checks it first. */
export function requiredId(p: { resource_id?: string; id?: string }): string {
  const id = p.resource_id ?? p.id
  if (!id) throw ValidationError.field('resource_id', 'Missing value')
  return id
}
