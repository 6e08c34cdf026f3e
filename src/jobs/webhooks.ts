// Webhook deliveries (beyond CKAN): a job that turns the change log's new rows into deliveries for
// each active webhook, as its owner may see them (auth/changes-feed.ts, like changes_list), and
// sends the deliveries that are due, signed per the Standard Webhooks specification, retrying a
// failed one on a schedule and turning off a webhook that keeps failing.
import { and, eq, lte, sql } from 'drizzle-orm'
import { Webhook } from 'standardwebhooks'
import { z } from 'zod'
import { readChanges, type Change } from '../auth/changes-feed'
import { systemContext, type Deps } from '../context'
import type { RawStatement } from '../db/executor'
import { users, webhookDeliveries, webhooks } from '../db/schema'
import { addMs, isoToMs } from '../lib/time'
import { eventMatches, EVENT_TYPES, type WebhookFilters, type WebhookRow } from '../model/webhook'
import { defineJobKind } from './job-kinds'
import { fetchRefusal } from './loader/source'

export const WEBHOOK_KIND = 'webhook_dispatch'

/** Log rows one webhook reads per run (its cursor moves on by at most this many). */
const FAN_OUT_ROWS = 500
/** Due deliveries read at a time. */
const SEND_PAGE = 1000
/** How long one run keeps sending (the next run sends the rest). */
const SEND_BUDGET_MS = 20_000
/** How long a receiver has to answer. */
const SEND_TIMEOUT_MS = 10_000

export const webhookDispatchJob = defineJobKind({
  kind: WEBHOOK_KIND,
  payload: z.object({}).strict(),
  title: () => 'webhooks: deliver',
  async run(deps: Deps) {
    const created = await fanOut(deps)
    const sent = await sendDue(deps)
    return { created, ...sent }
  },
})

/**
 * Queues a delivery run unless one is waiting or running and no webhook is active. The Node
 * server calls it every service.webhooks.poll_seconds, a Worker at each Cron Trigger.
 */
export async function scheduleWebhookRun(deps: Deps): Promise<string | null> {
  const [active] = await deps.read('SELECT 1 FROM webhook WHERE active = 1 LIMIT 1')
  if (!active) return null
  const [busy] = await deps.read(`SELECT 1 FROM job WHERE kind = ? AND status IN ('queued', 'running') LIMIT 1`, [WEBHOOK_KIND])
  if (busy) return null
  return (await deps.jobs.enqueue({ kind: WEBHOOK_KIND, payload: {} })).id
}

/** The event name of a change: `dataset.created`. */
const eventOf = (c: Change) => `${c.type}.${c.change}`

/** The JSON body of a delivery (Standard Webhooks' type, timestamp, data). */
function deliveryPayload(event: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type: event, timestamp: timestamp.endsWith('Z') ? timestamp : `${timestamp}Z`, data })
}

