// npm run dev:worker: the Worker under `wrangler dev` against local libSQL servers, in one command.
// Starts sqld for the catalogue and the DataStore (databases under ./data/sqld), applies the
// migrations, creates the site user, then runs `wrangler dev` until it exits (Ctrl-C stops all).
// Ports: SQLD_PORT (catalogue, default 8080; the DataStore takes the next one), WORKER_PORT (8787).
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { ensureSiteUser } from '../src/model/site-user'
import { listSysadmins } from '../src/model/sysadmin'
// @ts-expect-error: plain ESM script without types
import { startSqld } from './sqld.mjs'

interface Sqld {
  url: string
  stop(): Promise<void>
}

const dataDir = process.env.SQLD_DATA_DIR ?? join('data', 'sqld')
const sqldPort = Number(process.env.SQLD_PORT ?? 8080)
const workerPort = Number(process.env.WORKER_PORT ?? 8787)
const passThrough = process.argv.slice(2) // extra wrangler dev flags, e.g. --remote is not for this

console.log(`Starting sqld (catalogue on :${sqldPort}, DataStore on :${sqldPort + 1}) under ${dataDir}/ …`)
const servers: Sqld[] = []
const stopAll = () => Promise.all(servers.map((s) => s.stop().catch(() => undefined)))
try {
  servers.push(
    (await startSqld({ dbPath: join(dataDir, 'catalogue.sqld'), port: sqldPort })) as Sqld,
    (await startSqld({ dbPath: join(dataDir, 'datastore.sqld'), port: sqldPort + 1 })) as Sqld,
  )
} catch (e) {
  await stopAll()
  console.error(`Could not start sqld: ${(e as Error).message}`)
  console.error('Is another one listening there? Set SQLD_PORT to choose other ports.')
  process.exit(1)
}
const [catalogue, datastore] = servers as [Sqld, Sqld]

// Migrations and the site user, as an operator does once per database before deploying.
const opened = await openCatalogDb(catalogue.url)
const deps = buildDeps(loadConfig(process.env), opened.db)
const { created } = await ensureSiteUser(deps)
const sysadmins = (await listSysadmins(deps))
  .map((u) => u.name)
  .filter((n) => n !== deps.config.str('service.site_id'))
opened.close()
console.log(`Catalogue migrated${created ? '; site user created' : ''}.`)

const env = `DATABASE_URL=${catalogue.url} DATASTORE_URL=${datastore.url}`
console.log(
  sysadmins.length
    ? `Sysadmins: ${sysadmins.join(', ')}.`
    : 'No sysadmin yet. In another terminal, create one and get its API key with:\n' +
        `  ${env} npm run admin -- sysadmin add <name>`,
)

const wrangler = spawn(
  'npx',
  [
    'wrangler', 'dev', '--port', String(workerPort),
    // local sqld speaks plain HTTP: http:// here, libsql:// (TLS) for Turso
    '--var', `DATABASE_URL:${catalogue.url}`,
    '--var', `DATASTORE_URL:${datastore.url}`,
    ...passThrough,
  ],
  { stdio: 'inherit', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } },
)
let stopping = false
const stop = (code: number) => {
  if (stopping) return
  stopping = true
  wrangler.kill('SIGINT')
  void stopAll().then(() => process.exit(code))
}
process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))
wrangler.on('exit', (code) => stop(code ?? 0))
