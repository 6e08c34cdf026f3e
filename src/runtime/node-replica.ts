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
import { registry } from '../actions'
import { MIGRATIONS_DIR, type OpenedDb } from './node-db'

export interface ReplicaOptions {
  /** The primary: a libSQL server (`http://127.0.0.1:8080`, `libsql://…`) that takes every write. */
  syncUrl: string
  authToken?: string
  /** How often the replica pulls the primary's new frames, in milliseconds (the staleness bound). */
  syncIntervalMs?: number
  /** Where sync failures are reported (default: console.error, once per run of failures). */
  onSyncError?: (e: unknown) => void
}

export interface OpenedReplica extends OpenedDb {
  /** Pulls every frame the primary committed before the call. */
  sync(): Promise<void>
}

export const DEFAULT_SYNC_INTERVAL_MS = 250

const HEAD_SQL = 'SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1'
/** Statements that only read run on the local file; anything else goes to the primary. */
const isRead = (sql: string) => /^\s*select\b/i.test(sql)

type BatchItem = InStatement | [string, InArgs?]
const toStatement = (s: BatchItem): InStatement =>
  Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s
const sqlOf = (s: InStatement) => (typeof s === 'string' ? s : s.sql)

/**
 * When the local file changes: only here, in `sync()`, because this process never writes to
 * it (writes go to the primary over HTTP, not through libSQL's write forwarding). So a sync
 * waits for the multi-statement reads in flight and none starts during it: each read batch
 * sees one state of the primary, as a transaction would (libSQL sends any transaction on a
 * replica, even a read-only one, to the primary). The newest change-log seq is read after
 * each sync, so the change feed's probe costs nothing between syncs.
 */
export class ReplicaSync {
  /** The newest change-log seq in the local file as of the last sync. */
  head = 0
  private readers = 0
  private drained: (() => void) | null = null
  /** Set while a sync waits for readers or runs: read batches wait for it. */
  private blocking: Promise<void> | null = null
  /** A sync that has not started yet: a caller may join it, as it will see the caller's commit. */
  private queued: Promise<void> | null = null
  private tail: Promise<void> = Promise.resolve()

  constructor(private readonly replica: Client) {}

  /** Runs several local reads with no sync between them. */
  async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.blocking) await this.blocking.catch(() => undefined)
    this.readers++
    try {
      return await fn()
    } finally {
      if (--this.readers === 0 && this.drained) {
        const wake = this.drained
        this.drained = null
        wake()
      }
    }
  }

  /** Pulls every frame the primary committed before this call. */
  sync(): Promise<void> {
    if (!this.queued) {
      const run = this.tail.then(() => {
        this.queued = null
        return this.pull()
      })
      this.queued = run
      this.tail = run.catch(() => undefined)
    }
    return this.queued
  }

  private async pull() {
    const done = (async () => {
      if (this.readers > 0) await new Promise<void>((r) => (this.drained = r))
      // libSQL's sync is a synchronous call: it holds the event loop for one round trip to the
      // primary (about 0.6 ms on loopback when nothing is new) plus the frames it applies.
      await this.replica.sync()
      const rs = await this.replica.execute(HEAD_SQL)
      this.head = rs.rows.length ? Number(rs.rows[0]![0]) : 0
    })()
    this.blocking = done
    try {
      await done
    } finally {
      this.blocking = null
    }
  }
}

/**
 * A libSQL client over the replica: plain reads (single statements, or batches of SELECTs) run
 * on the local file; every write (a statement or batch that is not all SELECTs, a transaction,
 * a migration) goes to the primary as one HTTP request, one at a time per process, retried on
 * SQLITE_BUSY, and is followed by a sync, so the process reads its own writes at once.
 */
export function replicaClient(replica: Client, primary: Client, state: ReplicaSync, onSyncError: (e: unknown) => void): Client {
  const exclusive = mutex()
  // After a commit the sync may fail (primary unreachable): the write stands, so report and go
  // on; a write must never fail after committing (the group commit would run it again).
  const syncAfterWrite = () => state.sync().catch(onSyncError)
  async function write<T>(run: () => Promise<T>): Promise<T> {
    const result = await exclusive(() => retryBusy(run))
    await syncAfterWrite()
    return result
  }
  return {
    execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
      const stmt: InStatement = typeof stmtOrSql === 'string' && args !== undefined ? { sql: stmtOrSql, args } : stmtOrSql
      return isRead(sqlOf(stmt)) ? replica.execute(stmt) : write(() => primary.execute(stmt))
    },
    async batch(items: BatchItem[], mode?: TransactionMode): Promise<ResultSet[]> {
      const stmts = items.map(toStatement)
      if (stmts.every((s) => isRead(sqlOf(s)))) {
        return state.read(async () => {
          const out: ResultSet[] = []
          for (const s of stmts) out.push(await replica.execute(s))
          return out
        })
      }
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
      await state.sync()
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

/**
 * Opens the catalogue as an embedded replica of `opts.syncUrl`: migrates the primary (never
 * through the replica), makes the first sync, and syncs again every `syncIntervalMs`. No
 * synchronous `libsql` connection is opened on the replica file: its frames come only from
 * the primary, through the one replica connection.
 */
export async function openReplicaCatalogDb(url: string, opts: ReplicaOptions): Promise<OpenedReplica> {
  if (!url.startsWith('file:')) throw new Error(`An embedded replica is a file: URL, not ${url}`)
  const every = opts.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS
  if (!(every >= 1)) throw new Error(`The replica's sync interval must be at least 1 ms (DATABASE_SYNC_INTERVAL is in seconds)`)
  const path = url.slice(5).split('?')[0]!
  mkdirSync(dirname(resolve(path)), { recursive: true })
  const primary = createClient({ url: opts.syncUrl, authToken: opts.authToken })
  await migrate(drizzle(primary, { schema }), { migrationsFolder: MIGRATIONS_DIR })
  const replica = createClient({ url, syncUrl: opts.syncUrl, authToken: opts.authToken })
  const state = new ReplicaSync(replica)
  let failing = false
  const report =
    opts.onSyncError ??
    ((e: unknown) => {
      if (!failing) console.error('replica sync failed (serving the last synced state):', (e as Error)?.message ?? e)
      failing = true
    })
  const client = replicaClient(replica, primary, state, report)
  await state.sync()
  const timer = setInterval(() => {
    state.sync().then(() => (failing = false), report)
  }, every)
  timer.unref()
  return {
    db: drizzle(client, { schema }),
    client,
    headProbe: () => state.head,
    sync: () => state.sync(),
    close() {
      clearInterval(timer)
      client.close()
    },
  }
}

/** Whether a request calls a catalogue action that writes (its replica syncs first). */
export function isWriteActionRequest(req: Request): boolean {
  const m = /^\/api\/(?:\d\/)?action\/([^/?#]+)/.exec(new URL(req.url).pathname)
  const action = m ? registry.get(decodeURIComponent(m[1]!)) : undefined
  return !!action && !action.readOnly
}
