// Harvesting in tests: a source's run from harvest_job_create to its end, with the app's job kinds.
import { drain } from '../../src/jobs/runner'
import { jobKinds } from '../../src/jobs/kinds'
import type { Caller, TestEnv } from './setup'

/** Creates a job for `source` (id or name), runs every queued job, and returns harvest_job_show. */
export async function runHarvest(t: TestEnv, source: string, as: Caller) {
  const job = await t.ok('harvest_job_create', { source_id: source }, as)
  await drainAll(t)
  return t.ok('harvest_job_show', { id: job.id }, as)
}

/** Runs queued jobs until none is left (gather queues import). */
export async function drainAll(t: TestEnv) {
  for (let i = 0; i < 10; i++) {
    const { ran } = await drain(t.deps.jobs, jobKinds, t.deps)
    if (!ran) return
  }
}
