// Who may see and change a webhook: its owner; sysadmins never get here.
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import type { WebhookRow } from '../model/webhook'

/** A webhook of someone else is refused like an unknown one would be to its owner. */
export function requireOwnWebhook(ctx: ActionContext, row: WebhookRow, action: string) {
  if (ctx.user?.sysadmin) return
  if (!ctx.user || ctx.user.id !== row.user_id)
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${action} this webhook`)
}

/** webhook_list: a signed-in caller lists their own; another user's only for sysadmins. */
export function requireWebhookLister(ctx: ActionContext, input: { user?: unknown }) {
  if (!ctx.user) throw new NotAuthorized('Action webhook_list requires an authenticated user')
  const u = input.user
  if (u !== undefined && u !== null && u !== '' && u !== ctx.user.id && u !== ctx.user.name)
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to list the webhooks of another user`)
}
