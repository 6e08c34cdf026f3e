// Node: the catalogue as a libSQL embedded replica: reads on a local file synced from a primary, writes sent to the primary.
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import {
  createClient,
  type Client,
  type InArgs,
  type InStatement,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { schema } from '../db/schema'
import { retryBusy } from '../db/busy'
import { mutex } from '../datastore/store'
import { actionNamed } from '../actions/call'
import { MIGRATIONS_DIR, type OpenedDb } from './node-db'

export interface ReplicaOptions {
  /** The primary: a libSQL server (`http://127.0.0.1:8080`, `libsql://…`) that takes every write. */
  syncUrl: string
  authToken?: string
  /** How often libSQL pulls the primary's new frames in the background, in seconds (the staleness bound). */
  syncInterval?: number
  /** Where failed syncs after writes are reported (default: console.error). */
  onSyncError?: (e: unknown) => void
}

export interface OpenedReplica extends Omit<OpenedDb, 'headProbe'> {
  /** The newest change-log seq in the local file (a read: libSQL may sync at any moment). */
  headProbe: () => Promise<number>
  /** Pulls every frame the primary committed before the call. */
  sync(): Promise<void>
  /** Syncs only if the primary's change log is ahead (before a write action). */
  catchUpWithPrimary(): Promise<void>
}

export const DEFAULT_SYNC_INTERVAL_S = 0.25
/** How long the primary may take to answer the probe before a sync is given up. */
const PROBE_TIMEOUT_MS = 2000
/**
 * A sync starting this soon after the primary answered needs no probe first: the window in
 * which a primary that stopped could catch it is no wider than after a probe.
 */
const PROBE_FRESH_MS = 5
/** A read batch that saw the log move under it is read again, at most this many times. */
const READ_ATTEMPTS = 3

const HEAD_SQL = 'SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1'
/** Statements that only read run on the local file; anything else goes to the primary. */
const isRead = (sql: string) => /^\s*select\b/i.test(sql)

type BatchItem = InStatement | [string, InArgs?]
const toStatement = (s: BatchItem): InStatement => (Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s)
const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql)

/** The newest change-log seq in the replica's file (a local read). */
export async function localHead(replica: Client): Promise<number> {
  const rs = await replica.execute(HEAD_SQL)
  return rs.rows.length ? Number(rs.rows[0]![0]) : 0
}

/**
 * The syncs this process asks for (after its writes, before a write action), apart from
 * libSQL's own in the background: one at a time, and a caller joins one that has not started
 * (it will see the caller's commit). libSQL's `sync()` is a synchronous call with no time limit:
 * it holds the event loop for a round trip to the primary plus the frames it applies, and for
 * as long as a primary that stopped answering keeps the connection open (libSQL also retries a
 * refused connection for seconds). So a sync starts only right after the primary answered:
 * a write of this process, or else `primaryHead` (async, with a deadline), which doubles as the
 * primary's newest change-log seq.
 */
export class ReplicaSync {
  private queued: Promise<void> | null = null
  private tail: Promise<void> = Promise.resolve()
  private answeredAt = -Infinity

  constructor(
    private readonly replica: Client,
    private readonly primaryHead: () => Promise<number> = async () => 0,
  ) {}

  /** The primary has just answered (a write): a sync starting within PROBE_FRESH_MS needs no probe. */
  answered() {
    this.answeredAt = performance.now()
  }

  private async probe(): Promise<number> {
    const head = await this.primaryHead()
    this.answered()
    return head
  }

  /** Pulls every frame the primary committed before this call. */
  sync(): Promise<void> {
    if (!this.queued) {
      const run = this.tail.then(async () => {
        this.queued = null
        if (performance.now() - this.answeredAt > PROBE_FRESH_MS) await this.probe()
        await this.replica.sync()
      })
      this.queued = run
      this.tail = run.catch(() => undefined)
    }
    return this.queued
  }

  /** Syncs if the primary's change log is ahead of the local file's (before a write action reads). */
  async catchUpWithPrimary(): Promise<void> {
    const remote = await this.probe()
    if (remote > (await localHead(this.replica))) await this.sync()
  }
}

/**
 * A libSQL client over the replica: plain reads (single statements, or batches of SELECTs) run
 * on the local file; every write (a statement or batch that is not all SELECTs, a transaction,
 * a migration) goes to the primary as one HTTP request, one at a time per process, retried on
 * SQLITE_BUSY, and is followed by a sync, so the process reads its own writes at once.
 *
 * A read batch cannot be a transaction here (libSQL sends every transaction on a replica, even
 * a read-only one, to the primary), and the background sync may apply a write between two of
 * its statements; so the batch is read again when the change-log head moved during it: what it
 * returns is one committed state, as far as writes that log a change go (all catalogue writes).
 */
