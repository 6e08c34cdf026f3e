// How the DataStore reaches its own libSQL database: one interface, a Node adapter and a portable one.
import type { InValue } from '@libsql/client'
import type { RawStatement } from '../db/executor'

export interface DsResult {
  columns: string[]
  rows: unknown[][]
}

export interface SqlColumn {
  name: string
  /** The table and column a result column reads directly, when it does. */
  table: string | null
  column: string | null
}

export interface SqlResult {
  columns: SqlColumn[]
  rows: unknown[][]
}

/** A query stopped at its deadline. */
export class SqlTimeout extends Error {}

/** Runs datastore_search_sql queries: read-only, time-limited. */
export interface SqlRunner {
  /** Real tables a statement reads (views resolved to the tables behind them). */
  tablesRead(sql: string): Promise<string[]>
  /** Runs a read-only query (`args` bound to its `?`); SqlTimeout after timeoutMs; at most maxRows rows. */
  run(sql: string, opts: { timeoutMs: number; maxRows: number; args?: InValue[] }): Promise<SqlResult>
  /**
   * Statements run side by side on connections of the runner's own, at no extra cost (a local
   * pool): a search's count starts with its page. Unset where each statement is a request.
   */
  concurrent?: boolean
  close(): void
}

/**
 * Reads of the DataStore database. It has no method that writes: the pure read actions
 * (datastore_search, datastore_search_sql, datastore_info, dumps) get only this, and where it is
 * its own location (service.datastore.read_url) its connection is read-only as well (a read-only
 * token of the libSQL server, or a `mode=ro` file).
 */
export interface DatastoreReader {
  /** One read statement; rows as arrays in column order. */
  query(sql: string, args?: InValue[]): Promise<DsResult>
  /**
   * Several reads in one round trip, on one snapshot: given where a round trip costs more than
   * the statements (a libSQL server over HTTP); absent on embedded files.
   */
  queryBatch?(stmts: { sql: string; args: InValue[] }[]): Promise<DsResult[]>
  /** A read in chunks of about `chunkRows` rows, so a caller can stream any size with flat memory. */
  stream(sql: string, args: InValue[], chunkRows: number): AsyncIterable<DsResult>
  /** The time-limited SQL runner; without one, datastore_search_sql runs through query() unguarded in time. */
  sql?: SqlRunner
  /**
   * Whether a statement's plan may visit many more rows than it returns (see planMayTakeLong),
   * where that is cheap to know (an embedded file: EXPLAIN QUERY PLAN, remembered per schema).
   */
  statementMayTakeLong?(sql: string): boolean
}

/** The DataStore's primary (write) database; its reads see its own writes at once. */
export interface DatastoreDb extends DatastoreReader {
  /** Runs the statements in one transaction: all commit or none does. */
  write(stmts: RawStatement[]): Promise<void>
  /**
   * As write(), answering each statement's rows (a statement with RETURNING; [] for the others).
   * `rollback`: undo the transaction once every statement has run (a dry run that still answers).
   */
  writeReturning(stmts: RawStatement[], opts?: { rollback?: boolean }): Promise<unknown[][][]>
  /**
   * Serialises this process's read-then-write sequences on the DataStore, sparing them retries;
   * their correctness across processes and Worker requests comes from the database (writeGuard).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /** The read location (service.datastore.read_url) of the pure read actions; absent: this database. */
  reader?: DatastoreReader
  close(): void
}

/** A promise chain used as a mutex. */
export function mutex() {
  let tail: Promise<unknown> = Promise.resolve()
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn)
    tail = run.catch(() => undefined)
    return run
  }
}

/** The SQLite error class of a failed statement, whichever driver threw it. */
export function sqliteCode(e: unknown): string {
  const err = e as { code?: string; extendedCode?: string; cause?: unknown }
  if (err?.extendedCode) return err.extendedCode
  if (err?.code && err.code !== 'SQLITE_CONSTRAINT') return err.code
  if (err?.cause) return sqliteCode(err.cause)
  return err?.code ?? ''
}

/** The message of a SQLite error without the driver's prefixes. */
export function sqliteMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e)
  return msg.replace(/^SQLITE_[A-Z_]+: /, '').replace(/^Failed query: [\s\S]*?\n/, '')
}
