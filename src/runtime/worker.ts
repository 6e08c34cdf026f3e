// Workers entry (wrangler.toml main): the same app over libSQL's HTTP client, with per-request I/O.
import { createClient, type Client } from '@libsql/client/web'
import { drizzle } from 'drizzle-orm/libsql/web'
import type { ExecutionContext } from 'hono'
import { createApp, type App } from '../app'
import { loadConfig, type Config } from '../config/load'
import { schema } from '../db/schema'
import type { Deps } from '../context'
import { clientExecutor, clientReader } from '../db/executor'
import type { CatalogDb } from '../db/types'
import { buildDeps, warmUp } from './deps'
import { defaultAnswerCache } from './worker-answer-cache'
import {
  clientDatastore,
  clientDatastoreReader,
  fetchWithSignal,
  overHttp,
} from '../datastore/client-store'
import { libsqlJobQueue } from '../jobs/job-queue'
import { jobKinds } from '../jobs/kinds'
import { scheduleDueHarvests } from '../jobs/harvest/schedule'
import { scheduleWebhookRun } from '../jobs/webhooks'
import { drainEach, runOptionsFrom, type RunOutcome } from '../jobs/runner'
import { directWriter } from '../model/write-batcher'
import { pruneStatement } from '../model/changes'
import { MemorySearchService } from '../search/service'
import { notConfiguredBlobStore } from '../storage/blob-store'
import { notConfiguredMailer } from '../notify/mailer'
import { r2BlobStore, type R2Bucket } from './worker-blob-store'
import { gatedClient, type WriteGate } from './worker-db'
import { SCHEMING_KEY, storedSchemas } from '../scheming/store'
import { ShardHost, shardedSearch, shardStatus, type ShardNamespace, type ShardState } from './worker-search'
import { ACTIVE_SHARDS_KEY, activeShards, autoShardCount, storeActiveShards, configuredShards } from '../search/shard-plan'
import type { ShardedSearchService } from '../search/shards'
import { durableRateLimitStore, RateCounter } from './worker-rate-limit'
import { flushIntervalMs, flushUsage } from '../model/usage'
import { writeDictRefills } from '../model/package-json'

/**
 * [vars], secrets and bindings: STORAGE is the R2 bucket of uploads (wrangler.toml r2_buckets),
 * SEARCH_SHARD the Durable Objects of the search tier (service.search.shards), RATE_LIMITER those
 * of the rate limits' counters.
 */
interface WorkerEnv {
  [name: string]: unknown
  STORAGE?: R2Bucket
  SEARCH_SHARD?: ShardNamespace
  /** The rate limits' counters (service.ratelimit.*); without it each isolate counts alone. */
  RATE_LIMITER?: ShardNamespace
}

/** The string settings among the bindings ([vars] and secrets), for loadConfig. */
function settings(env: WorkerEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v
  return out
}

/**
 * What an isolate keeps between requests: configuration, caches, the change-log position and
 * the search index. Everything that does I/O (database clients, the writer, the job queue, the
 * DataStore) is made anew for each request: workerd lets no request use, await or settle
 * another request's I/O, so nothing in flight is ever shared.
 */
type Built = {
  app: App
  drainJobs: () => Promise<number>
  pruneLog: () => Promise<void>
  /** For a search shard's Durable Object: the isolate's services and a request's own. */
  shard: { shared: Omit<Deps, 'search'>; forRequest: () => Promise<Omit<Deps, 'search'>> }
  /** Automatic sizing of the search tier (at each Cron Trigger). */
  planShards: () => Promise<void>
  /** The usage figures counted in this isolate, written when due (service.tracking_enabled). */
  flushUsage: (force?: boolean) => Promise<void> | undefined
  /** Stores the dataset dicts this isolate's reads assembled, when some wait. */
  storeDicts: () => Promise<void> | undefined
}
let built: Built | undefined

