// Validators for read actions answered over GET: a strong ETag from what the answer depends on
// (the action, its parameters, the caller and the change-log position every write moves) and the
// Cache-Control a shared cache may follow (anonymous answers only).
import { toBool } from '../validation/fields'
import type { Config } from '../config/load'
import type { DataDict } from '../data-dict'
import { sha256 } from '@noble/hashes/sha2.js'
import { toHex } from '../lib/hex'

/**
 * Read actions whose answer is not a function of the catalogue database at a log position (every
 * write to it moves the log: model/write-batcher.ts logged()): the site user (made on first use),
 * API tokens (last_access is written at most once a minute without a log row), jobs (the queue
 * writes outside the log), and SQL over any DataStore table. Every other read action is cacheable.
 */
const NOT_CACHEABLE = new Set(['get_site_user', 'api_token_list', 'job_list', 'job_show', 'datastore_search_sql'])

/**
 * DataStore reads of one table: their ETag also holds the table's version (moved by every write to
 * it). The parameters that may name the table, in the order the action reads them.
 */
export const TABLE_READS: Record<string, string[]> = {
  datastore_search: ['resource_id', 'id'],
  datastore_info: ['resource_id', 'id'],
}

export const isCacheable = (name: string, readOnly: boolean) => readOnly && !NOT_CACHEABLE.has(name)

/**
 * Whether an answer holds usage figures, which change without the change log (their flushes move
 * no log position): include_tracking, or a search ordered by views. Such answers get no validators.
 */
export function holdsUsageFigures(name: string, data: Record<string, unknown>): boolean {
  if (name === 'package_show' || name === 'resource_show') return toBool(data.include_tracking)
  return name === 'package_search' && typeof data.sort === 'string' && data.sort.includes('views_')
}

/** The caller as an answer's validators name it: user id and sysadmin flag ('' anonymous). */
export const callerTag = (user: { id: string; sysadmin: boolean } | null | undefined) =>
  user ? `${user.id}:${user.sysadmin ? 1 : 0}` : ''

/** The request headers an API answer depends on (who is asking). */
export const CALLER_VARY = 'Authorization, X-CKAN-API-Key, X-SERVICE-API-Key, Cookie'

/** Keys sorted at every level: the same parameters in any order give the same text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}

const encoder = new TextEncoder()

/**
 * The ETag of an answer: the action as its help URL (which holds the site URL the answer's links
 * use), parameters, caller (and JSONP callback), version (the log position, and for a DataStore
 * read the table's own version). SHA-256 (a tag also keys the
 * Workers answer cache, so no one may craft a request whose tag another answer has), computed
 * synchronously: WebCrypto's digest is a round trip through a thread pool costing more than the
 * rest of a 304 (measured on Node: ~25 µs against ~1.5 µs).
 */
export function answerTag(scope: string, data: DataDict, caller: string, version: number | string, callback?: string): string {
  const params = canonical(data)
  // Solr date math relative to NOW (package_search's fq, q): the answer moves with the clock
  const clock = params.includes('NOW') ? `\n${Date.now()}` : ''
  const text = `${scope}\n${params}\n${caller}\n${callback ?? ''}\n${version}${clock}`
  return `"${toHex(sha256(encoder.encode(text)).subarray(0, 16))}"`
}

/**
 * If-None-Match lists `etag` (weakly compared, as RFC 9110 asks for If-None-Match), or is `*`
 * where the caller knows a current representation exists (`star`; not before an action has run:
 * it may answer an error).
 */
export const ifNoneMatch = (header: string | null, etag: string, star = true) =>
  !!header &&
  header.split(',').some((t) => {
    const v = t.trim()
    return (star && v === '*') || v.replace(/^W\//, '') === etag
  })

/**
 * Anonymous answers (which hold only public data) may be kept by shared caches for
 * service.http.s_maxage seconds and by browsers for service.http.max_age (default 0: they
 * revalidate, cheaply, with the ETag); an authenticated or JSONP answer is private.
 */
export function cacheControl(config: Config, anonymous: boolean, jsonp: boolean): string {
  const maxAge = Math.max(0, config.int('service.http.max_age') || 0)
  if (!anonymous || jsonp) return `private, max-age=0, must-revalidate`
  const shared = Math.max(0, config.int('service.http.s_maxage') || 0)
  return `public, max-age=${maxAge}, s-maxage=${shared}`
}
