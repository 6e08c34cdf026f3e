// Per-process follower of the change log: derived state (caches, config overlay, search) catches up here.
import type { ReadExecutor } from '../db/executor'

export interface Change {
  seq: number
  entity_type: string
  entity_id: string
  op: string
}

/** Gets each batch of new entries, and the reader of the request that fetched them (for any I/O). */
export type ChangeListener = (changes: Change[], read: ReadExecutor) => void | Promise<void>

/**
 * Rows appended to the change log by a write, to be put in that write's batch. `detail`: what
 * changes_list reads beside the op (see packageDetail, and 'organization' | 'group' for groups).
 */
export function changeRow(entity_type: string, entity_id: string, op = 'upsert', detail?: string) {
  return detail === undefined ? { entity_type, entity_id, op } : { entity_type, entity_id, op, detail }
}

type Vis = { state: string; private: boolean }

/**
 * A dataset write as a change-log detail, "<change>:<private|public>": what changes_list reports
 * (created, updated, deleted, made_private, made_public, purged) and who could see the dataset
 * after it. The writer knows both; the feed reads each row alone.
 */
export function packageDetail(after: Vis, before: Vis | undefined | null, purged = false): string {
  const change = purged
    ? 'purged'
    : !before
      ? 'created'
      : after.state === 'deleted' && before.state !== 'deleted'
        ? 'deleted'
        : after.private !== before.private
          ? after.private
            ? 'made_private'
            : 'made_public'
          : 'updated'
  return `${change}:${after.private ? 'private' : 'public'}`
}

/** A group write as a change-log detail, "<change>:<organization|group>". */
export const groupDetail = (change: 'created' | 'updated' | 'deleted' | 'purged', isOrg: boolean) =>
  `${change}:${isOrg ? 'organization' : 'group'}`

const nextTurn: (fn: () => void) => void =
  typeof setImmediate === 'function' ? (fn) => void setImmediate(fn) : (fn) => void setTimeout(fn, 0)

const toChanges = (rows: Record<string, unknown>[]): Change[] =>
  rows.map((r) => ({
    seq: Number(r.seq),
    entity_type: String(r.entity_type),
    entity_id: String(r.entity_id),
    op: String(r.op),
  }))

/**
 * What listeners get first when the log was pruned past this follower's position (it was idle
 * longer than the log keeps rows, see pruneStatement): everything derived must be dropped.
 */
export const RESET: Change = { seq: 0, entity_type: '*', entity_id: '', op: 'reset' }

/**
 * The statement that prunes the change log: rows older than `retentionDays`, only those the search
 * snapshot covers (a process loading it never needs them; without a snapshot a process builds its
 * index from the datasets), never the newest row. Its cost is the rows it deletes: the first young
 * row is found walking up from the oldest. Put in the snapshot's own batch (search/service.ts) and
 * run by the Workers cron (runtime/worker.ts), where no isolate writes snapshots in the background.
 */
export function pruneStatement(retentionDays: number, now = Date.now()) {
  const cutoff = new Date(now - Math.max(1, retentionDays) * 86_400_000).toISOString().slice(0, 23)
  return {
    sql: `DELETE FROM change_log WHERE seq < min(
            coalesce((SELECT max(seq) FROM search_snapshot) + 1, 9223372036854775807),
            coalesce((SELECT seq FROM change_log WHERE at >= ? ORDER BY seq LIMIT 1), (SELECT max(seq) FROM change_log)))`,
    args: [cutoff] as (string | number)[],
  }
}

const PAGE = 2000
const TAIL_SQL = `SELECT seq, entity_type, entity_id, op FROM change_log WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`
const HEAD_SQL = 'SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1'
const FIRST_SQL = 'SELECT seq FROM change_log ORDER BY seq LIMIT 1'

/**
 * Rows after `from` are missing when the first row after it is not the next seq and the log's
 * oldest row is past it: pruned while this follower did not read (the seqs of the log are
 * otherwise consecutive). Listeners then get RESET before the rows.
 */
async function prunedPast(read: ReadExecutor, from: number, rows: Change[]): Promise<boolean> {
  if (!rows.length || rows[0]!.seq <= from + 1) return false
  const [first] = await read(FIRST_SQL)
  return !!first && Number(first.seq) > from + 1
}

