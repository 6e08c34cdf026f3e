// The one way a surface reaches an action: the action route, web pages (and DCAT through them),
// MCP, the OpenAPI and autocomplete routes, and the Node adapters' lookups (pre-app 304, replica
// writes). Actions composing other actions call invoke() directly.
import type { ActionContext } from '../context'
import { apiAtLeast } from '../config/api-compat'
import type { Config } from '../config/load'
import type { DataDict } from '../data-dict'
import { BadRequest } from '../errors'
import { registry, type AnyAction } from '.'
import { invoke } from './invoke'

/**
 * The action registered under `name` (undefined: none, or one that the CKAN version `config`
 * speaks removed), for what a surface decides before calling. Without a config, any registered
 * action (for lookups that only ask whether it writes).
 */
export function actionNamed(name: string, config?: Config): AnyAction | undefined {
  const action = registry.get(name)
  return config && action?.removedIn && apiAtLeast(config, action.removedIn) ? undefined : action
}

/**
 * The action `name` as this configuration offers it (undefined: unknown here: removed in the CKAN
 * version the site speaks, or not offered under its settings).
 */
export function actionOffered(name: string, config: Config): AnyAction | undefined {
  const action = actionNamed(name, config)
  return action && (action.offered?.(config) ?? true) ? action : undefined
}

/**
 * Runs action `name` as `ctx`'s caller: auth → validate → run (invoke.ts). An unknown name is
 * CKAN's Bad Request. After a write action, later requests of this process's turn look at the
 * change log again (the write may have committed even when it then failed).
 */
export async function callAction<R = unknown>(ctx: ActionContext, name: string, params: DataDict = {}): Promise<R> {
  const action = actionOffered(name, ctx.config)
  if (!action) throw new BadRequest(`Action name not known: ${name}`)
  try {
    return (await invoke(ctx, action, params)) as R
  } finally {
    if (!action.readOnly) ctx.changes.touched()
  }
}
