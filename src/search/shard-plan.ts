// How many shards the search index lives in (Workers' search tier): a fixed number, or chosen from
// the catalogue's size so that each shard's object stays under a heap budget. The count in use is
// kept in system_info and changes only after the shards of the new count were built (the Cron
// Trigger warms them, then switches), so no search ever waits on a cold build of a whole shard.
import type { ReadExecutor } from '../db/executor'
import type { Config } from '../config/load'
import type { CatalogDb } from '../db/types'
import { changeLog, systemInfo } from '../db/schema'
import { changeRow } from '../model/changes'

/** Its system_info key and change-log entity: the shard count in use (0: the isolate's own index). */
export const ACTIVE_SHARDS_KEY = 'search:shards'

/**
 * What one dataset costs a shard's object at its peak, while it builds its index from the
 * datasets: measured in workerd (test/worker/search-scale.test.ts: up to 61 MB of V8 heap for a
 * shard of 25,000 datasets, 20 MB of it the object's base, so ~1.7 kB a dataset; the loaded index
 * ~1.2 kB), with a margin. ArrayBuffers (the index's postings, a snapshot being written) are
 * outside V8's heap and not counted here: ~0.6 kB a dataset more when loaded.
 */
export const BYTES_PER_DATASET = 1800
/** What an object needs beside its index: workerd's isolate with the app loaded, serving. */
export const OBJECT_BASE_MB = 20

/** The setting: a fixed count (0: no shards), or null for automatic. */
export function configuredShards(config: Config): number | null {
  const v = config.str('service.search.shards').trim().toLowerCase()
  if (v === '' || v === 'auto') return null
  const n = Number(v)
  return Number.isInteger(n) && n >= 0 ? n : null
}

/**
 * The automatic count for a catalogue of `datasets`: none up to service.search.local_max_datasets
 * (an isolate holds the index), else the smallest power of two (at least 2) whose shards each hold
 * at most what service.search.shard_heap_mb leaves for the index. Powers of two, so that a growing
 * catalogue changes count rarely.
 */
export function autoShardCount(datasets: number, config: Config): number {
  if (datasets <= config.int('service.search.local_max_datasets')) return 0
  const budget = Math.max(1, config.int('service.search.shard_heap_mb') - OBJECT_BASE_MB) * 2 ** 20
  const perShard = Math.max(1, Math.floor(budget / BYTES_PER_DATASET))
  const needed = Math.ceil(datasets / perShard)
  let n = 2
  while (n < needed) n *= 2
  return n
}

/** The count in use as stored (0 when none was stored yet). */
export async function activeShards(read: ReadExecutor): Promise<number> {
  const rows = await read('SELECT value FROM system_info WHERE key = ?', [ACTIVE_SHARDS_KEY])
  const n = Number(rows[0]?.value ?? 0)
  return Number.isInteger(n) && n >= 0 ? n : 0
}

/** Makes `n` the count in use (isolates follow through the change log). */
export async function storeActiveShards(db: CatalogDb, n: number) {
  const value = String(n)
  await db.batch([
    db.insert(systemInfo).values({ key: ACTIVE_SHARDS_KEY, value }).onConflictDoUpdate({ target: systemInfo.key, set: { value } }),
    db.insert(changeLog).values(changeRow('config', ACTIVE_SHARDS_KEY)),
  ])
}
