// Runs queued jobs: claim one, run its kind's handler, record the outcome (portable; Node polls with it).
import type { Config } from '../config/load'
import { DEFAULT_QUEUE, type ClaimedJob, type JobQueue } from './job-queue'
import type { JobKinds } from './job-kinds'

export interface RunOptions {
  /** Queues to take jobs from, in no particular priority (oldest job first). Default: ['default']. */
  queues?: string[]
  /** How long a claim lasts without renewal; renewed every half of it while the handler runs. */
  leaseMs?: number
}

export type RunOutcome =
  /** No job was waiting. */
  | { status: 'idle' }
  | { status: 'finished'; job: ClaimedJob; result: unknown }
  | { status: 'failed'; job: ClaimedJob; error: unknown }
  /** The handler ended after its lease had passed to another runner: nothing was recorded. */
  | { status: 'lost'; job: ClaimedJob }
  /** The queue itself failed (e.g. the database is unreachable): nothing was recorded. */
  | { status: 'error'; job?: ClaimedJob; error: unknown }

export const DEFAULT_LEASE_MS = 5 * 60_000

/** The runner settings of the service.jobs.* options (every runtime's runners read the same). */
export function runOptionsFrom(config: Config): Required<RunOptions> & {
  pollMs: number
  concurrency: number
} {
  const queues = config.list('service.jobs.queues')
  const seconds = config.int('service.jobs.lease_seconds')
  const pollMs = config.int('service.jobs.poll_ms')
  const concurrency = config.int('service.jobs.concurrency')
  return {
    queues: queues.length ? queues : [DEFAULT_QUEUE],
    leaseMs: seconds > 0 ? seconds * 1000 : DEFAULT_LEASE_MS,
    pollMs: pollMs > 0 ? pollMs : 1000,
    concurrency: concurrency > 0 ? concurrency : 0,
  }
}

/**
 * Claims one job and runs it. The handler's result finishes the job; a throw (or an unknown
 * kind, or a payload its schema now rejects) fails it with the error. Never throws: every
 * outcome, the queue's own failures included, is returned.
 */
export async function runOnce<D>(
  queue: JobQueue,
  kinds: JobKinds<D>,
  deps: D,
  opts: RunOptions = {},
): Promise<RunOutcome> {
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS
  let job: ClaimedJob | undefined
  try {
    job = await queue.claim(opts.queues ?? [DEFAULT_QUEUE], leaseMs)
  } catch (error) {
    return { status: 'error', error }
  }
  if (!job) return { status: 'idle' }
  const claim = job
  // Keeps the lease while the handler runs, so no other runner takes the job meanwhile.
  const heartbeat = setInterval(
    () => void queue.renew(claim, leaseMs).catch(() => {}),
    Math.max(1, Math.floor(leaseMs / 2)),
  )
  let outcome: { ok: true; result: unknown } | { ok: false; error: unknown }
  try {
    const kind = kinds.get(job.kind)
    const result = await kind.run(deps, kinds.parse(job.kind, job.payload), job)
    // a result JSON cannot hold (BigInt, a cycle) fails the job as a throw would
    JSON.stringify(result ?? null)
    outcome = { ok: true, result }
  } catch (error) {
    outcome = { ok: false, error }
  } finally {
    clearInterval(heartbeat)
  }
  try {
    if (outcome.ok) {
      if (await queue.finish(claim, outcome.result))
        return { status: 'finished', job: claim, result: outcome.result }
      return { status: 'lost', job: claim }
    }
    if (await queue.fail(claim, outcome.error))
      return { status: 'failed', job: claim, error: outcome.error }
    return { status: 'lost', job: claim }
  } catch (error) {
    return { status: 'error', job: claim, error }
  }
}

export interface DrainOptions extends RunOptions {
  /** Stop after this many jobs. */
  maxJobs?: number
  /** Stop claiming once this many ms have passed (a Workers scheduled handler's budget). */
  budgetMs?: number
  /** Called with every outcome but 'idle'. */
  onOutcome?: (outcome: RunOutcome) => void
  /** Asked before each claim: true stops the drain (a runner that is shutting down). */
  stopped?: () => boolean
}

/**
 * Runs jobs one after another until none is waiting, the queue fails, or a limit is reached;
 * returns the number of jobs run. For a Workers scheduled handler, or a runner's poll.
 */
export async function drain<D>(
  queue: JobQueue,
  kinds: JobKinds<D>,
  deps: D,
  opts: DrainOptions = {},
): Promise<{ ran: number; last: RunOutcome }> {
  const started = Date.now()
  let ran = 0
  let last: RunOutcome = { status: 'idle' }
  for (;;) {
    if (opts.stopped?.()) return { ran, last }
    const outcome = (last = await runOnce(queue, kinds, deps, opts))
    if (outcome.status === 'idle') return { ran, last: outcome }
    if (outcome.job) ran++
    opts.onOutcome?.(outcome)
    if (outcome.status === 'error') return { ran, last: outcome }
    if (opts.maxJobs !== undefined && ran >= opts.maxJobs) return { ran, last: outcome }
    if (opts.budgetMs !== undefined && Date.now() - started >= opts.budgetMs)
      return { ran, last: outcome }
  }
}

/**
 * Runs jobs until none is waiting, a limit is reached or the queue fails, like drain(), but with
 * services of their own for every job: `open()` is called before each claim (a Workers scheduled
 * event, where no I/O object may outlive the job it served). Returns the number of jobs run.
 */
export async function drainEach<D extends { jobs: JobQueue }>(
  open: () => Promise<D>,
  kinds: JobKinds<D>,
  opts: DrainOptions = {},
): Promise<{ ran: number; last: RunOutcome }> {
  const started = Date.now()
  let ran = 0
  let last: RunOutcome = { status: 'idle' }
  for (;;) {
    if (opts.stopped?.()) return { ran, last }
    let deps: D
    try {
      deps = await open()
    } catch (error) {
      last = { status: 'error', error }
      opts.onOutcome?.(last)
      return { ran, last }
    }
    const outcome = (last = await runOnce(deps.jobs, kinds, deps, opts))
    if (outcome.status === 'idle') return { ran, last }
    if (outcome.job) ran++
    opts.onOutcome?.(outcome)
    if (outcome.status === 'error') return { ran, last }
    if (opts.maxJobs !== undefined && ran >= opts.maxJobs) return { ran, last }
    if (opts.budgetMs !== undefined && Date.now() - started >= opts.budgetMs) return { ran, last }
  }
}
