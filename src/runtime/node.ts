// Node entry: `npm start` serves the API on PORT (default 5000) from the embedded libSQL file (or a replica of a primary).
import { createServer } from 'node:http'
import { getHeapSpaceStatistics } from 'node:v8'
import { serve } from '@hono/node-server'
import { createApp } from '../app'
import { loadConfig } from '../config/load'
import { buildDeps, warmUp } from './deps'
import { DatabaseNewerThanCode, DatabaseUnreadable, openCatalogDb, unreadableDatabase } from './node-db'
import { isWriteActionRequest, openReplicaCatalogDb } from './node-replica'
import { datastoreUrl, openDatastore } from './node-datastore'
import { nodeBlobStore, sweepStaleFiles } from './node-blob-store'
import { nodeMailer } from './node-mailer'
import { nodeJobRunners } from './node-job-runner'
import { nodeLoaderPorts } from './node-loader'
import { runOptionsFrom } from '../jobs/runner'
import { jobKinds } from '../jobs/kinds'
import { scheduleDueHarvests } from '../jobs/harvest/schedule'
import { scheduleDueBackup } from '../jobs/backup'
import { scheduleWebhookRun } from '../jobs/webhooks'
import { nodeBackupPort } from './node-backup'
import { nodeRateLimitStore } from './node-rate-limit'
import { flushIntervalMs, flushUsage } from '../model/usage'
import { writeDictRefills } from '../model/package-json'
import { ensureSiteUser } from '../model/site-user'
import { listSysadmins } from '../model/sysadmin'
import { withNotModified } from './node-not-modified'
import { nodeSchemasOrExit } from './node-schemas'
import { storeSchemingSnapshot } from '../scheming/store'

/** A database this code must not or cannot open: the reason and the way out, not a stack. */
function exitOnDatabaseRefusal(e: unknown): never {
  if (!(e instanceof DatabaseNewerThanCode || e instanceof DatabaseUnreadable)) throw e
  console.error(e.message)
  process.exit(1)
}

const env = process.env
const config = loadConfig(env)
const url = env.DATABASE_URL ?? 'file:./data/catalogue.db'
// DATABASE_SYNC_URL: the file is an embedded replica of that libSQL server (see node-replica.ts).
const syncUrl = env.DATABASE_SYNC_URL || undefined
const replica = syncUrl
  ? await openReplicaCatalogDb(url, {
      syncUrl,
      authToken: env.DATABASE_AUTH_TOKEN,
      syncInterval: env.DATABASE_SYNC_INTERVAL ? Number(env.DATABASE_SYNC_INTERVAL) : undefined,
    })
  : undefined
const { db, headProbe, writeExecutor, readExecutor } =
  replica ??
  (await openCatalogDb(url, env.DATABASE_AUTH_TOKEN).catch(exitOnDatabaseRefusal))
// A replica has no DataStore beside it: like a remote catalogue, it needs DATASTORE_URL.
// The pure read actions read from service.datastore.read_url when it is set (with a read-only token).
const readUrl = env.DATASTORE_READ_URL ?? (config.str('service.datastore.read_url') || undefined)
const dsUrl = datastoreUrl(env.DATASTORE_URL ?? (config.str('service.datastore.write_url') || undefined), syncUrl ?? url)
const datastore = await openDatastore(
  dsUrl,
  env.DATASTORE_AUTH_TOKEN,
  readUrl ? { url: readUrl, authToken: env.DATASTORE_READ_AUTH_TOKEN } : undefined,
).catch((e: unknown) => exitOnDatabaseRefusal(unreadableDatabase(e, 'DataStore', dsUrl) ?? e))
const scheming = await nodeSchemasOrExit(config)
const deps = buildDeps(config, db, {
  headProbe,
  writeExecutor,
  readExecutor,
  datastore,
  blobs: nodeBlobStore(config.str('service.storage_path')),
  mailer: nodeMailer(config),
  loader: nodeLoaderPorts(),
  backups: config.str('service.backup.dir') ? nodeBackupPort(config) : undefined,
  jobKinds,
  schemas: scheming.schemas,
  // shared by every process on this catalogue (a file beside it, or the primary)
  rateLimits: config.bool('service.ratelimit.enabled') ? nodeRateLimitStore(url, syncUrl, env.DATABASE_AUTH_TOKEN) : undefined,
  // npm start runs node with --expose-gc: a full collection after the index loads drops the
  // snapshot's buffers and the log tail's garbage at once (tens of MB of RSS at 10,000 datasets),
  // and one after each snapshot write drops the encoded snapshot (155 MB at 100,000)
  search: { afterBulkWork: () => (globalThis as { gc?: () => void }).gc?.() },
})
// Workers isolates read no files: they build the same schemas from the snapshot kept here
await storeSchemingSnapshot(deps, scheming.snapshot)
await warmUp(deps)

const { created } = await ensureSiteUser(deps)
if (created || (await listSysadmins(deps)).length <= 1) {
  console.log(
    created ? `Created the site user "${config.str('service.site_id')}".` : 'No sysadmin yet.',
    '\nCreate a sysadmin and get its API key with:\n  npm run admin -- sysadmin add <name>',
  )
}

