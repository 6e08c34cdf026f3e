// webhook_list: the caller's webhooks (a sysadmin: anyone's, by user).
import { asc, eq } from 'drizzle-orm'
import { z } from 'zod'
import { defineAction } from '../action'
import { webhooks } from '../../db/schema'
import { loadUser } from '../../model/user'
import { webhookDict } from '../../model/webhook'
import { requireWebhookLister } from '../../auth/webhook'

export const webhookList = defineAction({
  name: 'webhook_list',
  readOnly: true,
  help: `(beyond CKAN) Return the caller's webhooks, oldest first, without their secrets.

:param user: (sysadmins) the id or name of the user whose webhooks to list (optional, default: the caller)
:type user: string
:rtype: list of dictionaries`,
  auth: requireWebhookLister,
  params: z.looseObject({}),
  async run(ctx, _p, input) {
    const user =
      input.user !== undefined && input.user !== null && input.user !== ''
        ? await loadUser(ctx, String(input.user), { notFound: 'User not found' })
        : ctx.user!
    const rows = await ctx.db.select().from(webhooks).where(eq(webhooks.user_id, user.id)).orderBy(asc(webhooks.created), asc(webhooks.id))
    return rows.map((r) => webhookDict(r, false))
  },
})
