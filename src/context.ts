// What every request handler gets: per-process dependencies plus the caller and a memo.
import type { Config } from './config/load'
import type { CatalogDb } from './db/types'
import type { ChangeFeed } from './model/changes'
import type { Caches } from './model/cache'
import type { users } from './db/schema'
import type { WriteBatcher } from './model/write-batcher'
import type { ReadExecutor } from './db/executor'
import type { SearchService } from './search/service'
import type { DatastoreDb } from './datastore/store'

export type UserRow = typeof users.$inferSelect

export interface Deps {
  db: CatalogDb
  config: Config
  changes: ChangeFeed
  caches: Caches
  /** ISO-8601 timestamp without timezone, microsecond precision, UTC (CKAN's format). */
  now: () => string
  /** A new random UUID. */
  newId: () => string
  /** Group commit of write batches (see write-batcher.ts). */
  writer: WriteBatcher
  /** Plain-SQL reads for hot paths (a cached synchronous statement on Node). */
  read: ReadExecutor
  /** This process's search index, kept in step with the change log. */
  search: SearchService
  /** The DataStore's own database (user tables); absent where none is configured. */
  datastore?: DatastoreDb
}

export interface ActionContext extends Deps {
  /** The caller, from the API key; null when anonymous. */
  user: UserRow | null
  /** Per-request cache used by load* helpers. */
  memo: Map<string, Promise<unknown>>
  /** Work to finish after the response (waitUntil on Workers). */
  defer: (work: Promise<unknown>) => void
  /** Set by actions that call others without their authorization (CKAN's ignore_auth). */
  ignoreAuth?: boolean
  /** The request URL (path and query), for results that link back to it (datastore_search _links). */
  requestUrl?: string
}

/** The caller's name as CKAN puts it in messages: empty for anonymous. */
export const callerName = (ctx: ActionContext) => ctx.user?.name ?? ''

export function nowIso(): string {
  // ckan: naive UTC isoformat() with microseconds
  return new Date().toISOString().slice(0, 23) + '000'
}
