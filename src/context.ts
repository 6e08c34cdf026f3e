// What every request handler gets: per-process services (interfaces only) plus the caller and a memo.
import type { Config } from './config/load'
import type { CatalogDb } from './db/types'
import type { ReadExecutor } from './db/executor'
import type { users } from './db/schema'
import type { ChangeFeed } from './model/changes'
import type { Caches } from './model/cache'
import type { BatchWriter } from './model/write-batcher'
import type { SearchService } from './search/index'
import type { DatastoreDb } from './datastore/store'
import type { BlobStore } from './storage/blob-store'
import type { JobQueue } from './jobs/job-queue'
import type { Mailer } from './notify/mailer'
import type { LoaderPorts } from './jobs/loader/ports'
import type { SchemaRegistry } from './scheming/registry'
import type { UsageCounter } from './model/usage'
import type { DictRefills } from './model/package-json'

export type UserRow = typeof users.$inferSelect

/** What help_show needs of an action (the registry, passed in so actions never import it). */
export interface ActionInfo {
  name: string
  help: string
  /** The CKAN version that removed it (see Action.removedIn). */
  removedIn?: '2.10' | '2.11'
  /** Whether the site's settings offer it (see Action.offered); absent: always. */
  offered?(config: Config): boolean
}

/**
 * The per-process (per-isolate) services, built once by the composition root
 * (`src/runtime/deps.ts`). Each is an interface; the adapters live in `src/runtime/`.
 */
export interface Deps {
  db: CatalogDb
  config: Config
  /** Follows the change log so derived state sees every committed write. */
  changes: ChangeFeed
  caches: Caches
  /** ISO-8601 timestamp without timezone, microsecond precision, UTC (CKAN's format). */
  now: () => string
  /** A new random UUID. */
  newId: () => string
  /** Atomic write batches (a group commit on Node; see write-batcher.ts). */
  writer: BatchWriter
  /** Plain-SQL reads for hot paths (a cached synchronous statement on Node). */
  read: ReadExecutor
  /** This process's search index, kept in step with the change log. */
  search: SearchService
  /** The DataStore's own database (user tables); absent where none is configured. */
  datastore?: DatastoreDb
  /** Uploaded files (a directory on Node, R2 on Workers); says "not configured" where there is none. */
  blobs: BlobStore
  /** Background jobs, kept in the catalogue database; enqueue inside the write that causes them. */
  jobs: JobQueue
  /** Outgoing e-mail (SMTP on Node); says "not configured" where there is none. */
  mailer: Mailer
  /** What the loader job needs from the runtime (spreadsheets, DNS); absent parts degrade clearly. */
  loader?: LoaderPorts
  /** Makes a backup of this catalogue's files (Node: runtime/node-backup.ts); absent elsewhere. */
  backups?: BackupPort
  /** Every action by name (help_show reads it). */
  actions: ReadonlyMap<string, ActionInfo>
  /**
   * A shared cache of anonymous answers keyed by their ETag (which moves with every write), where
   * the runtime has one (the Cache API on Workers); absent on Node.
   */
  answers?: AnswerCache
  /** The site's metadata schemas (ckanext-scheming files); absent: CKAN's core schemas only. */
  schemas?: SchemaRegistry
  /**
   * Where rate-limit counters live (service.ratelimit.*): shared by every process on Node (a
   * libSQL file or the primary), a Durable Object on Workers; absent: this process's memory.
   */
  rateLimits?: RateLimitStore
  /** Usage figures counted in memory until their next flush (service.tracking_enabled). */
  usage?: UsageCounter
  /** Dataset dicts assembled by reads, waiting to be stored (model/package-json.ts). */
  dictRefills?: DictRefills
}

export interface RateLimitStore {
  /**
   * Adds one to `key`'s count in the window that began at `windowStart` (seconds since the epoch)
   * and lasts `seconds`; resolves to the count with it.
   */
  hit(key: string, windowStart: number, seconds: number): Promise<number>
}

export interface BackupPort {
  /** Makes one backup (with the configured rotation); resolves to what was made. */
  run(): Promise<{ path: string; summary: string }>
}

export interface AnswerCache {
  get(etag: string): Promise<Response | undefined>
  /** Keeps `res` (a 200 answer marked public) for `seconds`. */
  put(etag: string, res: Response, seconds: number): Promise<void>
}

export interface ActionContext extends Deps {
  /** The caller, from the API key; null when anonymous. */
  user: UserRow | null
  /** Per-request cache used by load* helpers. */
  memo: Map<string, Promise<unknown>>
  /** Set by actions that call others without their authorization (CKAN's ignore_auth). */
  ignoreAuth?: boolean
  /** 'web': the call comes from a web page (ckan: not `api_version` in the context). */
  via?: 'web'
  /** The request URL (path and query), for results that link back to it (datastore_search _links). */
  requestUrl?: string
  /**
   * When the request's time budget ends (ms since the epoch; service.action.timeout_ms after it
   * began): searches and DataStore queries stop past it. Absent: no budget (the process's own work).
   */
  deadline?: number
  /**
   * CKAN 2.12's `changed_entities`: the ids of the objects the call really changed, by kind
   * ("packages"), kept when the site reports them (service.api.changed_entities). Shared by the
   * contexts of nested calls.
   */
  changed?: Map<string, Set<string>>
  /**
   * The change-log position every read of this context reflects at least (deps.changes.lastSeq
   * when it was made): a dataset write stores its new dict only if nothing the dict embeds
   * changed after it (model/package-json.ts). Absent: the write does not store it.
   */
  seenSeq?: number
}

/** A context with no caller, for work done on the process's own behalf (indexing, jobs). */
export const systemContext = (deps: Deps): ActionContext => ({
  ...deps,
  user: null,
  memo: new Map(),
  seenSeq: deps.changes.lastSeq,
})

/** Milliseconds a query may still take: `limitMs`, or less when the request's budget ends sooner. */
export function timeLeft(ctx: ActionContext, limitMs: number): number {
  return ctx.deadline === undefined ? limitMs : Math.max(1, Math.min(limitMs, ctx.deadline - Date.now()))
}

/** The caller's name as CKAN puts it in messages: empty for anonymous. */
export const callerName = (ctx: ActionContext) => ctx.user?.name ?? ''

export function nowIso(): string {
  // ckan: naive UTC isoformat() with microseconds
  return new Date().toISOString().slice(0, 23) + '000'
}
