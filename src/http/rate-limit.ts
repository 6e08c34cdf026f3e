// Rate limits (beyond CKAN; service.ratelimit.*): a fixed window per caller and class of request,
// counted in a store every process shares, answered with 429 and the IETF RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy "class";q=<quota>;w=<window>,
// RateLimit "class";r=<remaining>;t=<seconds to the window's end>) and Retry-After.
import type { Deps, RateLimitStore } from '../context'
import { RateLimited } from '../errors'
import { shortHash } from '../lib/short-hash'
import { apiKeyFrom } from '../auth/api-key'
import { clientAddress, type AddressSource } from './client-address'

export type LimitClass = 'reads' | 'searches' | 'writes' | 'datastore_sql' | 'uploads'

const NOUNS: Record<LimitClass, string> = {
  reads: 'reads',
  searches: 'searches',
  writes: 'writes',
  datastore_sql: 'datastore_search_sql calls',
  uploads: 'uploads',
}

/** The class an action call counts in: a write with a file is an upload. */
export function actionClass(name: string, readOnly: boolean, upload = false): LimitClass {
  if (name === 'datastore_search_sql') return 'datastore_sql'
  if (!readOnly) return upload ? 'uploads' : 'writes'
  if (name.endsWith('_search') || name.endsWith('_autocomplete')) return 'searches'
  return 'reads'
}

/** Who is asking: the user, the API key or token that named them (null: a session or none), the address. */
export interface LimitCaller {
  user: { id: string; sysadmin: boolean } | null
  credential: string | null
  address: string | undefined
}

export interface LimitVerdict {
  /** The RateLimit and RateLimit-Policy headers (and Retry-After when refused). */
  headers: Record<string, string>
  /** Set when the caller is over the limit: the error to answer with. */
  refused?: RateLimited
}

/**
 * Counts one request of class `klass` for `caller`; null when no limit applies (limits off, the
 * class unlimited, a sysadmin, no store, the store unreachable: a limit never fails a request).
 */
export async function checkRateLimit(deps: Deps, caller: LimitCaller, klass: LimitClass): Promise<LimitVerdict | null> {
  const { config } = deps
  if (!config.bool('service.ratelimit.enabled')) return null
  if (caller.user?.sysadmin && !config.bool('service.ratelimit.sysadmins')) return null
  const anonymous = !caller.user
  const limit = config.int(anonymous ? `service.ratelimit.anonymous.${klass}` : `service.ratelimit.${klass}`)
  if (!(limit > 0)) return null
  // a token or key counts apart from its owner's other tokens and session; only a hash is kept
  const [partition, who] = caller.credential
    ? [`k:${shortHash(caller.credential)}`, 'this API token']
    : caller.user
      ? [`u:${caller.user.id}`, 'this user']
      : [`a:${shortHash(caller.address ?? 'unknown')}`, 'this address']
  const window = Math.max(1, config.int('service.ratelimit.window_seconds'))
  const now = Date.now() / 1000
  const start = Math.floor(now / window) * window
  const reset = Math.max(1, Math.ceil(start + window - now))
  // buildDeps gives every process (isolate) a store: its memory unless the runtime shares one
  const store = deps.rateLimits
  if (!store) return null
  let count: number
  try {
    count = await store.hit(`${klass}:${partition}`, start, window)
  } catch (e) {
    console.error('rate limit store failed (request let through):', e)
    return null
  }
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${klass}";q=${limit};w=${window}`,
    RateLimit: `"${klass}";r=${Math.max(0, limit - count)};t=${reset}`,
  }
  if (count <= limit) return { headers }
  headers['Retry-After'] = String(reset)
  const message = `Rate limit exceeded: at most ${limit} ${NOUNS[klass]} every ${window} seconds for ${who}. Try again in ${reset} seconds.`
  return { headers, refused: new RateLimited(message, reset) }
}

/** Sets `verdict`'s headers on `res` (a Response whose headers may be immutable: then a copy). */
export function withLimitHeaders(res: Response, verdict: LimitVerdict | null | undefined): Response {
  if (!verdict) return res
  try {
    for (const [k, v] of Object.entries(verdict.headers)) res.headers.set(k, v)
    return res
  } catch {
    const copy = new Response(res.body, res)
    for (const [k, v] of Object.entries(verdict.headers)) copy.headers.set(k, v)
    return copy
  }
}

/**
 * Counters in this process's memory: buildDeps's default where the runtime gives no shared store
 * (tests, a Worker without its Durable Object binding). Windows past their end are dropped as it goes.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, { end: number; n: number }>()
  private sweptAt = 0

  async hit(key: string, windowStart: number, seconds: number): Promise<number> {
    const end = windowStart + seconds
    const now = Date.now() / 1000
    if (now - this.sweptAt > seconds) {
      this.sweptAt = now
      for (const [k, v] of this.counts) if (v.end <= now) this.counts.delete(k)
    }
    const kept = this.counts.get(key)
    if (kept && kept.end === end) return ++kept.n
    this.counts.set(key, { end, n: 1 })
    return 1
  }
}

/**
 * For a route that is not an action (downloads, dumps): counts one read of the request's caller;
 * a 429 plain-text answer when over the limit, else the verdict whose headers go on the answer.
 */
export async function checkRouteLimit(
  deps: Deps,
  c: AddressSource,
  user: LimitCaller['user'],
): Promise<{ refusal?: Response; verdict: LimitVerdict | null }> {
  const verdict = await checkRateLimit(
    deps,
    { user, credential: apiKeyFrom(c.req.raw.headers, deps.config), address: clientAddress(c, deps.config) },
    'reads',
  )
  if (!verdict?.refused) return { verdict }
  const refusal = new Response(`429 Too Many Requests: ${verdict.refused.message}`, {
    status: 429,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...verdict.headers },
  })
  return { refusal, verdict }
}
