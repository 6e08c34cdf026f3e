// The per-request ActionContext every surface builds: the caller from the request's API key or
// token (null: anonymous), once every write committed before the request began is seen. The
// /api/ routes may also take the caller from the web pages' session cookie (apiCaller).
import { apiKeyFrom, userForKey } from '../auth/api-key'
import { apiAtLeast } from '../config/api-compat'
import type { Config } from '../config/load'
import type { ActionContext, Deps } from '../context'
import { hasSessionCookie, sessionUser } from '../web/session'

/** A per-request context for `deps`, with the caller resolved from the request headers. */
export async function requestContext(deps: Deps, headers: Headers | null): Promise<ActionContext> {
  return contextFor(deps, await requestCaller(deps, headers))
}

/**
 * The caller the request's key names (null: anonymous), once every write committed before the
 * request began is seen (caches follow the change log).
 */
export async function requestCaller(deps: Deps, headers: Pick<Headers, 'get'> | null): Promise<ActionContext['user']> {
  const key = headers ? apiKeyFrom(headers, deps.config) : null
  await deps.changes.catchUp({ shareTurn: true })
  return key ? await userForKey(deps, key) : null
}

/**
 * CKAN 2.10's ckan.auth.enable_cookie_auth_in_api: under api_compat 2.10 or later (and the option
 * true, its default) the API also reads the web pages' session cookie; under 2.9 never.
 */
export const cookieAuthInApi = (config: Config): boolean =>
  apiAtLeast(config, '2.10') && config.bool('service.auth.enable_cookie_auth_in_api')

/**
 * Whether an API request may name a caller, so that no answer kept for anonymous callers may
 * stand for it: a key or token header, or (where the API reads it) a session cookie.
 */
export const mayNameCaller = (headers: Pick<Headers, 'get'>, config: Config): boolean =>
  apiKeyFrom(headers, config) !== null || (cookieAuthInApi(config) && hasSessionCookie(headers))

/** An API caller, and whether the session cookie (not a header) named it: its posts need the CSRF token. */
export interface ApiCaller {
  user: ActionContext['user']
  byCookie: boolean
}

/**
 * The caller of an /api/ request: the user a key or token in the headers names, else (where
 * cookieAuthInApi) the session cookie's, else anonymous. A valid header wins over the cookie, as on
 * the web pages; such a caller needs no CSRF token (a cross-site form cannot set headers).
 */
export async function apiCaller(deps: Deps, headers: Pick<Headers, 'get'> | null): Promise<ApiCaller> {
  const user = await requestCaller(deps, headers)
  if (user || !headers || !cookieAuthInApi(deps.config)) return { user, byCookie: false }
  const session = await sessionUser(deps, { headers })
  return { user: session, byCookie: !!session }
}

/** requestContext for an /api/ route that only reads (GET): the caller as apiCaller finds it. */
export async function apiRequestContext(deps: Deps, headers: Headers | null): Promise<ActionContext> {
  return contextFor(deps, (await apiCaller(deps, headers)).user)
}

/** The budget covers the call's own work, not the catching up it found waiting. */
export const contextFor = (deps: Deps, user: ActionContext['user']): ActionContext => ({
  ...deps,
  user,
  memo: new Map(),
  deadline: Date.now() + deps.config.int('service.action.timeout_ms'),
  seenSeq: deps.changes.lastSeq,
})