/** Follows the change log: what derived state (caches, config overlay, search) subscribes to. */
export interface ChangeFeed {
  /** The newest seq delivered to the listeners (0 before the first round). */
  readonly lastSeq: number
  /** Forgets this turn's probe: called after a local commit so the next read looks again. */
  touched(): void
  /** Adds a listener; returns what removes it. */
  subscribe(listener: ChangeListener): () => void
  /**
   * Delivers every entry committed before the call began. `shareTurn`: accept a probe made
   * earlier in this event-loop turn (request start only).
   */
  catchUp(opts?: { shareTurn?: boolean }): Promise<void>
  /**
   * True when `catchUp({ shareTurn: true })` would return at once (a probe earlier in this
   * event-loop turn found nothing new): a caller may then read `lastSeq` without awaiting.
   */
  caughtUpThisTurn?(): boolean
  /**
   * A view of this feed for one request of a runtime that forbids sharing I/O between requests
   * (workerd): its catch-up reads through `read` and runs a round of its own, never joining
   * another request's. Listeners and the position are shared.
   */
  through(read: ReadExecutor): ChangeFeed
}

/**
 * Follows the change log of one database. `catchUp()` applies every entry committed before
 * the call began to each listener, so a read that awaits it sees every write that committed
 * before the read started, whichever process or isolate made it. Concurrent callers share
 * the queries: a caller joins the next round, never one already in flight.
 */
export class LogChangeFeed implements ChangeFeed {
  private seq: number | null = null
  private listeners: ChangeListener[] = []
  private running: Promise<void> | null = null
  private next: Promise<void> | null = null
  /** The head was probed during this event-loop turn and nothing new was there. */
  private probedThisTurn = false

  /**
   * `headProbe` returns the newest seq cheaply (Node injects a synchronous prepared statement,
   * about 2 µs); without it each round asks the database for the tail.
   */
  constructor(
    private readonly read: ReadExecutor,
    private readonly headProbe?: () => number | Promise<number>,
  ) {}

  get lastSeq() {
    return this.seq ?? 0
  }

  /**
   * Forgets this turn's probe: called after a local commit so the next read looks again.
   */
  touched() {
    this.probedThisTurn = false
  }

  subscribe(listener: ChangeListener) {
    this.listeners.push(listener)
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener)
    }
  }

  caughtUpThisTurn() {
    return this.probedThisTurn
  }

  /**
   * `shareTurn`: accept a probe made earlier in this event-loop turn (request start only; see
   * round()). Actions that catch up after their own writes must not pass it.
   */
  catchUp(opts: { shareTurn?: boolean } = {}): Promise<void> {
    if (opts.shareTurn && this.probedThisTurn) return Promise.resolve()
    if (!this.running) {
      this.running = this.round().finally(() => (this.running = null))
      return this.running
    }
    // Someone is mid-round: it may have read the log before our caller's request began.
    this.next ??= this.running.then(() => {
      this.next = null
      return this.catchUp()
    })
    return this.next
  }

  through(read: ReadExecutor): ChangeFeed {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const feed = this
    return {
      get lastSeq() {
        return feed.lastSeq
      },
      touched() {},
      subscribe: (listener) => feed.subscribe(listener),
      catchUp: () => feed.ownRound(read),
      through: (other) => feed.through(other),
    }
  }

  /**
   * One request's round, sharing nothing in flight: concurrent rounds may deliver the same
   * entries twice (listeners only invalidate, so that is harmless) and the position only moves on.
   */
  private async ownRound(read: ReadExecutor) {
    if (this.seq === null) {
      const [last] = await read(HEAD_SQL)
      this.seq = Math.max(this.seq ?? 0, last ? Number(last.seq) : 0)
      return
    }
    let from = this.seq
    for (;;) {
      const rows = toChanges(await read(TAIL_SQL, [from]))
      if (rows.length === 0) return
      if (await prunedPast(read, from, rows)) for (const l of this.listeners) await l([RESET], read)
      for (const l of this.listeners) await l(rows, read)
      from = rows[rows.length - 1]!.seq
      this.seq = Math.max(this.seq ?? 0, from)
      if (rows.length < PAGE) return
    }
  }

  private async round() {
    if (this.seq === null) {
      // A fresh process has no derived state yet: start from the current end of the log.
      const [last] = await this.read(HEAD_SQL)
      this.seq = last ? Number(last.seq) : 0
      return
    }
    if (this.headProbe) {
      // Requests started in one poll phase all arrived before its first probe, so that probe
      // answers for all of them; it expires when the turn ends (setImmediate) or on a local write.
      if ((await this.headProbe()) <= this.seq) {
        this.probedThisTurn = true
        nextTurn(() => (this.probedThisTurn = false))
        return
      }
    }
    for (;;) {
      const rows = toChanges(await this.read(TAIL_SQL, [this.seq]))
      if (rows.length === 0) return
      if (await prunedPast(this.read, this.seq, rows)) for (const l of this.listeners) await l([RESET], this.read)
      for (const l of this.listeners) await l(rows, this.read)
      this.seq = rows[rows.length - 1]!.seq
      if (rows.length < PAGE) return
    }
  }
}
