// webhook_deliveries_list: what was delivered to a webhook, newest first.
import { desc, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import { defineAction } from '../action'
import { webhookDeliveries } from '../../db/schema'
import { naturalNumber } from '../../validation/fields'
import { loadWebhookRow, ownWebhook } from './webhook_show'

export const webhookDeliveriesList = defineAction({
  name: 'webhook_deliveries_list',
  readOnly: true,
  help: `(beyond CKAN) Return a webhook's deliveries, newest first: each with id (its webhook-id
header), event, status (pending, delivered or failed), attempts, response_code, latency_ms, error,
created, last_attempt and next_attempt.

:param id: the webhook's id
:type id: string
:param limit: at most this many (optional, default 100, at most 1000)
:type limit: int
:param offset: skip this many (optional)
:type offset: int
:rtype: list of dictionaries`,
  auth: ownWebhook('see'),
  params: z.looseObject({ limit: naturalNumber(100), offset: naturalNumber(0) }),
  async run(ctx, p, input) {
    const row = await loadWebhookRow(ctx, input.id)
    const rows = await ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhook_id, row.id))
      .orderBy(desc(sql`webhook_delivery.rowid`))
      .limit(Math.min(p.limit ?? 100, 1000))
      .offset(p.offset ?? 0)
    return rows.map(({ payload: _payload, webhook_id: _w, seq: _s, ...d }) => d)
  },
})
