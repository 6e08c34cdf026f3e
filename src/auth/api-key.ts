// Finds the calling user from the API key headers (or nobody: anonymous).
import { eq } from 'drizzle-orm'
import { users } from '../db/schema'
import type { Deps, UserRow } from '../context'

/** The key sent by the caller, from any of the accepted headers. */
export function apiKeyFrom(headers: Headers, configuredHeader: string): string | null {
  for (const name of [configuredHeader, 'X-CKAN-API-Key', 'X-SERVICE-API-Key']) {
    const v = headers.get(name)
    if (v && v.trim()) return v.trim()
  }
  const auth = headers.get('authorization')
  if (auth && auth.trim()) {
    const v = auth.trim()
    return /^bearer\s+/i.test(v) ? v.replace(/^bearer\s+/i, '') : v
  }
  return null
}

/** The user owning `key`, or null. Cached per process; the change log keeps the cache right. */
export async function userForKey(deps: Deps, key: string): Promise<UserRow | null> {
  const cached = deps.caches.usersByKey.get(key)
  if (cached !== undefined) return cached
  const [row] = await deps.db.select().from(users).where(eq(users.apikey, key)).limit(1)
  deps.caches.usersByKey.set(key, row ?? null)
  return row ?? null
}
