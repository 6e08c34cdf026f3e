// The column profile job: computes a DataStore table's profile (datastore/profile.ts) for its
// current version and stores it. Requested after every write batch and load of the table; one job
// waits per table at a time (a burst of writes makes one profile, of the version it finds).
import { z } from 'zod'
import type { Deps } from '../context'
import { computeProfile, readProfile, saveProfile } from '../datastore/profile'
import { findTable } from '../datastore/registry'
import { defineJobKind, UnknownJobKind } from './job-kinds'
import { isoToMs } from '../lib/time'

export const PROFILE_KIND = 'datastore_profile'

export const datastoreProfileJob = defineJobKind({
  kind: PROFILE_KIND,
  payload: z.object({ resource_id: z.string().min(1) }).strict(),
  title: (p) => `profile: ${p.resource_id}`,
  async run(deps: Deps, { resource_id: id }) {
    const db = deps.datastore
    if (!db) return { resource_id: id, skipped: 'this deployment has no DataStore' }
    const t = await findTable(db, id)
    if (!t) return { resource_id: id, skipped: 'the table is gone' }
    const stored = await readProfile(db, id)
    if (stored?.version === t.version) return { resource_id: id, version: t.version, unchanged: true }
    const started = Date.now()
    const profile = await computeProfile(db, t, {
      exactRows: deps.config.int('service.datastore.profile.exact_rows'),
      deadline: started + deps.config.int('service.datastore.profile.timeout_seconds') * 1000,
    })
    const seconds = (Date.now() - started) / 1000
    await saveProfile(db, id, { version: t.version, computed: deps.now(), seconds, profile })
    return { resource_id: id, version: t.version, rows: profile.rows, seconds }
  },
})

/**
 * The pause after a profile before a write asks for the next one: ten times what the last took,
 * at least a minute. A table written without pause is not profiled back to back (each profile of
 * a big table reads all of it); the last version is profiled by the first write after the pause,
 * or by the first request for the profile (which never waits for the pause).
 */
export const coolDownMs = (lastSeconds: number) => Math.max(60_000, lastSeconds * 10_000)

/**
 * Queues a profile of `resourceId`'s table unless one is already waiting, or (`afterWrite`) the
 * last one was made less than its cool-down ago. Never fails the caller: the table was written
 * already, and a profile left stale is queued again by the next request for it.
 */
export async function requestProfile(
  deps: Pick<Deps, 'jobs' | 'read' | 'datastore'>,
  resourceId: string,
  opts: { afterWrite?: boolean } = { afterWrite: true },
): Promise<void> {
  try {
    if (opts.afterWrite && deps.datastore) {
      const { rows } = await deps.datastore.query('SELECT computed, seconds FROM _ds_profile WHERE table_id = ?', [resourceId])
      const last = rows[0]
      if (last && Date.now() - isoToMs(String(last[0])) < coolDownMs(Number(last[1]))) return
    }
    const [waiting] = await deps.read(
      `SELECT 1 FROM job WHERE status = 'queued' AND kind = ? AND json_extract(payload, '$.resource_id') = ? LIMIT 1`,
      [PROFILE_KIND, resourceId],
    )
    if (!waiting) await deps.jobs.enqueue({ kind: PROFILE_KIND, payload: { resource_id: resourceId } })
  } catch (e) {
    if (e instanceof UnknownJobKind) return // a deployment whose queue runs no profiles
    console.error(`could not queue the profile of ${resourceId}`, e)
  }
}