function build(env: WorkerEnv): Built {
  const vars = settings(env)
  const url = vars.DATABASE_URL ?? vars.LIBSQL_URL
  if (!url) throw new Error('DATABASE_URL (a libsql:// or https:// URL) is not set')
  // An isolate has 128 MB for everything: the dataset dict cache gets 16 of them unless set.
  const config = loadConfig(vars).withDefaults({ 'service.cache.datasets_mb': '16' })
  const open = (u: string, authToken?: string): Client => createClient({ url: u, authToken })
  // datastore_search_sql's time limit: each query's own client, its request aborted at the deadline
  // (sqld stops a statement whose client went away; see src/datastore/client-store.ts)
  const abortable = (u: string, authToken?: string) => (signal: AbortSignal) =>
    createClient({ url: overHttp(u), authToken, fetch: fetchWithSignal(signal) })
  // The DataStore is a separate database; without a write URL its actions say it is not configured.
  // The pure read actions read from the read location when one is set (with a read-only token).
  const ds = vars.DATASTORE_URL ?? (config.str('service.datastore.write_url') || undefined)
  const dsRead = vars.DATASTORE_READ_URL ?? (config.str('service.datastore.read_url') || undefined)
  const openDatastore = (dsUrl: string) => {
    const token = vars.DATASTORE_AUTH_TOKEN
    const readToken = vars.DATASTORE_READ_AUTH_TOKEN
    const reader = dsRead
      ? clientDatastoreReader(open(dsRead, readToken), { abortable: abortable(dsRead, readToken) })
      : undefined
    return clientDatastore(open(dsUrl, token), { abortable: abortable(dsUrl, token), reader })
  }
  // The isolate's own services; their db is only a template: requests get their own below.
  const shared = buildDeps(config, drizzle(open(url, vars.DATABASE_AUTH_TOKEN), { schema }) as CatalogDb, {
    search: { perRequest: true },
    // No SMTP from Workers: smtp.* settings apply to Node only.
    mailer: notConfiguredMailer('no mail adapter on Workers; smtp.server applies to Node only'),
  })
  const search = shared.search as MemorySearchService
  // the search tier: the index in Durable Objects, none in this isolate (a fixed count, or the
  // count in use that the Cron Trigger chooses from the catalogue's size: src/search/shard-plan.ts)
  const shardNs = env.SEARCH_SHARD
  const fixedShards = configuredShards(config)
  if (fixedShards && !shardNs)
    throw new Error('service.search.shards is set but the SEARCH_SHARD Durable Object binding is missing (wrangler.toml)')
  let shardCount = fixedShards ?? 0
  const shardedByCount = new Map<number, ShardedSearchService>()
  const searchNow = () => {
    if (!shardNs || shardCount <= 0) return search
    let s = shardedByCount.get(shardCount)
    if (!s) shardedByCount.set(shardCount, (s = shardedSearch(shardNs, shardCount)))
    return s
  }
  if (fixedShards === null && shardNs)
    shared.changes.subscribe(async (batch, reader) => {
      if (batch.some((c) => c.entity_type === '*' || (c.entity_type === 'config' && c.entity_id === ACTIVE_SHARDS_KEY)))
        shardCount = await activeShards(reader)
    })
  // a new schema snapshot applies to the isolate's next requests
  shared.changes.subscribe(async (batch, reader) => {
    if (batch.some((c) => c.entity_type === '*' || (c.entity_type === 'config' && c.entity_id === SCHEMING_KEY)))
      shared.schemas = await storedSchemas(reader, config.str('service.locale_default'))
  })
  /** Set once a request has loaded the runtime config and caught up; retried until one has. */
  let warm = false
  const gate: WriteGate = { until: 0 }

  // site_url: from the settings, else the origin the request came to (wrangler dev, workers.dev, a custom domain).
  const configFor = (req: Request) =>
    config.isSet('service.site_url')
      ? config
      : config.withDefaults({ 'service.site_url': new URL(req.url).origin })

  /** A request's services (or a scheduled job's: the same rules apply to both). */
  const depsFor = async (cfg: Config): Promise<Deps> => {
    const client = gatedClient(open(url, vars.DATABASE_AUTH_TOKEN), gate)
    const db = drizzle(client, { schema }) as CatalogDb
    const read = clientReader(client)
    const changes = shared.changes.through(read)
    const io = {
      ...shared,
      config: cfg,
      db,
      read,
      changes,
      writer: directWriter(clientExecutor(client)),
      datastore: ds ? openDatastore(ds) : undefined,
      blobs: env.STORAGE
        ? r2BlobStore(env.STORAGE)
        : notConfiguredBlobStore('no STORAGE R2 bucket binding'),
      jobs: libsqlJobQueue(client, { now: shared.now, newId: shared.newId, kinds: jobKinds }),
      answers: defaultAnswerCache(),
      // rate limits: shared by every isolate through the Durable Objects, else this isolate's own
      rateLimits: env.RATE_LIMITER ? durableRateLimitStore(env.RATE_LIMITER) : shared.rateLimits,
    }
    const deps: Deps = { ...io, search: searchNow().through(io) }
    if (!warm) {
      // Each request that finds the isolate cold warms it itself; a failure is retried next time.
      // Migrations run out of band (drizzle-kit migrate); only the config overlay loads here.
      await warmUp(deps)
      // the site's schemas, from the snapshot its Node side (or `admin scheming push`) stored
      deps.schemas = shared.schemas = await storedSchemas(deps.read, config.str('service.locale_default'))
      // the shard count in use (automatic sizing); later switches come through the change log
      if (fixedShards === null && shardNs) shardCount = await activeShards(deps.read)
      warm = true
    }
    return deps
  }
  const forRequest = (req: Request) => depsFor(configFor(req))

  // The Cron Trigger's run: claims jobs for at most service.jobs.cron_budget_seconds, each job
  // with services of its own; a job still running when the event ends is taken again once its
  // lease expires.
  const drainJobs = async () => {
    // harvest sources whose frequency makes them due get their job first
    await scheduleDueHarvests(await depsFor(config)).catch((e: unknown) =>
      console.error('harvest scheduling failed:', e),
    )
    // and a webhook delivery run while a webhook is active
    await scheduleWebhookRun(await depsFor(config)).catch((e: unknown) =>
      console.error('webhook scheduling failed:', e),
    )
    const { queues, leaseMs } = runOptionsFrom(config)
    const { ran } = await drainEach(() => depsFor(config), jobKinds, {
      queues,
      leaseMs,
      budgetMs: Math.max(1, config.int('service.jobs.cron_budget_seconds')) * 1000,
      onOutcome: logOutcome,
    })
    return ran
  }
  // ...and, with automatic sizing, moves the search index to the count the catalogue's size asks
  // for: every shard of the new count is built first, then the count in use switches
  const planShards = async () => {
    if (fixedShards !== null || !shardNs) return
    const deps = await depsFor(config)
    const [row] = await deps.read('SELECT count(*) AS n FROM package')
    const wanted = autoShardCount(Number(row?.n ?? 0), config)
    if (wanted === (await activeShards(deps.read))) return
    for (let i = 0; i < wanted; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, wanted - i) }, (_, k) => shardStatus(shardNs, { index: i + k, of: wanted })),
      )
    await storeActiveShards(deps.db, wanted)
  }
  // ...and prunes the change log to service.changes.retention_days (Node does it with its snapshots)
  const pruneLog = async () => {
    const deps = await depsFor(config)
    await deps.db.$client.execute(pruneStatement(config.int('service.changes.retention_days') || 90))
  }
  // ...and writes the usage figures this isolate counted, once they have waited long enough (or
  // at a Cron Trigger), through the services of the request that finds them due
  const flushUsageIfDue = (force = false) => {
    const counter = shared.usage
    if (!counter || !config.bool('service.tracking_enabled')) return undefined
    if (!(force ? counter.size > 0 : counter.due(flushIntervalMs(config)))) return undefined
    return depsFor(config)
      .then((deps) => flushUsage(deps))
      .then(
        () => undefined,
        (e: unknown) => console.error('usage figures flush failed:', e),
      )
  }
  // ...and stores the dataset dicts this isolate's reads had to assemble (model/package-json.ts)
  const storeDicts = () => {
    if (!shared.dictRefills?.size) return undefined
    return depsFor(config)
      .then((deps) => writeDictRefills(deps))
      .then(
        () => undefined,
        (e: unknown) => console.error('storing dataset dicts failed:', e),
      )
  }
  return {
    flushUsage: flushUsageIfDue,
    storeDicts,
    app: createApp({ configFor, forRequest }),
    drainJobs,
    pruneLog,
    shard: { shared, forRequest: () => depsFor(config) },
    planShards,
  }
}

