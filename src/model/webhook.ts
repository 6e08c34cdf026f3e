// Webhooks (beyond CKAN): a user's subscriptions to the change feed's events, and their rows.
import { eq } from 'drizzle-orm'
import type { ActionContext } from '../context'
import { webhooks } from '../db/schema'

export type WebhookRow = typeof webhooks.$inferSelect

/** The change feed's object types (changes_list) and what happens to them. */
export const EVENT_TYPES = ['dataset', 'resource', 'organization', 'group', 'datastore'] as const
export const EVENT_CHANGES = ['created', 'updated', 'deleted', 'purged', 'made_private', 'made_public'] as const

/** `dataset.created`, `resource.*`, `*`: the events a webhook may name. */
export function isEventPattern(v: string): boolean {
  if (v === '*') return true
  const [type, change, ...rest] = v.split('.')
  return (
    rest.length === 0 &&
    (EVENT_TYPES as readonly string[]).includes(type ?? '') &&
    (change === '*' || (EVENT_CHANGES as readonly string[]).includes(change ?? ''))
  )
}

/** Whether `event` (type.change) is one of `patterns` (null: every event). */
export function eventMatches(patterns: string[] | null, event: string): boolean {
  if (!patterns) return true
  const [type] = event.split('.')
  return patterns.some((p) => p === '*' || p === event || p === `${type}.*`)
}

/** The filters a webhook may have: each narrows its events to one object (ids as stored). */
export const FILTER_KEYS = ['organization', 'dataset', 'resource', 'entity_type'] as const
export type WebhookFilters = Partial<Record<(typeof FILTER_KEYS)[number], string>>

/** A new secret as Standard Webhooks writes them: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  let bin = ''
  for (const b of crypto.getRandomValues(new Uint8Array(24))) bin += String.fromCharCode(b)
  return `whsec_${btoa(bin)}`
}

const parse = <T>(text: string | null): T | null => (text ? (JSON.parse(text) as T) : null)

/** The dict the webhook actions answer (the secret only to its owner and sysadmins). */
export function webhookDict(row: WebhookRow, withSecret: boolean) {
  return {
    id: row.id,
    user_id: row.user_id,
    url: row.url,
    events: parse<string[]>(row.events),
    filters: parse<WebhookFilters>(row.filters) ?? {},
    active: row.active,
    created: row.created,
    modified: row.modified,
    failing_since: row.failing_since,
    disabled_reason: row.disabled_reason,
    ...(withSecret && { secret: row.secret }),
  }
}

export async function findWebhook(ctx: ActionContext, id: string): Promise<WebhookRow | undefined> {
  const [row] = await ctx.db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1)
  return row
}
