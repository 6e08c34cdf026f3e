// When a resource write starts a load: a tabular file that was uploaded anew or linked at a new
// URL (ckanext-xloader's "url changed or upload" rule), enqueued in the write's own batch.
import type { ActionContext } from '../../context'
import type { RawStatement } from '../../db/executor'
import { UnknownJobKind } from '../job-kinds'
import { loadableKind } from './formats'
import { pendingStatusStatement } from './status'

type Res = Record<string, unknown>

/** Whether this change of a resource (`before` undefined: created) calls for a new load. */
export function needsLoad(before: Res | undefined, after: Res): boolean {
  if (after.url_type === 'datastore' || !after.url || !loadableKind(after)) return false
  if (!before) return true
  if (before.url !== after.url) return true
  if (!loadableKind(before)) return true // it just became tabular
  // a new upload under the same name: the file's size or time changed
  return (
    after.url_type === 'upload' &&
    (before.size !== after.size || before.last_modified !== after.last_modified)
  )
}

/**
 * The statements enqueuing a load of `resourceId` (job and "pending" task status). None when
 * this deployment's queue does not run the loader's kind.
 */
export function loadJobStatements(
  ctx: ActionContext,
  resourceId: string,
  payload: Record<string, unknown> = {},
): RawStatement[] {
  try {
    const { id, statement } = ctx.jobs.enqueueStatement({
      kind: 'xloader',
      payload: { ...payload, resource_id: resourceId },
    })
    return [statement, pendingStatusStatement(ctx, resourceId, id)]
  } catch (e) {
    if (e instanceof UnknownJobKind) return []
    throw e
  }
}

/**
 * The load a resource write causes, if any (see needsLoad). A new upload's file reaches its key
 * only after the write commits, and the job may start before that: it names the file it is for
 * (hash and size), and the load waits for that file instead of reading the one it replaces.
 */
export function loadOnResourceWrite(
  ctx: ActionContext,
  before: Res | undefined,
  after: Res,
  upload?: { sha256: string; size: number },
): RawStatement[] {
  if (!needsLoad(before, after)) return []
  return loadJobStatements(ctx, String(after.id), upload ? { file: { sha256: upload.sha256, size: upload.size } } : {})
}
