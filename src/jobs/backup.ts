// Scheduled backups (Node): a `backup` job enqueued when service.backup.interval_hours have passed
// since the last one, run by the job runners through the runtime's backup port (a child process
// running `npm run admin -- backup`, so the server's event loop never waits on the copy).
import { z } from 'zod'
import type { Deps } from '../context'
import { systemInfo } from '../db/schema'
import { addMs, isoToMs } from '../lib/time'
import { defineJobKind } from './job-kinds'

export const BACKUP_KIND = 'backup'
/** Its system_info key: when the last scheduled backup was enqueued. */
export const LAST_BACKUP_KEY = 'backup:last_enqueued'

export const backupJob = defineJobKind({
  kind: BACKUP_KIND,
  payload: z.object({}).strict(),
  title: () => 'backup',
  async run(deps: Deps) {
    if (!deps.backups)
      throw new Error('Backups are made on Node (service.backup.dir, or npm run admin -- backup); this runtime has none')
    return deps.backups.run()
  },
})

/**
 * Enqueues a backup when service.backup.dir is set, none is queued or running, and
 * service.backup.interval_hours have passed since the last was enqueued. Returns the job's id.
 */
export async function scheduleDueBackup(deps: Deps): Promise<string | null> {
  const c = deps.config
  if (!c.str('service.backup.dir') || !deps.backups) return null
  const hours = Math.max(1, c.int('service.backup.interval_hours'))
  const [last] = await deps.read('SELECT value FROM system_info WHERE key = ?', [LAST_BACKUP_KEY])
  const now = deps.now()
  if (last && isoToMs(now) < isoToMs(addMs(String(last.value), hours * 3_600_000))) return null
  const [busy] = await deps.read(`SELECT 1 FROM job WHERE kind = ? AND status IN ('queued', 'running') LIMIT 1`, [BACKUP_KIND])
  if (busy) return null
  const { id, statement } = deps.jobs.enqueueStatement({ kind: BACKUP_KIND, payload: {} })
  const mark = deps.db
    .insert(systemInfo)
    .values({ key: LAST_BACKUP_KEY, value: now })
    .onConflictDoUpdate({ target: systemInfo.key, set: { value: now } })
  await deps.writer.write([statement, mark])
  return id
}
