// API tokens (CKAN 2.9): HS256 JWTs whose `jti` names a row of api_token, their key and their rows.
import { isoToMs, msToIso } from '../lib/time'
import { and, asc, eq, isNull, lt, or } from 'drizzle-orm'
import { decode, sign, verify } from 'hono/jwt'
import { apiTokens, users } from '../db/schema'
import { storedSecret } from './site-secret'
import { toBase64Url } from '../lib/base64url'
import type { Deps, UserRow } from '../context'

export type ApiTokenRow = typeof apiTokens.$inferSelect

/** The claims we put in a token: CKAN's `jti` and `iat`, plus `exp` when it expires. */
export interface TokenClaims {
  jti: string
  iat: number
  exp?: number
}

/** How long a token's last_access may lag: it is written at most once a minute. */
const TOUCH_INTERVAL_MS = 60_000
const SITE_SECRET_KEY = 'api_token.jwt.secret'

/**
 * What a process (a Workers isolate) keeps about tokens. Keyed by `deps.caches`, the one object
 * that lives as long as the process: Workers builds the other Deps fields anew per request.
 */
interface TokenState {
  /** jti → when this process last wrote its last_access (ms). */
  touched: Map<string, number>
}
const states = new WeakMap<object, TokenState>()

function stateOf(deps: Pick<Deps, 'caches'>): TokenState {
  let s = states.get(deps.caches)
  if (!s) states.set(deps.caches, (s = { touched: new Map() }))
  return s
}


/** Random bytes as URL-safe base64 without padding (Python's secrets.token_urlsafe). */
export function randomUrlSafe(nbytes: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(nbytes)))
}


/**
 * The key that signs (`encode`) or verifies (`decode`) tokens: the option, else the other
 * option (HS256 needs one key for both), else the site's generated key.
 */
async function tokenSecret(deps: Deps, use: 'encode' | 'decode'): Promise<string> {
  const other = use === 'encode' ? 'decode' : 'encode'
  const option = (which: string) => deps.config.str(`api_token.jwt.${which}.secret`)
  const configured = option(use) || option(other)
  // ckan: secrets are written "string:<value>"
  if (configured) return configured.startsWith('string:') ? configured.slice(7) : configured
  return storedSecret(deps, SITE_SECRET_KEY)
}

export async function encodeToken(deps: Deps, claims: TokenClaims): Promise<string> {
  return sign({ ...claims }, await tokenSecret(deps, 'encode'), 'HS256')
}

/**
 * The claims of a token signed with our key, or null (malformed, another key, another
 * algorithm). Expiry is not checked here: callers compare `exp` with deps.now().
 */
export async function verifiedClaims(deps: Deps, token: string): Promise<TokenClaims | null> {
  const secret = await tokenSecret(deps, 'decode') // a database failure is a real error
  try {
    const claims = await verify(token, secret, { alg: 'HS256', exp: false, iat: false, nbf: false })
    return typeof claims.jti === 'string' && claims.jti ? (claims as unknown as TokenClaims) : null
  } catch {
    return null // whatever is wrong with the token, it is just not one of ours
  }
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/**
 * The claims of a JWT-shaped key without checking its signature (undefined for anything else).
 * Only for keys already verified once, e.g. to see whether a cached token has expired.
 */
export function peekClaims(key: string): Partial<TokenClaims> | undefined {
  if (!JWT_SHAPE.test(key)) return undefined
  try {
    return decode(key).payload as Partial<TokenClaims>
  } catch {
    return undefined
  }
}

/** Whether claims carry an `exp` at or before `nowIso`. */
export const claimsExpired = (claims: Partial<TokenClaims>, nowIso: string) =>
  typeof claims.exp === 'number' && claims.exp * 1000 <= isoToMs(nowIso)

/** A token row and its owner, or undefined. */
export async function findTokenWithOwner(
  deps: Deps,
  jti: string,
): Promise<{ token: ApiTokenRow; user: UserRow } | undefined> {
  const [row] = await deps.db
    .select({ token: apiTokens, user: users })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.user_id))
    .where(eq(apiTokens.id, jti))
    .limit(1)
  return row
}

export async function findToken(deps: Deps, jti: string): Promise<ApiTokenRow | undefined> {
  const [row] = await deps.db.select().from(apiTokens).where(eq(apiTokens.id, jti)).limit(1)
  return row
}

/** A user's tokens, oldest first. */
export function tokensOf(deps: Deps, userId: string): Promise<ApiTokenRow[]> {
  return deps.db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.user_id, userId))
    .orderBy(asc(apiTokens.created_at), asc(apiTokens.id))
}

/** The scopes kept with a token (beyond CKAN; in plugin_extras), or undefined: none. */
export function tokenScopes(t: Pick<ApiTokenRow, 'plugin_extras'>): string[] | undefined {
  if (!t.plugin_extras) return undefined
  try {
    const scopes = (JSON.parse(t.plugin_extras) as { scopes?: unknown }).scopes
    return Array.isArray(scopes) ? scopes.map(String) : undefined
  } catch {
    return undefined
  }
}

/**
 * The api_token_list dict (ckan: the row without plugin_extras; expires_at is ours, and scopes
 * for a token that has them).
 */
export const tokenToDict = (t: ApiTokenRow) => {
  const scopes = tokenScopes(t)
  return {
    id: t.id,
    name: t.name,
    user_id: t.user_id,
    created_at: t.created_at,
    last_access: t.last_access,
    expires_at: t.expires_at,
    ...(scopes && { scopes }),
  }
}

/**
 * Records that a token was used, at most once a minute per token and process, and only when
 * the stored value is older than a minute (another process may have written it). No change-log
 * entry: nothing derived depends on it. Runs on the request's own database client and never
 * fails the request.
 */
export async function touchToken(deps: Deps, jti: string): Promise<void> {
  const { touched } = stateOf(deps)
  const now = deps.now()
  const nowMs = isoToMs(now)
  const last = touched.get(jti)
  if (last !== undefined && nowMs - last < TOUCH_INTERVAL_MS && nowMs >= last) return
  touched.delete(jti) // re-insert at the end: the map drops its oldest entries first
  if (touched.size >= 10_000) touched.delete(touched.keys().next().value!)
  touched.set(jti, nowMs)
  const staleBefore = msToIso(nowMs - TOUCH_INTERVAL_MS)
  try {
    await deps.db
      .update(apiTokens)
      .set({ last_access: now })
      .where(
        and(
          eq(apiTokens.id, jti),
          or(isNull(apiTokens.last_access), lt(apiTokens.last_access, staleBefore)),
        ),
      )
  } catch (e) {
    console.warn('api_token: last_access not recorded', e)
  }
}