/** The statement keeping a new delivery, due at once; `id` is its webhook-id. */
export function newDeliveryStatement(
  deps: Pick<Deps, 'now'>,
  d: { id: string; webhookId: string; event: string; seq: number | null; timestamp: string; data: Record<string, unknown> },
): RawStatement {
  const now = deps.now()
  return {
    sql: `INSERT INTO webhook_delivery (id, webhook_id, event, seq, payload, status, attempts, created, next_attempt)
          VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
    args: [d.id, d.webhookId, d.event, d.seq, deliveryPayload(d.event, d.timestamp, d.data), now, now],
  }
}

/** Makes the deliveries of every active webhook for the log rows after its cursor; how many. */
async function fanOut(deps: Deps): Promise<number> {
  const hooks = await deps.db.select().from(webhooks).where(eq(webhooks.active, true))
  let made = 0
  // what the filters look up, once per run (every webhook reads the same log rows)
  const lookups: FilterLookups = { datasetOf: new Map(), orgOf: new Map() }
  const owners = new Map<string, typeof users.$inferSelect | undefined>()
  for (const hook of hooks) {
    if (!owners.has(hook.user_id))
      owners.set(hook.user_id, (await deps.db.select().from(users).where(eq(users.id, hook.user_id)).limit(1))[0])
    const owner = owners.get(hook.user_id)
    if (!owner || owner.state === 'deleted') continue
    const ctx = { ...systemContext(deps), user: owner }
    const { changes, last } = await readChanges(ctx, hook.after_seq, FAN_OUT_ROWS, EVENT_TYPES)
    if (last === hook.after_seq) continue
    const events = hook.events ? (JSON.parse(hook.events) as string[]) : null
    const filters = hook.filters ? (JSON.parse(hook.filters) as WebhookFilters) : {}
    const wanted: Change[] = []
    for (const c of changes) if (eventMatches(events, eventOf(c)) && (await passesFilters(deps, c, filters, lookups))) wanted.push(c)
    const stmts: RawStatement[] = [
      // the cursor moves only from where this run read it: a second run on the same rows fails
      // (NOT NULL) instead of making their deliveries twice
      {
        sql: 'UPDATE webhook SET after_seq = CASE WHEN after_seq = ? THEN ? ELSE NULL END WHERE id = ?',
        args: [hook.after_seq, last, hook.id],
      },
      ...wanted.map((c) =>
        newDeliveryStatement(deps, { id: deps.newId(), webhookId: hook.id, event: eventOf(c), seq: c.seq, timestamp: c.timestamp, data: { ...c } }),
      ),
    ]
    try {
      await deps.writer.write(stmts)
      made += wanted.length
    } catch (e) {
      if (!/NOT NULL constraint failed: webhook\.after_seq/.test(String((e as Error)?.message ?? e))) throw e
    }
  }
  return made
}

/** Datasets of resources and organizations of datasets, as a run found them. */
interface FilterLookups {
  datasetOf: Map<string, string | undefined>
  orgOf: Map<string, string | null | undefined>
}

/** Whether a change is about the objects a webhook's filters name (ids as stored). */
async function passesFilters(deps: Deps, c: Change, f: WebhookFilters, seen: FilterLookups): Promise<boolean> {
  if (f.entity_type && f.entity_type !== c.type) return false
  if (!f.organization && !f.dataset && !f.resource) return true
  if (f.resource) return (c.type === 'resource' || c.type === 'datastore') && c.id === f.resource
  // the dataset (and its organization) a change is about, as they are now
  let datasetId: string | undefined
  if (c.type === 'dataset') datasetId = c.id
  else if (c.type === 'resource' || c.type === 'datastore') {
    if (!seen.datasetOf.has(c.id)) {
      const [r] = await deps.read('SELECT package_id FROM resource WHERE id = ?', [c.id])
      seen.datasetOf.set(c.id, r ? String(r.package_id) : undefined)
    }
    datasetId = seen.datasetOf.get(c.id)
  }
  if (f.dataset && datasetId !== f.dataset) return false
  if (f.organization) {
    if (c.type === 'organization') return c.id === f.organization
    if (!datasetId) return false
    if (!seen.orgOf.has(datasetId)) {
      const [p] = await deps.read('SELECT owner_org FROM package WHERE id = ?', [datasetId])
      seen.orgOf.set(datasetId, p ? (p.owner_org as string | null) : undefined)
    }
    return seen.orgOf.get(datasetId) === f.organization
  }
  return true
}

/** The pause before each retry of a failed delivery, in seconds (service.webhooks.retry_seconds). */
export function retrySchedule(deps: Pick<Deps, 'config'>): number[] {
  return deps.config
    .list('service.webhooks.retry_seconds')
    .map(Number)
    .filter((n) => Number.isFinite(n) && n >= 0)
}

/**
 * Sends the deliveries that are due and records each outcome: a page at a time in the order they
 * were made, a webhook's one after another (its events arrive as they happened), up to
 * service.webhooks.concurrency webhooks at once, until none is due or the run's time is up.
 */
async function sendDue(deps: Deps): Promise<{ delivered: number; failed: number }> {
  const schedule = retrySchedule(deps)
  const lanes = Math.max(1, deps.config.int('service.webhooks.concurrency'))
  const until = Date.now() + SEND_BUDGET_MS
  let delivered = 0
  let failed = 0
  const failing = new Set<string>()
  while (Date.now() < until) {
    const due = await deps.db
      .select({ d: webhookDeliveries, w: webhooks })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhook_id))
      .where(and(eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.next_attempt, deps.now()), eq(webhooks.active, true)))
      // in the order they were made (rowid): a webhook's events arrive as they happened
      .orderBy(sql`webhook_delivery.rowid`)
      .limit(SEND_PAGE)
    if (!due.length) break
    const byHook = new Map<string, typeof due>()
    for (const row of due) {
      const list = byHook.get(row.w.id)
      if (list) list.push(row)
      else byHook.set(row.w.id, [row])
    }
    const queue = [...byHook.values()]
    const outcomes: RawStatement[] = []
    const lane = async () => {
      for (let rows = queue.shift(); rows; rows = queue.shift()) {
        for (const { d, w } of rows) {
          // a webhook whose delivery just failed keeps its later events for the retry
          if (failing.has(w.id)) break
          const started = Date.now()
          const outcome = await send(deps, w, d.id, d.payload)
          const at = deps.now()
          const attempts = d.attempts + 1
          const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300
          const retryIn = schedule[attempts - 1]
          const status = ok ? 'delivered' : retryIn === undefined ? 'failed' : 'pending'
          outcomes.push(
            {
              sql: `UPDATE webhook_delivery SET status = ?, attempts = ?, response_code = ?, latency_ms = ?, error = ?,
                      last_attempt = ?, next_attempt = ? WHERE id = ?`,
              args: [status, attempts, outcome.status ?? null, Date.now() - started, ok ? null : outcome.error ?? `HTTP ${outcome.status}`, at,
                status === 'pending' ? addMs(at, retryIn! * 1000) : null, d.id],
            },
            ok
              ? { sql: 'UPDATE webhook SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL', args: [w.id] }
              : { sql: 'UPDATE webhook SET failing_since = coalesce(failing_since, ?) WHERE id = ?', args: [at, w.id] },
          )
          if (ok) delivered++
          else {
            failed++
            failing.add(w.id)
          }
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane))
    if (outcomes.length) await deps.writer.write(outcomes)
    for (const id of failing) await disableIfFailingTooLong(deps, id)
    if (due.length < SEND_PAGE) break
  }
  await pruneDeliveries(deps)
  return { delivered, failed }
}

/** Drops the record of deliveries settled longer ago than service.webhooks.keep_days. */
async function pruneDeliveries(deps: Deps) {
  const days = deps.config.int('service.webhooks.keep_days')
  if (days <= 0) return
  const cutoff = addMs(deps.now(), -days * 86_400_000)
  await deps.writer.write([
    { sql: "DELETE FROM webhook_delivery WHERE status IN ('delivered', 'failed') AND last_attempt < ?", args: [cutoff] },
  ])
}

/** POSTs one delivery; the receiver's status, or why there was none. */
async function send(deps: Deps, w: WebhookRow, id: string, payload: string): Promise<{ status?: number; error?: string }> {
  let url: URL
  try {
    url = new URL(w.url)
  } catch {
    return { error: 'Not a valid URL' }
  }
  const refusal = await fetchRefusal(deps, url, 'service.webhooks.allow_private_urls')
  if (refusal) return { error: refusal }
  const at = new Date(isoToMs(deps.now()))
  let signature: string
  try {
    signature = new Webhook(w.secret).sign(id, at, payload)
  } catch (e) {
    return { error: `Could not sign: ${(e as Error).message}` }
  }
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ckan-edge-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: payload,
    })
    await res.body?.cancel().catch(() => {})
    return { status: res.status }
  } catch (e) {
    const err = e as Error
    return { error: err.name === 'TimeoutError' ? `No answer within ${SEND_TIMEOUT_MS / 1000} s` : `${err.message}` }
  }
}

/**
 * Turns a webhook off once its deliveries have failed for service.webhooks.disable_after_days
 * without a success, and tells its owner by e-mail (where mail works).
 */
async function disableIfFailingTooLong(deps: Deps, id: string) {
  const days = deps.config.int('service.webhooks.disable_after_days')
  const [row] = await deps.db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1)
  if (!row?.failing_since || !row.active) return
  if (isoToMs(deps.now()) - isoToMs(row.failing_since) < days * 86_400_000) return
  const reason = `Deliveries failed for ${days} days without a success (since ${row.failing_since})`
  await deps.writer.write([
    { sql: 'UPDATE webhook SET active = 0, disabled_reason = ?, modified = ? WHERE id = ? AND active = 1', args: [reason, deps.now(), id] },
  ])
  const [owner] = await deps.db.select().from(users).where(eq(users.id, row.user_id)).limit(1)
  if (!owner?.email) return
  await deps.mailer
    .send({
      to: owner.email,
      subject: 'A webhook of yours was turned off',
      body:
        `Your webhook to ${row.url} was turned off: ${reason}.\n\n` +
        'Its deliveries are kept (webhook_deliveries_list); turn it back on with webhook_update and active: true.',
    })
    .catch((e) => console.error(`could not tell ${owner.name} that webhook ${id} was turned off`, e))
}
