// Background jobs kept in the catalogue database: enqueue in a write's own batch, leased claims, CKAN's job dicts.
import { addMs, isoToMs } from '../lib/time'
import { isBusy } from '../db/busy'
import type { Client, InValue, Row } from '@libsql/client'
import type { RawStatement } from '../db/executor'
import type { JobKinds } from './job-kinds'
import { isQueueName } from '../validation/fields'

export { isQueueName }

/** ckan: the queue jobs go to when none is named. */
export const DEFAULT_QUEUE = 'default'

export type JobStatus = 'queued' | 'running' | 'finished' | 'failed'

export interface Job {
  id: string
  queue: string
  title: string | null
  kind: string
  payload: unknown
  status: JobStatus
  /** Timestamps from deps.now(): CKAN's naive UTC ISO format. */
  created: string
  started: string | null
  ended: string | null
  /** Why the job failed (the error's stack or message). */
  error: string | null
  /** How many times it was claimed. */
  attempts: number
  lease_until: string | null
  /** The handler's return value. */
  result: unknown
}

/** A job as its claimer holds it: `lease` proves the claim to finish() and fail(). */
export interface ClaimedJob extends Job {
  status: 'running'
  lease: string
  lease_until: string
}

/** A job id, or a claim (id and lease): with a lease, only that claim may settle the job. */
export type JobRef = string | { id: string; lease: string }

export interface EnqueueInput {
  kind: string
  payload?: unknown
  queue?: string
  title?: string
}

export interface JobQueue {
  /**
   * The INSERT that enqueues a job, for the caller's own write batch (`ctx.writer.write([...,
   * statement])`), so the job exists if and only if that write commits.
   * @throws UnknownJobKind, InvalidJobPayload, TypeError (bad queue name)
   */
  enqueueStatement(input: EnqueueInput): { id: string; statement: RawStatement }
  /** Enqueues a job on its own. */
  enqueue(input: EnqueueInput): Promise<Job>
  /**
   * Takes the oldest job of these queues that is queued, or running with an expired lease (its
   * runner died), marks it running under a new lease of `leaseMs`, and returns it. One statement,
   * so two processes never get the same job. A job whose expired lease already had `maxAttempts`
   * claims is failed instead of claimed again.
   */
  claim(queues: string[], leaseMs: number): Promise<ClaimedJob | undefined>
  /** Extends a claim's lease; false when the claim is no longer the job's. */
  renew(job: { id: string; lease: string }, leaseMs: number): Promise<boolean>
  /** Marks a running job finished with its result (JSON); false when it was not running (or the lease is not its). */
  finish(job: JobRef, result?: unknown): Promise<boolean>
  /** Marks a running job failed with the error; false when it was not running (or the lease is not its). */
  fail(job: JobRef, error: unknown): Promise<boolean>
  /**
   * Jobs oldest first; by default the queued ones of every queue (CKAN's job_list). `latest`:
   * only the `latest` jobs that ended last, the last first.
   */
  list(opts?: { queues?: string[]; status?: JobStatus[]; latest?: number }): Promise<Job[]>
  show(id: string): Promise<Job | undefined>
  /**
   * Deletes a job that is not running (queued, finished or failed: CKAN's job_cancel deletes the
   * job whatever RQ still holds of it); false when there is none or a runner holds it.
   */
  cancel(id: string): Promise<boolean>
  /**
   * Deletes the queued jobs of these queues (of every queue without them) and returns the names
   * of the queues cleared: the given ones, else those that held queued jobs (CKAN's job_clear).
   */
  clear(queues?: string[]): Promise<string[]>
  /** Deletes finished and failed jobs that ended before `before` (a now()-style timestamp). */
  purge(before: string): Promise<number>
  /** How many jobs wait, the oldest of them, and the running ones: what an operator looks at. */
  stats(): Promise<QueueStats>
}

/** The queue at a glance (status_show for sysadmins). */
export interface QueueStats {
  /** Jobs waiting, in every queue. */
  queued: number
  /** The job waiting longest, with how long it has waited. */
  oldest_queued: { id: string; kind: string; title: string | null; queue: string; created: string; age_seconds: number } | null
  /** Jobs a runner holds, oldest claim first; a lease in the past means its runner stopped. */
  running: { id: string; kind: string; title: string | null; queue: string; started: string | null; attempts: number; lease_until: string | null }[]
}

export interface JobQueueDeps {
  /** CKAN-format timestamps (deps.now); leases are computed from them. */
  now: () => string
  newId: () => string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  kinds: JobKinds<any>
  /** Claims a job may get before an expired lease fails it (default 3). */
  maxAttempts?: number
}

