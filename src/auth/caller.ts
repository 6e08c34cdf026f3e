// Rules about the caller alone: logged in, sysadmin, or refused whoever they are.
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'

export function requireSysadmin(ctx: ActionContext, what: string) {
  if (!ctx.user?.sysadmin) throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${what}`)
}

export function requireLoggedIn(ctx: ActionContext, action: string) {
  if (!ctx.user) throw new NotAuthorized(`Action ${action} requires an authenticated user`)
}

/**
 * An auth rule for actions only sysadmins may call (they never reach a rule): everyone else gets
 * `message`, by default CKAN's bare "Access denied".
 */
export const sysadminsOnly =
  (message?: string) =>
  (): never => {
    throw new NotAuthorized(message)
  }
