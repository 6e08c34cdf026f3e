// What webhook_create and webhook_update take: the URL (the SSRF guard applies), the events, the
// filters (names kept as ids, only objects the caller may read) and the secret.
import type { ActionContext } from '../../context'
import { ValidationError, type ErrorDict } from '../../errors'
import { canReadPackage } from '../../auth/package'
import { fetchRefusal } from '../../jobs/loader/source'
import { findGroup } from '../../model/group'
import { findPackage } from '../../model/package'
import { EVENT_TYPES, FILTER_KEYS, isEventPattern, type WebhookFilters } from '../../model/webhook'
import { loadWebhookRow } from './webhook_show'
import type { DataDict } from '../action'

export interface WebhookValues {
  url?: string
  events?: string[] | null
  filters?: WebhookFilters | null
  secret?: string
  active?: boolean
}

const MAX_URL = 2000

/** The `id` of webhook_show/_update/_delete/_deliveries_list/_test. */
export const webhookOf = (ctx: ActionContext, input: DataDict) => loadWebhookRow(ctx, input.id)

/**
 * The given fields checked (`required`: url must be there), or a Validation Error naming each
 * bad one. Absent fields stay undefined; an empty events list or filters dict clears them.
 */
export async function checkWebhookInput(ctx: ActionContext, input: DataDict, required: boolean): Promise<WebhookValues> {
  const errors: ErrorDict = {}
  const out: WebhookValues = {}
  const add = (k: string, m: string) => ((errors[k] ??= []) as string[]).push(m)

  if (input.url === undefined || input.url === null || input.url === '') {
    if (required) add('url', 'Missing value')
  } else if (typeof input.url !== 'string' || input.url.length > MAX_URL) add('url', `Must be a URL of at most ${MAX_URL} characters`)
  else {
    let url: URL | undefined
    try {
      url = new URL(input.url)
    } catch {
      add('url', 'Please provide a valid URL')
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:') add('url', 'Must be an http or https URL')
    else if (url) {
      // addresses written out and local names now; a name's addresses are checked at each delivery
      // (they may change, and a name that does not resolve yet may later)
      const refusal = await fetchRefusal({ ...ctx, loader: undefined }, url, 'service.webhooks.allow_private_urls')
      if (refusal) add('url', refusal)
      else out.url = url.href
    }
  }

  if (input.events !== undefined) {
    const v = input.events
    const list = v === null || v === '' ? [] : typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) add('events', 'Must be a list of events')
    else {
      const bad = (list as string[]).filter((e) => !isEventPattern(e))
      if (bad.length)
        add('events', `Unknown events: ${bad.join(', ')} (<type>.<change> or <type>.*; types: ${EVENT_TYPES.join(', ')}; changes: created, updated, deleted, purged, made_private, made_public)`)
      else out.events = list.length ? [...new Set(list as string[])] : null
    }
  }

  if (input.filters !== undefined) {
    const f = input.filters
    if (f === null || f === '') out.filters = null
    else if (typeof f !== 'object' || Array.isArray(f)) add('filters', 'Must be a dictionary')
    else {
      const filters: WebhookFilters = {}
      for (const [k, v] of Object.entries(f as DataDict)) {
        if (!(FILTER_KEYS as readonly string[]).includes(k)) {
          add('filters', `Unknown filter "${k}" (one of ${FILTER_KEYS.join(', ')})`)
          continue
        }
        if (typeof v !== 'string' || !v) {
          add('filters', `The filter "${k}" takes an id or a name`)
          continue
        }
        const found = await filterValue(ctx, k as keyof WebhookFilters, v)
        if (found === undefined) add('filters', k === 'entity_type' ? `Unknown entity_type "${v}" (one of ${EVENT_TYPES.join(', ')})` : `${k} "${v}" not found`)
        else filters[k as keyof WebhookFilters] = found
      }
      out.filters = Object.keys(filters).length ? filters : null
    }
  }

  if (input.secret !== undefined && input.secret !== null && input.secret !== '') {
    const s = input.secret
    let bytes = 0
    try {
      if (typeof s === 'string' && /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(s)) bytes = atob(s.slice(6)).length
    } catch {
      bytes = 0 // not base64 after all (a length no encoding makes)
    }
    if (bytes < 24 || bytes > 64) add('secret', 'Must be whsec_ followed by 24 to 64 bytes in base64 (or leave it out: one is made)')
    else out.secret = s as string
  }

  if (input.active !== undefined) {
    const a = input.active
    if (typeof a === 'boolean') out.active = a
    else if (a === 'true' || a === 'True') out.active = true
    else if (a === 'false' || a === 'False') out.active = false
    else add('active', 'Must be true or false')
  }

  if (Object.keys(errors).length) throw new ValidationError(errors)
  return out
}

/** A filter's value as stored (an id), or undefined when there is no such object to read. */
async function filterValue(ctx: ActionContext, key: keyof WebhookFilters, v: string): Promise<string | undefined> {
  if (key === 'entity_type') return (EVENT_TYPES as readonly string[]).includes(v) ? v : undefined
  if (key === 'organization') {
    const g = await findGroup(ctx, v)
    return g && g.is_organization && g.state === 'active' ? g.id : undefined
  }
  if (key === 'dataset') {
    const pkg = await findPackage(ctx, v)
    return pkg && (await canReadPackage(ctx, pkg)) ? pkg.id : undefined
  }
  const [row] = await ctx.read("SELECT package_id FROM resource WHERE id = ? AND state = 'active'", [v])
  if (!row) return undefined
  const pkg = await findPackage(ctx, String(row.package_id))
  return pkg && (await canReadPackage(ctx, pkg)) ? v : undefined
}

