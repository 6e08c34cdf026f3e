// The composition root: builds every per-process service once, for both runtime entries and the tests.
import type { Config } from '../config/load'
import type { Deps } from '../context'
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
import { ensureRegistry } from '../datastore/registry'

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
}

export function buildDeps(config: Config, db: CatalogDb, opts: BuildOptions = {}): Deps {
  const caches = new LruCaches()
  const read = opts.readExecutor ?? clientReader(db.$client)
  const changes = new LogChangeFeed(read, opts.headProbe)
  // Listeners run in order: caches first, so the dicts search re-reads are never stale ones.
  changes.subscribe((batch) => caches.apply(batch))
  changes.subscribe(async (batch) => {
    if (batch.some((c) => c.entity_type === 'config')) await loadRuntimeConfig(db, config)
  })
  const services = {
    db,
    config,
    changes,
    caches,
    now: nowIso,
    newId: () => crypto.randomUUID(),
    writer: new WriteBatcher(opts.writeExecutor ?? clientExecutor(db.$client), () => changes.touched()),
    read,
    datastore: opts.datastore,
    actions: registry,
  }
  return { ...services, search: new MemorySearchService(services, opts.search) }
}

/** Loads what a fresh process needs before serving (runtime config overlay). */
export async function warmUp(deps: Deps) {
  await loadRuntimeConfig(deps.db, deps.config)
  if (deps.datastore) await ensureRegistry(deps.datastore)
  await deps.changes.catchUp()
}
