// New harvest jobs: one asked for (harvest_job_create, the CLI) or due by a source's frequency
// (the Node server's timer, the Workers Cron Trigger). At most one job per source is waiting or
// running: a unique index refuses a second, whoever asks.
import type { Deps } from '../../context'
import type { RawStatement } from '../../db/executor'
import { frequencyMs, insertJobStatement, listJobs, openJob, sourceIds, logStatement } from '../../model/harvest'
import { isoToMs } from '../../lib/time'
import { HARVEST_GATHER_KIND, loadSource } from './run'

/** The statements that create a harvest job and queue its gather stage (one batch). */
export function newJobStatements(deps: Deps, sourceId: string): { id: string; statements: RawStatement[] } {
  const id = deps.newId()
  const queued = deps.jobs.enqueueStatement({ kind: HARVEST_GATHER_KIND, payload: { harvest_job_id: id } })
  return {
    id,
    statements: [
      insertJobStatement({ id, source_id: sourceId, created: deps.now(), queue_job_id: queued.id }),
      queued.statement,
    ],
  }
}

/** True when the database refused a second open job for a source (the unique index). */
export function isOpenJobClash(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const msg = String((cur as Error).message ?? cur)
    if (msg.includes('harvest_job.source_id') || msg.includes('harvest_job_open_idx')) return true
  }
  return false
}

/**
 * Creates jobs for the active sources whose frequency makes them due: never run, or their last
 * job started longer ago than the frequency's gap. Returns the ids of the sources it started.
 */
export async function scheduleDueHarvests(deps: Deps): Promise<string[]> {
  const started: string[] = []
  const now = isoToMs(deps.now())
  for (const id of await sourceIds(deps)) {
    const source = await loadSource(deps, id)
    if (!source) continue
    const gap = frequencyMs(source.frequency)
    if (gap === undefined) continue
    if (await openJob(deps, id)) continue
    const [last] = await listJobs(deps, { sourceId: id, limit: 1 })
    if (last && isoToMs(last.created) + gap > now) continue
    const job = newJobStatements(deps, id)
    try {
      await deps.writer.write([
        ...job.statements,
        logStatement(deps.now(), 'INFO', `Harvest job ${job.id} scheduled for ${source.name} (${source.frequency})`),
      ])
      started.push(id)
    } catch (e) {
      if (!isOpenJobClash(e)) throw e // another process scheduled it first
    }
  }
  return started
}