// On a replica a write action first catches up with the primary, so what it reads before writing
// is the primary's latest state (as on a file shared by several processes).
const app = createApp(
  replica
    ? {
        configFor: () => deps.config,
        forRequest: async (req) => {
          if (isWriteActionRequest(req)) await replica.catchUpWithPrimary()
          return deps
        },
      }
    : deps,
)
const port = Number(env.PORT ?? 5000)
const source = syncUrl ? `replica ${url} of ${syncUrl}` : `database ${url}`
// Told once the socket is bound (serve() binds after this tick): a client that waits for the line
// (the tests, scripts/replicas.ts) must not connect before the server accepts.
const server = serve(
  {
    port,
    hostname: env.HOST ?? '0.0.0.0',
    // the adapter's env ({ incoming, outgoing }) carries the socket's address (rate limits, usage)
    fetch: (req, env) => app.fetch(req, env),
    // conditional GETs whose ETag still holds are answered 304 before the app
    createServer: ((options: object, listener: Parameters<typeof withNotModified>[1]) =>
      createServer(options, withNotModified(deps, listener))) as never,
  },
  () => console.log(`Listening on http://localhost:${port} (${source})`),
)
// Node closes an idle keep-alive connection after 5 s, about when clients (undici: 4 s) reuse it:
// a request sent as the server closes fails with "other side closed" / ECONNRESET. Idle
// connections are kept longer than common clients keep them instead.
const httpServer = server as unknown as { keepAliveTimeout: number; headersTimeout: number }
httpServer.keepAliveTimeout = 65_000
httpServer.headersTimeout = 66_000
// Load (or build) the search index now, so the first package_search does not wait for it.
deps.search.ready().catch((e) => console.error('search index load failed', e))

// Files a crashed process left behind (interrupted puts, unclaimed staged uploads) go after a day.
sweepStaleFiles(config.str('service.storage_path'))
  .then((n) => n && console.log(`removed ${n} stale upload file(s)`))
  .catch((e) => console.error('upload sweep failed', e))

// Background jobs run in this process (service.jobs.concurrency at a time; 0: only in a separate
// `npm run worker`), polling the queue in the catalogue database.
const jobs = nodeJobRunners(deps.jobs, jobKinds, deps, runOptionsFrom(config))
jobs.start()

// Harvest sources whose frequency makes them due get a job every service.harvest.schedule_seconds.
const scheduleEvery = config.int('service.harvest.schedule_seconds')
if (scheduleEvery > 0)
  setInterval(() => {
    scheduleDueHarvests(deps)
      .then((started) => started.length && jobs.wake())
      .catch((e) => console.error('harvest scheduling failed', e))
  }, scheduleEvery * 1000).unref()

// Scheduled backups (service.backup.dir): a backup job once service.backup.interval_hours have
// passed since the last, looked for shortly after the start and every ten minutes.
if (deps.backups) {
  const due = () =>
    scheduleDueBackup(deps)
      .then((id) => id && jobs.wake())
      .catch((e) => console.error('backup scheduling failed', e))
  setTimeout(due, 30_000).unref()
  setInterval(due, 600_000).unref()
}

// Webhooks: a delivery run every service.webhooks.poll_seconds while a webhook is active.
{
  const every = Math.max(1, config.int('service.webhooks.poll_seconds'))
  setInterval(() => {
    scheduleWebhookRun(deps)
      .then((id) => id && jobs.wake())
      .catch((e) => console.error('webhook scheduling failed', e))
  }, every * 1000).unref()
}

// Usage figures (service.tracking_enabled): the counts kept in memory go to the database in one
// batch every service.tracking.flush_seconds, and at shutdown.
const flushUsageNow = () => flushUsage(deps).catch((e) => console.error('usage figures flush failed', e))
if (config.bool('service.tracking_enabled'))
  setInterval(flushUsageNow, flushIntervalMs(config)).unref()

// Dataset dicts that reads had to assemble are stored for the next miss (model/package-json.ts).
setInterval(() => {
  if (deps.dictRefills?.size) writeDictRefills(deps).catch((e) => console.error('storing dataset dicts failed', e))
}, 1000).unref()

// At shutdown the search index is saved if it moved on since its last snapshot, so the next start
// loads it instead of re-indexing up to a thousand datasets (at most 10 s of waiting).
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close()
  const saved = Promise.race([
    deps.search.flush().catch((e) => console.error('search snapshot at shutdown failed', e)),
    new Promise((r) => setTimeout(r, 10_000).unref()),
  ])
  Promise.all([saved, jobs.stop(), flushUsageNow()]).finally(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
// Operators (and bench/scale.ts): `kill -USR2 <pid>` prints one JSON line of memory figures to stderr.
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]))
  const m = { ...process.memoryUsage(), heapSpaces: spaces, searchLoaded: deps.search.loaded }
  console.error(`memory ${JSON.stringify(m)}`)
})
