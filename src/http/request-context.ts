// The per-request ActionContext every surface builds: the caller from the request's API key or
// token (null: anonymous), once every write committed before the request began is seen.
import { apiKeyFrom, userForKey } from '../auth/api-key'
import type { ActionContext, Deps } from '../context'

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

/** The budget covers the call's own work, not the catching up it found waiting. */
export const contextFor = (deps: Deps, user: ActionContext['user']): ActionContext => ({
  ...deps,
  user,
  memo: new Map(),
  deadline: Date.now() + deps.config.int('service.action.timeout_ms'),
})
