// Issue 33: scheduled backups (service.backup.*): the server enqueues a backup job once the
// interval has passed, the job runners make it in a child process (npm run admin -- backup) and
// keep service.backup.keep of them; where no backup port exists (Workers) the job fails saying so.
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { backupJob, LAST_BACKUP_KEY, scheduleDueBackup } from '../../src/jobs/backup'
import { jobKinds } from '../../src/jobs/kinds'
import { drain } from '../../src/jobs/runner'
import { addMs } from '../../src/lib/time'
import { nodeBackupPort } from '../../src/runtime/node-backup'
import { setup } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

describe('scheduled backups', () => {
  it('enqueue a backup when the interval has passed, once, and the runner makes it with rotation', async () => {
    const dir = join(tempDir('ckan-edge-scheduled-backups-'), 'backups')
    const t = await setup({ 'service.backup.dir': dir, 'service.backup.keep': '2', 'service.backup.interval_hours': '24' })
    const env = { ...process.env, DATABASE_URL: `file:${t.file}`, SERVICE__STORAGE_PATH: join(dirname(t.file), 'uploads') }
    t.deps.backups = nodeBackupPort(t.deps.config, env)
    const admin = await t.make.sysadmin()
    await t.make.dataset(admin)

    const first = await scheduleDueBackup(t.deps)
    expect(first).toBeTruthy()
    // one at a time, and not again before the interval
    expect(await scheduleDueBackup(t.deps)).toBeNull()
    await drain(t.deps.jobs, jobKinds, t.deps)
    const job = await t.deps.jobs.show(first!)
    expect(job?.status, job?.error ?? '').toBe('finished')
    const made = job!.result as { path: string; summary: string }
    expect(existsSync(join(made.path, 'manifest.json'))).toBe(true)
    expect(made.summary).toMatch(/^Backup .*: catalogue/)
    expect(await scheduleDueBackup(t.deps)).toBeNull()

    // a day later: again; with keep 2 the oldest goes
    for (let i = 0; i < 2; i++) {
      await t.deps.db.run(
        (await import('drizzle-orm')).sql`UPDATE system_info SET value = ${addMs(t.deps.now(), -25 * 3_600_000)} WHERE key = ${LAST_BACKUP_KEY}`,
      )
      const id = await scheduleDueBackup(t.deps)
      expect(id).toBeTruthy()
      await drain(t.deps.jobs, jobKinds, t.deps)
      expect((await t.deps.jobs.show(id!))?.status).toBe('finished')
    }
    expect(readdirSync(dir).filter((n) => !n.startsWith('.')).length).toBe(2)
    expect(existsSync(made.path)).toBe(false)
  }, 120_000)

  it('enqueue nothing without service.backup.dir, and a backup job fails clearly where there is no backup port', async () => {
    const t = await setup()
    expect(await scheduleDueBackup(t.deps)).toBeNull()
    const job = await t.deps.jobs.enqueue({ kind: backupJob.kind, payload: {} })
    await drain(t.deps.jobs, jobKinds, t.deps)
    const failed = await t.deps.jobs.show(job.id)
    expect(failed?.status).toBe('failed')
    expect(failed?.error).toMatch(/Backups are made on Node/)
  })
})
