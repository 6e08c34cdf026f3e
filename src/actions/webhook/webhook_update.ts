// webhook_update: change a webhook's URL, events, filters, secret or active flag.
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import { defineAction } from '../action'
import { webhooks } from '../../db/schema'
import { webhookDict, type WebhookRow } from '../../model/webhook'
import { checkWebhookInput } from './input'
import { loadWebhookRow, ownWebhook } from './webhook_show'

export const webhookUpdate = defineAction({
  name: 'webhook_update',
  readOnly: false,
  help: `(beyond CKAN) Change a webhook: the fields given replace the stored ones (see
webhook_create); active: true turns a webhook the site disabled back on.

:param id: the webhook's id
:type id: string
:param url, events, filters, secret: as for webhook_create (optional)
:param active: whether deliveries are made (optional)
:type active: bool
:returns: the webhook, with its secret
:rtype: dictionary`,
  auth: ownWebhook('change'),
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const row = await loadWebhookRow(ctx, input.id)
    const v = await checkWebhookInput(ctx, input, false)
    const next: WebhookRow = {
      ...row,
      ...(v.url !== undefined && { url: v.url }),
      ...(v.events !== undefined && { events: v.events ? JSON.stringify(v.events) : null }),
      ...(v.filters !== undefined && { filters: v.filters ? JSON.stringify(v.filters) : null }),
      ...(v.secret !== undefined && { secret: v.secret }),
      ...(v.active !== undefined && { active: v.active }),
      modified: ctx.now(),
    }
    // turned back on: its failures start again from nothing
    if (v.active && !row.active) Object.assign(next, { failing_since: null, disabled_reason: null })
    await ctx.writer.write([ctx.db.update(webhooks).set(next).where(eq(webhooks.id, row.id))])
    return webhookDict(next, true)
  },
})
