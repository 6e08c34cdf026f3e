// Workers entry (wrangler.toml main): the same app over libSQL's HTTP client.
import { createClient } from '@libsql/client/web'
import { drizzle } from 'drizzle-orm/libsql/web'
import type { ExecutionContext } from 'hono'
import { createApp, type App } from '../app'
import { loadConfig } from '../config/load'
import { schema } from '../db/schema'
import type { Deps } from '../context'
import { buildDeps, warmUp } from './deps'
import { clientDatastore } from '../datastore/client-store'
import { notConfiguredBlobStore } from '../storage/blob-store'
import { notConfiguredMailer } from '../notify/mailer'
import { r2BlobStore, type R2Bucket } from './worker-blob-store'

/** [vars], secrets and bindings: STORAGE is the R2 bucket of uploads (wrangler.toml r2_buckets). */
interface WorkerEnv {
  [name: string]: unknown
  STORAGE?: R2Bucket
}

let app: App | undefined
let ready: Promise<void> | undefined

/** The string settings among the bindings ([vars] and secrets), for loadConfig. */
function settings(env: WorkerEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v
  return out
}

function build(env: WorkerEnv): { app: App; deps: Deps } {
  const vars = settings(env)
  const url = vars.DATABASE_URL ?? vars.LIBSQL_URL
  if (!url) throw new Error('DATABASE_URL (a libsql:// or https:// URL) is not set')
  const client = createClient({ url, authToken: vars.DATABASE_AUTH_TOKEN })
  // The DataStore is a separate database; without DATASTORE_URL its actions say it is not configured.
  const dsUrl = vars.DATASTORE_URL
  const datastore = dsUrl
    ? clientDatastore(createClient({ url: dsUrl, authToken: vars.DATASTORE_AUTH_TOKEN }))
    : undefined
  const deps = buildDeps(loadConfig(vars), drizzle(client, { schema }), {
    datastore,
    blobs: env.STORAGE
      ? r2BlobStore(env.STORAGE)
      : notConfiguredBlobStore('no STORAGE R2 bucket binding'),
    // Workers have no SMTP client; e-mail needs a mail API adapter (not written yet).
    mailer: notConfiguredMailer('smtp.server: no mailer on Workers'),
  })
  return { app: createApp(deps), deps }
}

export default {
  async fetch(req: Request, env: WorkerEnv, exec: ExecutionContext): Promise<Response> {
    if (!app) {
      const built = build(env)
      app = built.app
      // Migrations run out of band (drizzle-kit migrate); only the config overlay loads here.
      ready = warmUp(built.deps)
    }
    await ready
    return app.fetch(req, env, exec)
  },
}
