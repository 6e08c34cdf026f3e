// Test harness: a migrated temp-file database, the real app, and a `call` helper.
import { atFileEnd, tempDir } from './temp-dirs'
import { dirname, join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { datastoreUrl, openClientDatastore, openDatastore } from '../../src/runtime/node-datastore'
import { nodeBlobStore } from '../../src/runtime/node-blob-store'
import { nodeMailer } from '../../src/runtime/node-mailer'
import { nodeLoaderPorts } from '../../src/runtime/node-loader'
import type { JobKinds } from '../../src/jobs/job-kinds'
import type { Deps } from '../../src/context'
import type { DatastoreDb } from '../../src/datastore/store'
import { makers } from './make'
import { nodeSchemas } from '../../src/runtime/node-schemas'

/** CKAN's test-ini profile: what CKAN's own API tests run with. */
export const TEST_PROFILE: Record<string, string> = {
  'service.site_url': 'http://test.ckan.net',
  'service.site_id': 'test.ckan.net',
  'service.auth.create_default_api_keys': 'true',
  'service.auth.create_dataset_if_not_in_organization': 'true',
  'service.auth.create_unowned_dataset': 'true',
  'service.auth.user_create_groups': 'true',
  'service.auth.user_create_organizations': 'true',
  'service.auth.password_hash_iterations': '1000',
}

export function tempDbFile(): string {
  return join(tempDir(), 'catalogue.db')
}

export interface Caller {
  apikey: string
}

export interface CallResult {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
}

/**
 * `portableDatastore`: the DataStore through the portable `@libsql/client` adapter (Workers' code
 * path: batches, LIMIT/OFFSET streams, EXPLAIN table checks) instead of Node's synchronous one.
 * `datastore`: a DataStore opened by the test (a libSQL server, a read location) instead of the
 * temp file. `jobKinds`: the kinds the job queue accepts (default: the app's own). Uploads go to an
 * `uploads` directory beside the database; mail goes to `smtp.server` when an override sets it.
 */
export async function setup(
  overrides: Record<string, string> = {},
  opts: { portableDatastore?: boolean; datastore?: DatastoreDb; jobKinds?: JobKinds<Deps>; file?: string } = {},
) {
  // `file`: another app over an existing catalogue (another process would see the same)
  const file = opts.file ?? tempDbFile()
  const { db, client, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${file}`)
  const config = loadConfig({ ...TEST_PROFILE, ...overrides })
  const dsUrl = datastoreUrl(undefined, `file:${file}`)
  const datastore =
    opts.datastore ??
    (opts.portableDatastore ? await openClientDatastore(dsUrl) : await openDatastore(dsUrl))
  const deps = buildDeps(config, db, {
    headProbe,
    writeExecutor,
    readExecutor,
    datastore,
    blobs: nodeBlobStore(join(dirname(file), 'uploads')),
    mailer: nodeMailer(config),
    loader: nodeLoaderPorts(),
    jobKinds: opts.jobKinds,
    schemas: await nodeSchemas(config),
  })
  await warmUp(deps)
  // no snapshot may be written once the test has closed its database (or the file has ended)
  const close = client.close.bind(client)
  client.close = () => {
    deps.search.stop()
    close()
  }
  atFileEnd(() => deps.search.stop())
  const app = createApp(deps)

  async function call(name: string, params: object = {}, as?: Caller | null): Promise<CallResult> {
    const res = await app.request(`/api/3/action/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(as ? { authorization: as.apikey } : {}) },
      body: JSON.stringify(params),
    })
    const text = await res.text()
    return { status: res.status, body: JSON.parse(text) }
  }

  async function get(path: string, as?: Caller | null): Promise<CallResult & { text: string; type: string }> {
    const res = await app.request(path, { headers: as ? { authorization: as.apikey } : {} })
    const text = await res.text()
    let body: unknown = undefined
    try {
      body = JSON.parse(text)
    } catch {
      /* JSONP or plain text */
    }
    return { status: res.status, body, text, type: res.headers.get('content-type') ?? '' }
  }

  /** Calls an action and returns `result`, failing the test on an error envelope. */
  async function ok(name: string, params: object = {}, as?: Caller | null) {
    const r = await call(name, params, as)
    if (r.status !== 200 || !r.body.success)
      throw new Error(`${name} failed (${r.status}): ${JSON.stringify(r.body)}`)
    return r.body.result
  }

  const t = { app, deps, db, client, file, call, get, ok, make: undefined as unknown as ReturnType<typeof makers> }
  t.make = makers(t)
  return t
}

export type TestEnv = Awaited<ReturnType<typeof setup>>
