// Node: rate-limit counters every process of a site shares (service.ratelimit.*). Beside a
// catalogue file, a small libSQL file of its own (ratelimit.db) written with the synchronous
// driver: an upsert per counted request (~20 µs), never waiting on the catalogue's write lock.
// With a remote catalogue or an embedded replica, the counters live on that libSQL server (the
// replicas' primary), one round trip per counted request.
import { dirname, resolve } from 'node:path'
import Database from 'libsql'
import { createClient } from '@libsql/client'
import type { RateLimitStore } from '../context'

const DDL =
  'CREATE TABLE IF NOT EXISTS rate_limit (key TEXT NOT NULL, window_end INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (key, window_end)) WITHOUT ROWID'
const HIT =
  'INSERT INTO rate_limit (key, window_end, count) VALUES (?, ?, 1) ON CONFLICT (key, window_end) DO UPDATE SET count = count + 1 RETURNING count'
const SWEEP = 'DELETE FROM rate_limit WHERE window_end <= ?'

/** Counters in a libSQL file on this machine (shared by every process that opens it). */
export function fileRateLimitStore(path: string): RateLimitStore & { close(): void } {
  const db = new Database(path)
  // counters are worth nothing after a crash: no fsync
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA busy_timeout=2000')
  db.exec(DDL)
  const hit = db.prepare(HIT)
  const sweep = db.prepare(SWEEP)
  let sweptAt = 0
  return {
    async hit(key, windowStart, seconds) {
      const now = Date.now() / 1000
      if (now - sweptAt > 60) {
        sweptAt = now
        sweep.run(Math.floor(now))
      }
      const row = hit.get(key, windowStart + seconds) as { count: number }
      return Number(row.count)
    },
    close: () => db.close(),
  }
}

/** Counters on a libSQL server (a remote catalogue, or the primary of embedded replicas). */
export function serverRateLimitStore(url: string, authToken?: string): RateLimitStore {
  const client = createClient({ url, authToken })
  let ready: Promise<unknown> | undefined
  let sweptAt = 0
  return {
    async hit(key, windowStart, seconds) {
      await (ready ??= client.execute(DDL).catch((e) => {
        ready = undefined
        throw e
      }))
      const now = Date.now() / 1000
      if (now - sweptAt > 60) {
        sweptAt = now
        client.execute({ sql: SWEEP, args: [Math.floor(now)] }).catch(() => undefined)
      }
      const rs = await client.execute({ sql: HIT, args: [key, windowStart + seconds] })
      return Number(rs.rows[0]?.count ?? 1)
    },
  }
}

/** The store for a server: beside the catalogue file, else on the (primary) libSQL server. */
export function nodeRateLimitStore(catalogueUrl: string, primaryUrl: string | undefined, authToken?: string): RateLimitStore {
  if (primaryUrl) return serverRateLimitStore(primaryUrl, authToken)
  if (catalogueUrl.startsWith('file:')) {
    const path = catalogueUrl.slice(5).split('?')[0]!
    return fileRateLimitStore(resolve(dirname(path), 'ratelimit.db'))
  }
  return serverRateLimitStore(catalogueUrl, authToken)
}
