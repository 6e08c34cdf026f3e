// Node: a job worker process (`npm run worker`): opens the catalogue and DataStore as the server does, runs jobs until a signal.
import { loadConfig } from '../config/load'
import type { Deps } from '../context'
import type { JobKinds } from '../jobs/job-kinds'
import { runOptionsFrom } from '../jobs/runner'
import { buildDeps, warmUp } from './deps'
import { nodeLoaderPorts } from './node-loader'
import { openCatalogDb } from './node-db'
import { nodeBackupPort } from './node-backup'
import { datastoreUrl, openDatastore } from './node-datastore'
import { nodeBlobStore } from './node-blob-store'
import { nodeMailer } from './node-mailer'
import { nodeJobRunners } from './node-job-runner'
import { nodeSchemasOrExit } from './node-schemas'

export interface NodeWorker {
  deps: Deps
  /** Claims no more jobs, waits for those in hand to be recorded, closes the databases. */
  stop(): Promise<void>
}

/**
 * Deps on the databases `env` names (DATABASE_URL, DATASTORE_URL and their tokens, as `npm start`
 * reads them; a replica's DATABASE_SYNC_URL is not used: point DATABASE_URL at the primary), with
 * the upload store, mailer and loader ports of the server. `close()` closes the databases.
 */
export async function openNodeDeps(
  env: Record<string, string | undefined>,
  kinds?: JobKinds<Deps>,
): Promise<{ deps: Deps; close: () => void }> {
  const config = loadConfig(env)
  const url = env.DATABASE_URL ?? 'file:./data/catalogue.db'
  const opened = await openCatalogDb(url, env.DATABASE_AUTH_TOKEN)
  const readUrl = env.DATASTORE_READ_URL ?? (config.str('service.datastore.read_url') || undefined)
  const datastore = await openDatastore(
    datastoreUrl(env.DATASTORE_URL ?? (config.str('service.datastore.write_url') || undefined), url),
    env.DATASTORE_AUTH_TOKEN,
    readUrl ? { url: readUrl, authToken: env.DATASTORE_READ_AUTH_TOKEN } : undefined,
  )
  const deps = buildDeps(config, opened.db, {
    headProbe: opened.headProbe,
    writeExecutor: opened.writeExecutor,
    readExecutor: opened.readExecutor,
    datastore,
    blobs: nodeBlobStore(config.str('service.storage_path')),
    mailer: nodeMailer(config),
    jobKinds: kinds,
    loader: nodeLoaderPorts(),
    backups: config.str('service.backup.dir') ? nodeBackupPort(config, { ...process.env, ...env }) : undefined,
    schemas: (await nodeSchemasOrExit(config)).schemas,
  })
  await warmUp(deps)
  return { deps, close: () => opened.close() }
}

/**
 * Starts a worker on the databases `env` names (see openNodeDeps). It runs
 * `service.jobs.concurrency` jobs at once (at least one) of `service.jobs.queues`.
 */
export async function startNodeWorker(
  env: Record<string, string | undefined>,
  kinds: JobKinds<Deps>,
): Promise<NodeWorker> {
  const { deps, close } = await openNodeDeps(env, kinds)
  const config = deps.config
  const opts = runOptionsFrom(config)
  // a worker started with concurrency 0 (the server's "leave it to a worker") still works
  const runners = nodeJobRunners(deps.jobs, kinds, deps, {
    ...opts,
    concurrency: Math.max(1, opts.concurrency),
    keepAlive: true, // polling is all this process does
  })
  runners.start()
  return {
    deps,
    async stop() {
      await runners.stop()
      close()
    },
  }
}

/**
 * The process around a worker: a first SIGTERM or SIGINT lets the jobs in hand finish and record
 * their outcome, then exits 0; a second one exits at once (1), leaving those jobs to be claimed
 * again when their lease expires.
 */
export async function runNodeWorkerProcess(kinds: JobKinds<Deps>): Promise<void> {
  const worker = await startNodeWorker(process.env, kinds)
  const { queues, concurrency } = runOptionsFrom(worker.deps.config)
  console.log(
    `Worker ${process.pid} running jobs of ${queues.join(', ')} (${Math.max(1, concurrency)} at a time)`,
  )
  let stopping = false
  const onSignal = (signal: string) => {
    if (stopping) {
      console.log(`${signal} again: exiting now; unfinished jobs run again when their lease expires`)
      process.exit(1)
    }
    stopping = true
    console.log(`${signal}: finishing the jobs in hand, then exiting`)
    worker.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error('worker stop failed', e)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
}
