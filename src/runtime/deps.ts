// The composition root: builds every per-process service once, for both runtime entries and the tests.
import type { Config } from '../config/load'
import type { BackupPort, Deps, RateLimitStore } from '../context'
import { MemoryRateLimitStore } from '../http/rate-limit'
import { UsageCounter } from '../model/usage'
import { DictRefills } from '../model/package-json'
import { nowIso } from '../context'
import type { CatalogDb } from '../db/types'
import { clientExecutor, clientReader, type ReadExecutor, type WriteExecutor } from '../db/executor'
import { registry } from '../actions'
import { LruCaches } from '../model/cache'
import { LogChangeFeed } from '../model/changes'
import { WriteBatcher } from '../model/write-batcher'
import { loadRuntimeConfig } from '../model/config'
import { MemorySearchService, type SearchServiceOptions } from '../search/service'
import type { DatastoreDb } from '../datastore/store'
import { notConfiguredBlobStore, type BlobStore } from '../storage/blob-store'
import { libsqlJobQueue } from '../jobs/job-queue'
import type { JobKinds } from '../jobs/job-kinds'
import { jobKinds } from '../jobs/kinds'
import { notConfiguredMailer, type Mailer } from '../notify/mailer'
import { ensureRegistry } from '../datastore/registry'
import type { LoaderPorts } from '../jobs/loader/ports'
import type { SchemaRegistry } from '../scheming/registry'

export interface BuildOptions {
  /** A cheap way to read the newest change-log seq (see LogChangeFeed). */
  headProbe?: () => number | Promise<number>
  /** Runs write transactions; default: the libSQL client's batch. */
  writeExecutor?: WriteExecutor
  /** Runs hot-path reads; default: the libSQL client's execute. */
  readExecutor?: ReadExecutor
  search?: SearchServiceOptions
  /** The DataStore database (see runtime/node-datastore.ts). */
  datastore?: DatastoreDb
  /** Where uploads go (runtime/node-blob-store.ts, runtime/worker-blob-store.ts); default: none. */
  blobs?: BlobStore
  /** Outgoing mail (runtime/node-mailer.ts); default: none. */
  mailer?: Mailer
  /** The loader's spreadsheet reader and resolver (runtime/node-loader.ts); default: none. */
  loader?: LoaderPorts
  /** Scheduled backups (runtime/node-backup.ts); default: none. */
  backups?: BackupPort
  /** The job kinds the queue accepts; default: every kind of src/jobs/kinds.ts. */
  jobKinds?: JobKinds<Deps>
  /** The site's metadata schemas (runtime/node-schemas.ts); default: none (CKAN's core schemas). */
  schemas?: SchemaRegistry
  /** Rate-limit counters (runtime/node-rate-limit.ts); default: this process's memory. */
  rateLimits?: RateLimitStore
}

export function buildDeps(config: Config, db: CatalogDb, opts: BuildOptions = {}): Deps {
  const caches = new LruCaches(config.int('service.cache.datasets_mb'))
  const read = opts.readExecutor ?? clientReader(db.$client)
  const changes = new LogChangeFeed(read, opts.headProbe)
  // Listeners run in order: caches first, so the dicts search re-reads are never stale ones.
  changes.subscribe((batch) => caches.apply(batch))
  changes.subscribe(async (batch, reader) => {
    if (batch.some((c) => c.entity_type === 'config' || c.entity_type === '*')) await loadRuntimeConfig(reader, config)
  })
  const now = nowIso
  const newId = () => crypto.randomUUID()
  const services = {
    db,
    config,
    changes,
    caches,
    now,
    newId,
    writer: new WriteBatcher(opts.writeExecutor ?? clientExecutor(db.$client), () => changes.touched()),
    read,
    datastore: opts.datastore,
    blobs: opts.blobs ?? notConfiguredBlobStore(),
    jobs: libsqlJobQueue(db.$client, { now, newId, kinds: opts.jobKinds ?? jobKinds }),
    mailer: opts.mailer ?? notConfiguredMailer(),
    loader: opts.loader,
    backups: opts.backups,
    actions: registry,
    schemas: opts.schemas,
    rateLimits: opts.rateLimits ?? new MemoryRateLimitStore(),
    usage: new UsageCounter(),
    dictRefills: new DictRefills(),
  }
  return { ...services, search: new MemorySearchService(services, opts.search) }
}

/** Loads what a fresh process needs before serving (runtime config overlay). */
export async function warmUp(deps: Deps) {
  await loadRuntimeConfig(deps.read, deps.config)
  if (deps.datastore) await ensureRegistry(deps.datastore)
  await deps.changes.catchUp()
}
