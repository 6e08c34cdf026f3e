// The one place that orders authorization, validation and run for an action call.
import type { z } from 'zod'
import type { ActionContext } from '../context'
import { NotAuthorized, ValidationError } from '../errors'
import { zodToErrorDict } from '../validation/zod-errors'
import type { Action, AuthRule, DataDict } from './action'
import { checkScopes } from '../auth/scopes'

export interface InvokeOptions {
  /** Skip the auth rule (CKAN's ignore_auth), as actions do when they compose others. */
  skipAuth?: boolean
}

export async function invoke<P extends z.ZodType, R>(
  ctx: ActionContext,
  action: Action<P, R>,
  input: DataDict,
  opts: InvokeOptions = {},
): Promise<R> {
  // A deleted user identified by key is refused everything, sysadmin or not.
  if (ctx.user && ctx.user.state === 'deleted') throw new NotAuthorized()
  const auth = !opts.skipAuth && !ctx.ignoreAuth
  try {
    // a scoped API token first, before any check of the input: it narrows what its owner may do
    if (auth) await checkScopes(ctx, action as Action<z.ZodType, unknown> & { aliasOf?: string }, input)
    if (action.validateFirst) {
      const parsed = parse(action, input)
      if (auth) await checkAuth(ctx, action, input)
      return await action.run(ctx, parsed, input)
    }
    if (auth) await checkAuth(ctx, action, input)
    return await action.run(ctx, parse(action, input), input)
  } catch (e) {
    // A dict whose `toString`/`valueOf` key holds data throws when JavaScript makes text of it
    // (Python's str() never fails). Field checks refuse it by name (validation/fields.ts); any
    // other place that turns a parameter into text refuses it here, before anything is written
    // (every write is one batch at the end of run).
    if (e instanceof TypeError && /convert object to primitive/.test(e.message))
      throw new ValidationError({ message: ['Invalid value: a dict where text was expected'] })
    throw e
  }
}

function parse<P extends z.ZodType>(action: Action<P, unknown>, input: DataDict): z.output<P> {
  const parsed = action.params.safeParse(input)
  if (!parsed.success) throw new ValidationError(zodToErrorDict(parsed.error))
  return parsed.data
}

async function checkAuth(ctx: ActionContext, action: Action<z.ZodType, unknown>, input: DataDict) {
  const rule: AuthRule = action.auth
  if (rule === 'anyone' || ctx.user?.sysadmin) return // ckan: sysadmins pass every auth check
  if (!ctx.user && !action.readOnly && !action.allowAnonymous)
    throw new NotAuthorized(`Action ${action.name} requires an authenticated user`)
  if (typeof rule === 'function') return rule(ctx, input)
  if (!ctx.user) throw new NotAuthorized(`Action ${action.name} requires an authenticated user`)
  if (rule === 'sysadmin') throw new NotAuthorized(`User ${ctx.user.name} not authorized to ${action.name}`)
}