/** ckan: the job dict of job_list / job_show (created to the second, no time zone). */
export function jobToDict(job: Job): {
  id: string
  title: string | null
  created: string
  queue: string
} {
  return { id: job.id, title: job.title, created: job.created.slice(0, 19), queue: job.queue }
}


function checkQueue(queue: unknown): string {
  if (!isQueueName(queue)) throw new TypeError(`Invalid queue name ${JSON.stringify(queue)}`)
  return queue
}

function checkQueues(queues: string[]): string[] {
  if (!Array.isArray(queues) || queues.length === 0) throw new TypeError('No queue named')
  return [...new Set(queues.map(checkQueue))]
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ')

const describeError = (e: unknown): string =>
  e instanceof Error
    ? (e.stack ?? `${e.name}: ${e.message}`)
    : typeof e === 'string'
      ? e
      : (JSON.stringify(e) ?? String(e))

const parseJson = (text: unknown): unknown => (typeof text === 'string' ? JSON.parse(text) : null)

const COLUMNS =
  'id, queue, title, kind, payload, status, created, started, ended, error, attempts, lease, lease_until, result'

function rowToJob(r: Row): Job {
  const str = (k: string) => (r[k] === null || r[k] === undefined ? null : String(r[k]))
  return {
    id: String(r.id),
    queue: String(r.queue),
    title: str('title'),
    kind: String(r.kind),
    payload: parseJson(r.payload),
    status: String(r.status) as JobStatus,
    created: String(r.created),
    started: str('started'),
    ended: str('ended'),
    error: str('error'),
    attempts: Number(r.attempts),
    lease_until: str('lease_until'),
    result: parseJson(r.result),
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * The JobQueue over a libSQL client: the embedded file on Node, HTTP (`@libsql/client/web`) on
 * Workers. Writes that must be atomic are single statements or one `batch` (BEGIN IMMEDIATE).
 */
export function libsqlJobQueue(client: Client, deps: JobQueueDeps): JobQueue {
  const maxAttempts = deps.maxAttempts ?? 3

  async function write<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn()
      } catch (e) {
        if (!isBusy(e) || attempt >= 5) throw e
        await sleep(20 * attempt + Math.random() * 20)
      }
    }
  }

  const exec = (sql: string, args: InValue[]) => write(() => client.execute({ sql, args }))

  function settle(
    job: JobRef,
    status: 'finished' | 'failed',
    column: 'result' | 'error',
    value: string,
  ) {
    const [id, lease] = typeof job === 'string' ? [job, null] : [job.id, job.lease]
    return exec(
      `UPDATE job SET status = ?, ended = ?, ${column} = ?, lease = NULL, lease_until = NULL
       WHERE id = ? AND status = 'running'${lease === null ? '' : ' AND lease = ?'}`,
      [status, deps.now(), value, id, ...(lease === null ? [] : [lease])],
    ).then((rs) => rs.rowsAffected > 0)
  }

  const queue: JobQueue = {
    enqueueStatement(input) {
      const queueName = checkQueue(input.queue ?? DEFAULT_QUEUE)
      const { json, title } = deps.kinds.prepare(input.kind, input.payload)
      const id = deps.newId()
      return {
        id,
        statement: {
          sql: `INSERT INTO job (id, queue, title, kind, payload, status, created, attempts)
                VALUES (?, ?, ?, ?, ?, 'queued', ?, 0)`,
          args: [id, queueName, input.title ?? title, input.kind, json, deps.now()],
        },
      }
    },

    async enqueue(input) {
      const { id, statement } = queue.enqueueStatement(input)
      await write(() => client.execute(statement))
      return (await queue.show(id))!
    },

    async claim(queues, leaseMs) {
      const names = checkQueues(queues)
      if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0)
        throw new TypeError(`Invalid lease ${leaseMs}`)
      const now = deps.now()
      const lease = deps.newId()
      const inQueues = `queue IN (${marks(names.length)})`
      const due = `${inQueues} AND (status = 'queued' OR (status = 'running' AND lease_until < ?))`
      // Most polls find nothing: a read answers them without taking the database's write lock.
      const waiting = await client.execute({
        sql: `SELECT 1 FROM job WHERE ${due} LIMIT 1`,
        args: [...names, now],
      })
      if (!waiting.rows.length) return undefined
      const [, claimed] = await write(() =>
        client.batch(
          [
            {
              sql: `UPDATE job SET status = 'failed', ended = ?, lease = NULL, lease_until = NULL,
                      error = 'Lease expired after ' || attempts || ' attempts: the runner stopped'
                    WHERE ${inQueues} AND status = 'running' AND lease_until < ? AND attempts >= ?`,
              args: [now, ...names, now, maxAttempts],
            },
            {
              sql: `UPDATE job SET status = 'running', started = ?, ended = NULL, error = NULL,
                      attempts = attempts + 1, lease = ?, lease_until = ?
                    WHERE id = (
                      SELECT id FROM job WHERE ${due} ORDER BY created, rowid LIMIT 1)
                    RETURNING ${COLUMNS}`,
              args: [now, lease, addMs(now, leaseMs), ...names, now],
            },
          ],
          'write',
        ),
      )
      const row = claimed?.rows[0]
      return row ? ({ ...rowToJob(row), lease: String(row.lease) } as ClaimedJob) : undefined
    },

    async renew(job, leaseMs) {
      const rs = await exec(
        `UPDATE job SET lease_until = ? WHERE id = ? AND lease = ? AND status = 'running'`,
        [addMs(deps.now(), leaseMs), job.id, job.lease],
      )
      return rs.rowsAffected > 0
    },

    finish(job, result) {
      let json: string
      try {
        json = JSON.stringify(result ?? null)
      } catch (e) {
        return Promise.reject(e)
      }
      return settle(job, 'finished', 'result', json)
    },

    fail(job, error) {
      return settle(job, 'failed', 'error', describeError(error))
    },

    async list(opts = {}) {
      const where: string[] = []
      const args: InValue[] = []
      const status = opts.status ?? ['queued']
      where.push(`status IN (${marks(status.length)})`)
      args.push(...status)
      // ckan: an empty list of queues means every queue, as no list does
      if (opts.queues?.length) {
        const names = checkQueues(opts.queues)
        where.push(`queue IN (${marks(names.length)})`)
        args.push(...names)
      }
      const rs = await client.execute({
        sql:
          `SELECT ${COLUMNS} FROM job WHERE ${where.join(' AND ')} ` +
          (opts.latest !== undefined ? `ORDER BY ended DESC, rowid DESC LIMIT ${Math.max(0, Math.floor(opts.latest))}` : 'ORDER BY created, rowid'),
        args,
      })
      return rs.rows.map(rowToJob)
    },

    async stats() {
      const rs = await client.batch(
        [
          `SELECT COUNT(*) AS n FROM job WHERE status = 'queued'`,
          `SELECT id, kind, title, queue, created FROM job WHERE status = 'queued' ORDER BY created, rowid LIMIT 1`,
          `SELECT id, kind, title, queue, started, attempts, lease_until FROM job WHERE status = 'running' ORDER BY started, rowid LIMIT 100`,
        ],
        'read',
      )
      const oldest = rs[1]!.rows[0]
      const str = (v: unknown) => (v === null || v === undefined ? null : String(v))
      return {
        queued: Number(rs[0]!.rows[0]?.n ?? 0),
        oldest_queued: oldest
          ? {
              id: String(oldest.id),
              kind: String(oldest.kind),
              title: str(oldest.title),
              queue: String(oldest.queue),
              created: String(oldest.created),
              age_seconds: Math.max(0, Math.round((isoToMs(deps.now()) - isoToMs(String(oldest.created))) / 1000)),
            }
          : null,
        running: rs[2]!.rows.map((r) => ({
          id: String(r.id),
          kind: String(r.kind),
          title: str(r.title),
          queue: String(r.queue),
          started: str(r.started),
          attempts: Number(r.attempts),
          lease_until: str(r.lease_until),
        })),
      }
    },

    async show(id) {
      const rs = await client.execute({
        sql: `SELECT ${COLUMNS} FROM job WHERE id = ?`,
        args: [id],
      })
      return rs.rows[0] ? rowToJob(rs.rows[0]) : undefined
    },

    async cancel(id) {
      const rs = await exec(`DELETE FROM job WHERE id = ? AND status <> 'running'`, [id])
      return rs.rowsAffected > 0
    },

    async clear(queues) {
      if (queues?.length) {
        const names = checkQueues(queues)
        await exec(
          `DELETE FROM job WHERE status = 'queued' AND queue IN (${marks(names.length)})`,
          names,
        )
        return names
      }
      const rs = await exec(`DELETE FROM job WHERE status = 'queued' RETURNING queue`, [])
      return [...new Set(rs.rows.map((r) => String(r.queue)))].sort()
    },

    async purge(before) {
      const rs = await exec(
        `DELETE FROM job WHERE status IN ('finished', 'failed') AND ended < ?`,
        [before],
      )
      return rs.rowsAffected
    },
  }
  return queue
}
