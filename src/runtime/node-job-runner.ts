// Node: runs background jobs inside the server process, polling the queue on a timer.
import type { JobKinds } from '../jobs/job-kinds'
import type { JobQueue } from '../jobs/job-queue'
import { drain, type RunOptions, type RunOutcome } from '../jobs/runner'

export interface NodeJobRunnerOptions extends RunOptions {
  /** Pause between polls of an empty queue (default 1000 ms); wake() cuts it short. */
  pollMs?: number
  /** Every outcome but 'idle'; by default failures and queue errors go to console.error. */
  onOutcome?: (outcome: RunOutcome) => void
  /** Polling keeps the process alive until stop() (a worker process); default: it does not. */
  keepAlive?: boolean
}

export interface NodeJobRunner {
  /** Starts polling (at once). */
  start(): void
  /** Stops polling; resolves once the job in progress, if any, has been recorded. */
  stop(): Promise<void>
  /** Polls now (after an enqueue in this process) instead of at the next tick. */
  wake(): void
  readonly running: boolean
}

function logOutcome(outcome: RunOutcome) {
  if (outcome.status === 'failed')
    console.error(`job ${outcome.job.id} (${outcome.job.kind}) failed:`, outcome.error)
  else if (outcome.status === 'error') console.error('job queue error:', outcome.error)
}

/**
 * Runs the jobs of `opts.queues` one at a time: each poll drains what is waiting, then sleeps
 * `pollMs`. A queue error (database unreachable) is reported and retried at the next poll.
 */
export function nodeJobRunner<D>(
  queue: JobQueue,
  kinds: JobKinds<D>,
  deps: D,
  opts: NodeJobRunnerOptions = {},
): NodeJobRunner {
  const pollMs = opts.pollMs ?? 1000
  const onOutcome = opts.onOutcome ?? logOutcome
  let started = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let active: Promise<void> | undefined
  let again = false

  function schedule(ms: number) {
    if (!started) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(tick, ms)
    if (!opts.keepAlive) timer.unref?.() // in a server, polling alone must not keep the process alive
  }

  function tick() {
    timer = undefined
    if (active) {
      again = true
      return
    }
    active = (async () => {
      do {
        again = false
        // stop() lets the job in hand finish but claims no other
        await drain(queue, kinds, deps, { ...opts, onOutcome, stopped: () => !started })
      } while (again && started)
    })()
      .catch((e: unknown) => onOutcome({ status: 'error', error: e }))
      .finally(() => {
        active = undefined
        schedule(pollMs)
      })
  }

  return {
    start() {
      if (started) return
      started = true
      schedule(0)
    },
    async stop() {
      started = false
      if (timer) clearTimeout(timer)
      timer = undefined
      await active
    },
    wake() {
      if (!started) return
      if (active) again = true
      else schedule(0)
    },
    get running() {
      return started
    },
  }
}

/**
 * `concurrency` runners over one queue (each claim is atomic, so they never share a job): up to
 * that many jobs run at once. Concurrency 0 gives a pool that never runs anything.
 */
export function nodeJobRunners<D>(
  queue: JobQueue,
  kinds: JobKinds<D>,
  deps: D,
  opts: NodeJobRunnerOptions & { concurrency: number },
): NodeJobRunner {
  const runners = Array.from({ length: Math.max(0, opts.concurrency) }, () =>
    nodeJobRunner(queue, kinds, deps, opts),
  )
  let started = false
  return {
    start() {
      started = runners.length > 0
      for (const r of runners) r.start()
    },
    async stop() {
      started = false
      await Promise.all(runners.map((r) => r.stop()))
    },
    wake() {
      for (const r of runners) r.wake()
    },
    get running() {
      return started
    },
  }
}
