// `npm run replicas -- N`: one sqld primary (catalogue and DataStore), N Node servers on embedded replicas of it, a round-robin proxy.
//   npm run replicas -- 3 [--port 5001] [--proxy-port 5000 | --no-proxy] [--dir ./data/replicas] [--fresh]
//                         [--sync-interval 0.25] [--sysadmin NAME]
// sqld comes from scripts/sqld.mjs: a third-party repackaging, for development and CI only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
// @ts-expect-error: plain ESM script without types
import { startSqld as startSqldUntyped } from './sqld.mjs'
import { startCommand } from './start-command'
import { loadConfig } from '../src/config/load'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { ensureSiteUser } from '../src/model/site-user'
import { addSysadmin } from '../src/model/sysadmin'

type Sqld = { url: string; port: number; pid: number; stop(): Promise<void> }
const startSqld = startSqldUntyped as (o: { dbPath: string; port?: number }) => Promise<Sqld>
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

export interface ClusterOptions {
  /** How many replica processes (default 2). */
  replicas?: number
  /** Where the primary's data and the replica files live (default ./data/replicas). */
  dir?: string
  /** The first replica's port; the others follow (default 5001). */
  port?: number
  /** The round-robin proxy's port, or null for none (default 5000). */
  proxyPort?: number | null
  /** The server bundle (default dist/runtime/node.mjs, which the caller builds). */
  entry?: string
  /** DATABASE_SYNC_INTERVAL of every replica, in seconds (default: the server's, 0.25). */
  syncInterval?: number
  /** Makes this sysadmin on the primary and returns its API key. */
  sysadmin?: string
  /** Runs once the primary is migrated, before any replica starts (seeding, in the bench). */
  prepare?: (primaryUrl: string) => Promise<void>
  /** Gets each line the processes print, prefixed with their name (default: none kept). */
  log?: (line: string) => void
  /** More environment for the replica processes. */
  env?: Record<string, string>
}

export interface Cluster {
  /** The catalogue's primary (sqld over HTTP) and the DataStore's server. */
  primaryUrl: string
  datastoreUrl: string
  /** One URL per replica process, in port order. */
  urls: string[]
  proxyUrl: string | null
  apikey: string | null
  /** The replica processes and the proxy, by name (`replica-1`, …, `proxy`). */
  processes(): { name: string; pid: number }[]
  /**
   * Kills the catalogue's primary (SIGKILL, a crash) and starts it again on the same port and data
   * directory once `downMs` have passed; resolves when it answers again. For fault tests.
   */
  restartPrimary(downMs?: number): Promise<void>
  stop(): Promise<void>
}

interface Child {
  name: string
  proc: ChildProcess
  exited: Promise<void>
}

