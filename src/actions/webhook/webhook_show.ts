// webhook_show: one webhook with its secret (its owner and sysadmins).
import { z } from 'zod'
import { defineAction, type DataDict } from '../action'
import type { ActionContext } from '../../context'
import { NotFound, ValidationError } from '../../errors'
import { requireOwnWebhook } from '../../auth/webhook'
import { findWebhook, webhookDict, type WebhookRow } from '../../model/webhook'

/** The webhook `id` names; Validation Error when missing, Not Found when unknown. */
export async function loadWebhookRow(ctx: ActionContext, id: unknown): Promise<WebhookRow> {
  if (id === undefined || id === null || id === '') throw new ValidationError({ id: ['Missing value'] })
  const row = typeof id === 'string' ? await findWebhook(ctx, id) : undefined
  if (!row) throw new NotFound('Webhook not found')
  return row
}

/** The auth rule of the actions on one webhook: it exists, and it is the caller's. */
export const ownWebhook = (action: string) => async (ctx: ActionContext, input: DataDict) =>
  requireOwnWebhook(ctx, await loadWebhookRow(ctx, input.id), action)

export const webhookShow = defineAction({
  name: 'webhook_show',
  readOnly: true,
  help: `(beyond CKAN) Return a webhook, with its secret. Its owner and sysadmins only.

:param id: the webhook's id
:type id: string
:returns: id, user_id, url, events (null: every event), filters, active, created, modified,
    failing_since, disabled_reason and secret
:rtype: dictionary`,
  auth: ownWebhook('see'),
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    return webhookDict(await loadWebhookRow(ctx, input.id), true)
  },
})
