// webhook_test: queue a test event (webhook.test) to a webhook, delivered like any other.
import { z } from 'zod'
import { defineAction } from '../action'
import { ValidationError } from '../../errors'
import { newDeliveryStatement, scheduleWebhookRun } from '../../jobs/webhooks'
import { loadWebhookRow, ownWebhook } from './webhook_show'

export const webhookTest = defineAction({
  name: 'webhook_test',
  readOnly: false,
  help: `(beyond CKAN) Queue a test event to a webhook: a webhook.test delivery (data: the webhook's
id), sent by the next delivery run like any other and listed by webhook_deliveries_list.

:param id: the webhook's id
:type id: string
:returns: the delivery's id (its webhook-id header)
:rtype: dictionary`,
  auth: ownWebhook('test'),
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const row = await loadWebhookRow(ctx, input.id)
    if (!row.active) throw ValidationError.field('id', 'The webhook is turned off (webhook_update with active: true)')
    const id = ctx.newId()
    await ctx.writer.write([
      newDeliveryStatement(ctx, { id, webhookId: row.id, event: 'webhook.test', seq: null, timestamp: ctx.now(), data: { webhook_id: row.id } }),
    ])
    await scheduleWebhookRun(ctx)
    return { id }
  },
})
