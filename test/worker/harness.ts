// The Worker as deployed: wrangler's bundle of src/runtime/worker.ts in workerd (Miniflare) against real sqld servers.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Miniflare } from 'miniflare'
import { loadConfig } from '../../src/config/load'
import { addSysadmin } from '../../src/model/sysadmin'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
// @ts-expect-error: plain ESM script without types
import { startSqld } from '../../scripts/sqld.mjs'
import { TEST_PROFILE } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

interface Sqld {
  url: string
  pid: number
  stop(): Promise<void>
}

/** sqld's JWT authentication (scripts/sqld.mjs sqldJwt()). */
export interface SqldJwt {
  publicKey: string
  token(access: 'rw' | 'ro'): string
}

/** Bundles the Worker exactly as `wrangler deploy` would (once per test file). */
export function bundleWorker(dir: string): string {
  const out = join(dir, 'bundle')
  execFileSync('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', out], {
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
    stdio: 'pipe',
  })
  return readFileSync(join(out, 'worker.js'), 'utf8')
}

export interface WorkerEnv {
  /**
   * A new isolate of the same Worker and databases (as another edge location would be);
   * `vars` changes its settings (undefined removes one).
   */
  isolate(vars?: Record<string, string | undefined>, opts?: { cachePersist?: string; durableObjectsPersist?: string }): Promise<Miniflare>
  mf: Miniflare
  catalogue: Sqld
  datastore: Sqld
  sysadmin: { apikey: string }
  /** The bundled Worker and its bindings, for a test that composes its own workerd set-up. */
  script: string
  bindings: Record<string, string>
  close(): Promise<void>
}

/**
 * sqld for the catalogue (migrated, with a sysadmin) and one for the DataStore; the Worker over both.
 * `datastoreJwt`: the DataStore's sqld requires tokens of this key; the Worker writes with an rw
 * token and reads (DATASTORE_READ_URL, the same server) with an ro one.
 */
export async function startWorker(
  vars: Record<string, string> = {},
  opts: { datastoreJwt?: SqldJwt } = {},
): Promise<WorkerEnv> {
  const dir = tempDir('ckan-edge-worker-')
  const jwt = opts.datastoreJwt
  const [catalogue, datastore] = (await Promise.all([
    startSqld({ dbPath: join(dir, 'catalogue.sqld') }),
    startSqld({ dbPath: join(dir, 'datastore.sqld'), jwtKey: jwt?.publicKey }),
  ])) as [Sqld, Sqld]
  // Migrations run out of band, as the README says for Workers; the admin CLI makes the sysadmin.
  const opened = await openCatalogDb(catalogue.url)
  const admin = await addSysadmin(buildDeps(loadConfig(TEST_PROFILE), opened.db), 'admin')
  opened.close()
  const script = bundleWorker(dir)
  const bindings = {
    ...TEST_PROFILE,
    DATABASE_URL: catalogue.url,
    DATASTORE_URL: datastore.url,
    ...(jwt && {
      DATASTORE_AUTH_TOKEN: jwt.token('rw'),
      DATASTORE_READ_URL: datastore.url,
      DATASTORE_READ_AUTH_TOKEN: jwt.token('ro'),
    }),
    ...vars,
  }
  const isolate = (changes: Record<string, string | undefined> = {}, opts: { cachePersist?: string; durableObjectsPersist?: string } = {}) => {
    const merged: Record<string, string> = { ...bindings }
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined) delete merged[k]
      else merged[k] = v
    }
    return workerIsolate(script, merged, opts)
  }
  const isolates: Miniflare[] = []
  const track = async (changes?: Record<string, string | undefined>, opts?: { cachePersist?: string; durableObjectsPersist?: string }) => {
    const mf = await isolate(changes, opts)
    isolates.push(mf)
    return mf
  }
  const mf = await track()
  return {
    mf,
    isolate: track,
    catalogue,
    datastore,
    sysadmin: { apikey: admin.apikey! },
    script,
    bindings,
    async close() {
      // (a test may have disposed one already)
      await Promise.all(isolates.map((m) => m.dispose().catch(() => undefined)))
      await Promise.all([catalogue.stop(), datastore.stop()])
    },
  }
}

/** One isolate of the bundled Worker, with these [vars] and an R2 bucket as STORAGE. */
export async function workerIsolate(
  script: string,
  bindings: Record<string, string>,
  opts: { cachePersist?: string; durableObjectsPersist?: string } = {},
) {
  const mf = new Miniflare({
    ...(opts.cachePersist ? { cachePersist: opts.cachePersist } : {}),
    ...(opts.durableObjectsPersist ? { durableObjectsPersist: opts.durableObjectsPersist } : {}),
    modules: true,
    script,
    compatibilityDate: '2026-04-01',
    compatibilityFlags: ['nodejs_compat'],
    bindings,
    r2Buckets: ['STORAGE'],
    // the search tier's shards (used when SERVICE__SEARCH__SHARDS is set)
    durableObjects: { SEARCH_SHARD: { className: 'SearchShard', useSQLite: true } },
  })
  await mf.ready
  return mf
}

export interface Reply {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  text: string
}

/** POSTs an action to the Worker (JSON), with an API key when given. */
export async function callWorker(
  mf: Miniflare,
  name: string,
  params: object = {},
  as?: { apikey: string },
): Promise<Reply> {
  const res = await mf.dispatchFetch(`http://localhost/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(as ? { authorization: as.apikey } : {}) },
    body: JSON.stringify(params),
  })
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: res.status, body, text }
}

/** The result of an action on the Worker; throws with the answer when it did not succeed. */
export async function okWorker(
  mf: Miniflare,
  name: string,
  params: object = {},
  as?: { apikey: string },
) {
  const r = await callWorker(mf, name, params, as)
  if (r.status !== 200 || !r.body?.success)
    throw new Error(`${name} failed (${r.status}): ${r.text.slice(0, 500)}`)
  return r.body.result
}
