// Validators for read actions answered over GET: a strong ETag from what the answer depends on
// (the action, its parameters, the caller and the change-log position every write moves) and the
// Cache-Control a shared cache may follow (anonymous answers only).
import type { Config } from '../config/load'
import type { DataDict } from '../data-dict'
import { toHex } from '../lib/hex'

/**
 * Read actions whose answer is a function of the catalogue database, every write to which is in
 * the change log. Left out: the DataStore's (its rows are not in that log), and answers holding
 * followers, activity, jobs or ratings, whose writes are not logged.
 */
export const CACHEABLE_ACTIONS = new Set([
  'package_show',
  'package_search',
  'package_list',
  'current_package_list_with_resources',
  'resource_show',
  'group_list',
  'organization_list',
  'tag_list',
  'tag_show',
  'vocabulary_list',
  'vocabulary_show',
  'license_list',
  'site_read',
  'status_show',
  'changes_list',
  'member_list',
  'package_relationships_list',
])

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

/**
 * The ETag of an answer: the action as its help URL (which holds the site URL the answer's links
 * use), parameters, caller (and JSONP callback), log position.
 */
export async function answerTag(scope: string, data: DataDict, caller: string, seq: number, callback?: string): Promise<string> {
  const text = `${scope}\n${canonical(data)}\n${caller}\n${callback ?? ''}\n${seq}`
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return `"${toHex(new Uint8Array(digest)).slice(0, 32)}"`
}

/** If-None-Match lists `etag` (weakly compared, as RFC 9110 asks for If-None-Match), or is `*`. */
export const ifNoneMatch = (header: string | null, etag: string) =>
  !!header &&
  header.split(',').some((t) => {
    const v = t.trim()
    return v === '*' || v.replace(/^W\//, '') === etag
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