function logOutcome(outcome: RunOutcome) {
  if (outcome.status === 'failed')
    console.error(`job ${outcome.job.id} (${outcome.job.kind}) failed:`, outcome.error)
  else if (outcome.status === 'error') console.error('job queue error:', outcome.error)
}

export default {
  async fetch(req: Request, env: WorkerEnv, exec: ExecutionContext): Promise<Response> {
    built ??= build(env)
    const res = await built.app.fetch(req, env, exec)
    // counted usage figures go to the database after the answer, by this request, when due
    const flushing = built.flushUsage()
    if (flushing) exec?.waitUntil(flushing)
    const storing = built.storeDicts()
    if (storing) exec?.waitUntil(storing)
    return res
  },
  /** The Cron Trigger (wrangler.toml [triggers]): prunes the change log, runs the queued background jobs. */
  async scheduled(_event: unknown, env: WorkerEnv): Promise<void> {
    built ??= build(env)
    await built.pruneLog().catch((e: unknown) => console.error('change log pruning failed:', e))
    await built.planShards().catch((e: unknown) => console.error('search shard planning failed:', e))
    await built.flushUsage(true)
    await built.drainJobs()
  },
}

/**
 * A shard of the search index (wrangler.toml durable_objects SEARCH_SHARD): the datasets a hash of
 * their id puts in it, kept in step with the change log (src/runtime/worker-search.ts).
 */
export class SearchShard {
  private readonly host: ShardHost

  constructor(state: ShardState, env: WorkerEnv) {
    this.host = new ShardHost(() => (built ??= build(env)).shard, state)
  }

  fetch(req: Request): Promise<Response> {
    return this.host.handle(req)
  }
}

/**
 * The counters of one rate-limited caller and class (wrangler.toml durable_objects RATE_LIMITER):
 * every isolate's requests for that key count here (src/runtime/worker-rate-limit.ts).
 */
export class RateLimiter {
  private readonly counter = new RateCounter()

  fetch(req: Request): Promise<Response> {
    return this.counter.handle(req)
  }
}
