// webhook_create: subscribe a URL to the change feed's events, as the caller sees them.
import { z } from 'zod'
import { defineAction } from '../action'
import { webhooks } from '../../db/schema'
import { newSecret, webhookDict, type WebhookRow } from '../../model/webhook'
import { checkWebhookInput } from './input'

export const webhookCreate = defineAction({
  name: 'webhook_create',
  readOnly: false,
  help: `(beyond CKAN) Subscribe a URL to the change feed's events. Deliveries follow the Standard
Webhooks specification (webhook-id, webhook-timestamp and webhook-signature headers, HMAC-SHA256 with
the secret) and carry only changes of objects the webhook's owner could read when they happened.

:param url: where events are POSTed (http or https; loopback, link-local and private addresses are
    refused unless service.webhooks.allow_private_urls)
:type url: string
:param events: the events to deliver (optional, default: all): <type>.<change> or <type>.* with
    type dataset, resource, organization, group or datastore and change created, updated, deleted,
    purged, made_private or made_public
:type events: list of strings
:param filters: (optional) only events about this organization, dataset, resource (ids or names)
    or entity_type
:type filters: dictionary
:param secret: the signing secret, whsec_ and 24 to 64 bytes in base64 (optional: one is made)
:type secret: string
:returns: the webhook, with its secret
:rtype: dictionary`,
  auth: 'logged-in',
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const v = await checkWebhookInput(ctx, input, true)
    const now = ctx.now()
    // deliveries start after the change log as it is now
    const [last] = await ctx.read('SELECT coalesce(max(seq), 0) AS seq FROM change_log')
    const row: WebhookRow = {
      id: ctx.newId(),
      user_id: ctx.user!.id,
      url: v.url!,
      events: v.events ? JSON.stringify(v.events) : null,
      filters: v.filters ? JSON.stringify(v.filters) : null,
      secret: v.secret ?? newSecret(),
      active: v.active ?? true,
      after_seq: Number(last?.seq ?? 0),
      created: now,
      modified: now,
      failing_since: null,
      disabled_reason: null,
    }
    await ctx.writer.write([ctx.db.insert(webhooks).values(row)])
    return webhookDict(row, true)
  },
})