function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv, ready: string, log?: (l: string) => void): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<void>((r) => proc.once('exit', () => r()))
  let output = ''
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 60_000)
    const onData = (b: Buffer) => {
      const text = b.toString()
      output = (output + text).slice(-8000)
      if (log) for (const line of text.split('\n')) if (line) log(`[${name}] ${line}`)
      if (output.includes(ready)) {
        clearTimeout(timer)
        resolvePromise({ name, proc, exited })
      }
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', onData)
    proc.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${code}):\n${output}`))
    })
  })
}

async function stopChild(c: Child) {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return
  c.proc.kill('SIGTERM')
  const killed = setTimeout(() => c.proc.kill('SIGKILL'), 5000)
  await c.exited
  clearTimeout(killed)
}

/** The round-robin proxy (scripts/round-robin.mjs) as a process of its own, on 127.0.0.1:`port`. */
export async function startProxyProcess(port: number, targets: string[], log?: (l: string) => void) {
  const args = [join(root, 'scripts', 'round-robin.mjs'), String(port), ...targets]
  const child = await spawnChild('proxy', args, process.env, 'listening on', log)
  return Object.assign(child, { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) })
}

/** Starts the primaries, prepares the catalogue, then the replica processes and the proxy. */
export async function startReplicaCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const n = opts.replicas ?? 2
  const dir = resolve(opts.dir ?? join(root, 'data', 'replicas'))
  const port = opts.port ?? 5001
  const proxyPort = opts.proxyPort === undefined ? 5000 : opts.proxyPort
  mkdirSync(dir, { recursive: true })
  const sqlds: Sqld[] = []
  const children: Child[] = []
  let proxy: Child | null = null
  const stop = async () => {
    await Promise.all([...children, proxy].map((c) => c && stopChild(c)))
    for (const s of sqlds.splice(0)) await s.stop()
  }
  try {
    let primary = await startSqld({ dbPath: join(dir, 'primary.sqld') })
    sqlds.push(primary)
    const datastore = await startSqld({ dbPath: join(dir, 'datastore.sqld') })
    sqlds.push(datastore)

    // Migrations and the site user go to the primary once, before any replica starts.
    const opened = await openCatalogDb(primary.url)
    let apikey: string | null = null
    try {
      const deps = buildDeps(loadConfig({}), opened.db)
      await ensureSiteUser(deps)
      if (opts.sysadmin) apikey = (await addSysadmin(deps, opts.sysadmin)).apikey
    } finally {
      opened.close()
    }
    await opts.prepare?.(primary.url)

    const start = startCommand(opts.entry)
    const urls = Array.from({ length: n }, (_, i) => `http://127.0.0.1:${port + i}`)
    const proxyUrl = proxyPort === null ? null : `http://127.0.0.1:${proxyPort}`
    const startReplica = (i: number) =>
      spawnChild(
        `replica-${i + 1}`,
        start.args,
        {
          ...process.env,
          ...start.env,
          DATABASE_URL: `file:${join(dir, `replica-${i + 1}.db`)}`,
          DATABASE_SYNC_URL: primary.url,
          DATASTORE_URL: datastore.url,
          ...(opts.syncInterval !== undefined ? { DATABASE_SYNC_INTERVAL: String(opts.syncInterval) } : {}),
          PORT: String(port + i),
          HOST: '127.0.0.1',
          MIGRATIONS_DIR: join(root, 'drizzle'),
          // uploads: one directory for all (they share this host); several hosts need shared storage
          SERVICE__STORAGE_PATH: join(dir, 'uploads'),
          ...(proxyUrl ? { SERVICE__SITE_URL: proxyUrl } : {}),
          ...opts.env,
        },
        'Listening on',
        opts.log,
      ).then((c) => (children[i] = c))
    await Promise.all(urls.map((_, i) => startReplica(i)))
    if (proxyPort !== null) proxy = await startProxyProcess(proxyPort, urls, opts.log)
    return {
      primaryUrl: primary.url,
      datastoreUrl: datastore.url,
      urls,
      proxyUrl,
      apikey,
      processes: () =>
        [...children, proxy].flatMap((c) => (c?.proc.pid ? [{ name: c.name, pid: c.proc.pid }] : [])),
      async restartPrimary(downMs = 0) {
        const old = primary
        process.kill(old.pid, 'SIGKILL')
        await old.stop() // waits for the exit
        await new Promise((r) => setTimeout(r, downMs))
        primary = await startSqld({ dbPath: join(dir, 'primary.sqld'), port: old.port })
        sqlds[sqlds.indexOf(old)] = primary
      },
      stop,
    }
  } catch (e) {
    await stop()
    throw e
  }
}

async function main(argv: string[]) {
  const args = [...argv]
  const flag = (name: string) => {
    const i = args.indexOf(`--${name}`)
    if (i < 0) return undefined
    return args.splice(i, 2)[1]
  }
  const has = (name: string) => {
    const i = args.indexOf(`--${name}`)
    if (i >= 0) args.splice(i, 1)
    return i >= 0
  }
  const noProxy = has('no-proxy')
  const fresh = has('fresh')
  const dir = resolve(flag('dir') ?? join(root, 'data', 'replicas'))
  const port = Number(flag('port') ?? 5001)
  const proxyPort = noProxy ? null : Number(flag('proxy-port') ?? 5000)
  const interval = flag('sync-interval')
  const sysadmin = flag('sysadmin')
  const n = Number(args[0] ?? 2)
  if (!Number.isInteger(n) || n < 1 || args.length > 1) {
    console.error(
      'usage: npm run replicas -- N [--port 5001] [--proxy-port 5000 | --no-proxy] [--dir ./data/replicas] [--fresh] [--sync-interval S] [--sysadmin NAME]',
    )
    process.exit(2)
  }
  // --fresh: a new catalogue (the primary's data and the replica files go)
  if (fresh) rmSync(dir, { recursive: true, force: true })
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
  const cluster = await startReplicaCluster({
    replicas: n,
    dir,
    port,
    proxyPort,
    syncInterval: interval === undefined ? undefined : Number(interval),
    sysadmin,
    log: (line) => console.log(line),
  })
  console.log(`\nprimary (sqld, catalogue): ${cluster.primaryUrl}   DataStore (sqld): ${cluster.datastoreUrl}   data: ${dir}`)
  cluster.urls.forEach((u, i) => console.log(`replica ${i + 1}: ${u}`))
  if (cluster.proxyUrl) console.log(`round-robin proxy: ${cluster.proxyUrl}`)
  if (cluster.apikey) console.log(`sysadmin "${sysadmin}" API key: ${cluster.apikey}`)
  else console.log(`a sysadmin: DATABASE_URL=${cluster.primaryUrl} npm run admin -- sysadmin add NAME`)
  console.log('Ctrl-C stops everything.')
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    cluster.stop().finally(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))
