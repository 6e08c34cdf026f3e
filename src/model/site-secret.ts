// Keys the site generates for itself and keeps in site_secret (the API token key, the web session
// key): made on first use; every process and isolate ends up with the first one written.
import { eq } from 'drizzle-orm'
import { siteSecrets } from '../db/schema'
import { toHex } from '../lib/hex'
import type { Deps } from '../context'

/**
 * Per process (a Workers isolate): keys once read, as values (never promises: a promise would
 * belong to the request that made it). Keyed by `deps.caches`, the one object that lives as long
 * as the process.
 */
const known = new WeakMap<object, Map<string, string>>()

/**
 * The stored key `name`, generated now if there is none. INSERT OR IGNORE and the read back go in
 * one batch (one transaction on the primary), so concurrent writers agree on the first key.
 */
export async function storedSecret(deps: Pick<Deps, 'caches' | 'db'>, name: string): Promise<string> {
  let keys = known.get(deps.caches)
  if (!keys) known.set(deps.caches, (keys = new Map()))
  const cached = keys.get(name)
  if (cached) return cached
  const fresh = toHex(crypto.getRandomValues(new Uint8Array(32)))
  const [, rows] = await deps.db.batch([
    deps.db.insert(siteSecrets).values({ key: name, value: fresh }).onConflictDoNothing(),
    deps.db.select().from(siteSecrets).where(eq(siteSecrets.key, name)),
  ])
  const value = rows[0]?.value
  if (!value) throw new Error(`site_secret: the key ${name} could not be stored`)
  keys.set(name, value)
  return value
}
