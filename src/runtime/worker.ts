// Workers entry (wrangler.toml main): the same app over libSQL's HTTP client.
import { createClient } from '@libsql/client/web'
import { drizzle } from 'drizzle-orm/libsql/web'
import { createApp, type App } from '../app'
import { loadConfig } from '../config/load'
import { schema } from '../db/schema'
import type { Deps } from '../context'
import { buildDeps, warmUp } from './deps'
import { clientDatastore } from '../datastore/client-store'

type WorkerEnv = Record<string, string | undefined>

import type { ExecutionContext } from 'hono'

let app: App | undefined
let ready: Promise<void> | undefined

function build(env: WorkerEnv): { app: App; deps: Deps } {
  const url = env.DATABASE_URL ?? env.LIBSQL_URL
  if (!url) throw new Error('DATABASE_URL (a libsql:// or https:// URL) is not set')
  const client = createClient({ url, authToken: env.DATABASE_AUTH_TOKEN })
  // The DataStore is a separate database; without DATASTORE_URL its actions say it is not configured.
  const dsUrl = env.DATASTORE_URL
  const datastore = dsUrl
    ? clientDatastore(createClient({ url: dsUrl, authToken: env.DATASTORE_AUTH_TOKEN }))
    : undefined
  const deps = buildDeps(loadConfig(env), drizzle(client, { schema }), { datastore })
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
