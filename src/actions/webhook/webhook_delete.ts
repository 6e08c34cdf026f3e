// webhook_delete: remove a webhook and the record of its deliveries.
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { defineAction } from '../action'
import { webhookDeliveries, webhooks } from '../../db/schema'
import { loadWebhookRow, ownWebhook } from './webhook_show'

export const webhookDelete = defineAction({
  name: 'webhook_delete',
  readOnly: false,
  help: `(beyond CKAN) Delete a webhook with the record of its deliveries; nothing more is delivered.

:param id: the webhook's id
:type id: string`,
  auth: ownWebhook('delete'),
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const row = await loadWebhookRow(ctx, input.id)
    await ctx.writer.write([
      ctx.db.delete(webhookDeliveries).where(eq(webhookDeliveries.webhook_id, row.id)),
      ctx.db.delete(webhooks).where(eq(webhooks.id, row.id)),
    ])
    return null
  },
})