export function replicaClient(
  replica: Client,
  primary: Client,
  syncs: ReplicaSync,
  onSyncError: (e: unknown) => void,
): Client {
  const exclusive = mutex()
  // After a commit the sync may fail (primary gone meanwhile): the write stands, so report and
  // go on; a write must never fail after committing (the group commit would run it again).
  const syncAfterWrite = () => syncs.sync().catch(onSyncError)
  async function write<T>(run: () => Promise<T>): Promise<T> {
    const result = await exclusive(() =>
      retryBusy(async () => {
        const answer = await run()
        syncs.answered()
        return answer
      }),
    )
    await syncAfterWrite()
    return result
  }
  async function readBatch(stmts: InStatement[]): Promise<ResultSet[]> {
    for (let attempt = 1; ; attempt++) {
      const before = await localHead(replica)
      const out: ResultSet[] = []
      for (const s of stmts) out.push(await replica.execute(s))
      if (attempt >= READ_ATTEMPTS || (await localHead(replica)) === before) return out
    }
  }
  return {
    execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
      const stmt: InStatement =
        typeof stmtOrSql === 'string' && args !== undefined ? { sql: stmtOrSql, args } : stmtOrSql
      return isRead(sqlOf(stmt)) ? replica.execute(stmt) : write(() => primary.execute(stmt))
    },
    async batch(items: BatchItem[], mode?: TransactionMode): Promise<ResultSet[]> {
      const stmts = items.map(toStatement)
      if (stmts.every((s) => isRead(sqlOf(s))))
        return stmts.length === 1 ? [await replica.execute(stmts[0]!)] : readBatch(stmts)
      return write(() => primary.batch(stmts, mode === 'read' ? 'read' : 'write'))
    },
    migrate: (stmts: InStatement[]) => write(() => primary.migrate(stmts)),
    executeMultiple: (sql: string) => write(() => primary.executeMultiple(sql)),
    async transaction(mode?: TransactionMode): Promise<Transaction> {
      // Interactive transactions run on the primary (their reads too); the replica syncs after a commit.
      const tx = await primary.transaction(mode)
      const commit = tx.commit.bind(tx)
      return Object.assign(tx, {
        async commit() {
          await commit()
          await syncAfterWrite()
        },
      })
    },
    async sync() {
      await syncs.sync()
      return undefined
    },
    close() {
      replica.close()
      primary.close()
    },
    reconnect() {
      replica.reconnect()
      primary.reconnect()
    },
    get closed() {
      return replica.closed
    },
    protocol: 'file',
  }
}

/** The primary's newest change-log seq; rejects after PROBE_TIMEOUT_MS without an answer. */
function primaryHead(primary: Client) {
  return async () => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<never>((_, reject) => {
      // ETIMEDOUT: an unreachable database, so the request gets a 503 (http/internal-error.ts), not a 500
      const fail = () =>
        reject(Object.assign(new Error(`the primary did not answer within ${PROBE_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' }))
      timer = setTimeout(fail, PROBE_TIMEOUT_MS)
    })
    try {
      const rs = await Promise.race([primary.execute(HEAD_SQL), late])
      return rs.rows.length ? Number(rs.rows[0]![0]) : 0
    } finally {
      clearTimeout(timer)
    }
  }
}

/**
 * Opens the catalogue as an embedded replica of `opts.syncUrl`: migrates the primary (never
 * through the replica), makes the first sync, and lets libSQL sync again every `syncInterval`
 * seconds on a thread of its own (it never holds the event loop, even when the primary stops
 * answering). No synchronous `libsql` connection is opened on the replica file: its frames
 * come only from the primary, through the one replica connection.
 */
export async function openReplicaCatalogDb(url: string, opts: ReplicaOptions): Promise<OpenedReplica> {
  if (!url.startsWith('file:')) throw new Error(`An embedded replica is a file: URL, not ${url}`)
  const every = opts.syncInterval ?? DEFAULT_SYNC_INTERVAL_S
  if (!(every >= 0.001))
    throw new Error(`The replica's sync interval must be at least 0.001 s (DATABASE_SYNC_INTERVAL is in seconds)`)
  const path = url.slice(5).split('?')[0]!
  mkdirSync(dirname(resolve(path)), { recursive: true })
  const primary = createClient({ url: opts.syncUrl, authToken: opts.authToken })
  await migrate(drizzle(primary, { schema }), { migrationsFolder: MIGRATIONS_DIR })
  const replica = createClient({ url, syncUrl: opts.syncUrl, authToken: opts.authToken, syncInterval: every })
  const syncs = new ReplicaSync(replica, primaryHead(primary))
  const report =
    opts.onSyncError ?? ((e: unknown) => console.error('replica sync after a write failed:', (e as Error)?.message ?? e))
  const client = replicaClient(replica, primary, syncs, report)
  await syncs.sync()
  return {
    db: drizzle(client, { schema }),
    client,
    headProbe: () => localHead(replica),
    sync: () => syncs.sync(),
    catchUpWithPrimary: () => syncs.catchUpWithPrimary(),
    close: () => client.close(),
  }
}

/** Whether a request calls a catalogue action that writes (its replica syncs first). */
export function isWriteActionRequest(req: Request): boolean {
  const m = /^\/api\/(?:\d\/)?action\/([^/?#]+)/.exec(new URL(req.url).pathname)
  const action = m ? actionNamed(decodeURIComponent(m[1]!)) : undefined
  return !!action && !action.readOnly
}
