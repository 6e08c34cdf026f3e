// Finds the calling user from the API key headers, by API key or API token (or nobody: anonymous).
import { isoToMs } from '../lib/time'
import { eq } from 'drizzle-orm'
import { users } from '../db/schema'
import { apiAtLeast } from '../config/api-compat'
import type { Config } from '../config/load'
import type { Deps, UserRow } from '../context'
import type { ScopedUser } from './scopes'
import {
  claimsExpired,
  findTokenWithOwner,
  peekClaims,
  tokenScopes,
  touchToken,
  verifiedClaims,
} from '../model/api-token'

/**
 * The key sent by the caller, from any of the accepted headers: apitoken_header_name (CKAN
 * 2.11's name), apikey_header_name (2.9's), X-CKAN-API-Key, X-SERVICE-API-Key, Authorization
 * (a `Bearer ` prefix dropped).
 */
export function apiKeyFrom(headers: Pick<Headers, 'get'>, config: Config): string | null {
  const named = [config.str('apitoken_header_name'), config.str('apikey_header_name')]
  for (const name of [...named, 'X-CKAN-API-Key', 'X-SERVICE-API-Key']) {
    if (!name || name.toLowerCase() === 'authorization') continue
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

/**
 * The user owning `key` (an API key or an API token; under api_compat 2.10 or later a token
 * only), or null, which makes the caller anonymous as CKAN does for a wrong key. Cached per process; the change log keeps the cache right (a
 * token's revocation, its owner's deletion). A token's expiry is in its own claims, so it is
 * checked on cached hits too.
 */
export async function userForKey(deps: Deps, key: string): Promise<UserRow | null> {
  // Our API keys are UUIDs, so a JWT-shaped key is only ever tried as a token.
  const claims = peekClaims(key)
  // ckan 2.10: API tokens are the only keys; a legacy key makes the caller anonymous
  if (!claims && apiAtLeast(deps.config, '2.10')) return null
  if (claims && claimsExpired(claims, deps.now())) return null
  let row = deps.caches.usersByKey.get(key)
  if (row === undefined) {
    row = claims ? await userForToken(deps, key) : await userForApiKey(deps, key)
    deps.caches.usersByKey.set(key, row)
  }
  if (row && claims && typeof claims.jti === 'string') await touchToken(deps, claims.jti)
  return row
}

async function userForApiKey(deps: Deps, key: string): Promise<UserRow | null> {
  const [row] = await deps.db.select().from(users).where(eq(users.apikey, key)).limit(1)
  return row ?? null
}

/**
 * ckan: a token is refused when its signature, row (revoked) or owner (deleted) is wrong. A token
 * with scopes names its owner with them, never as a sysadmin unless one of them is `admin`
 * (auth/scopes.ts; invoke checks them).
 */
async function userForToken(deps: Deps, token: string): Promise<UserRow | null> {
  const claims = await verifiedClaims(deps, token)
  if (!claims) return null
  const found = await findTokenWithOwner(deps, claims.jti)
  if (!found || found.user.state === 'deleted') return null
  const expiresAt = found.token.expires_at
  if (expiresAt && isoToMs(expiresAt) <= isoToMs(deps.now())) return null
  const scopes = tokenScopes(found.token)
  if (!scopes || scopes.includes('admin')) return found.user
  return { ...found.user, sysadmin: false, tokenScopes: scopes } as ScopedUser
}
