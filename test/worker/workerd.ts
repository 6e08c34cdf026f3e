// workerd itself (not Miniflare), for what Miniflare cannot show: V8's heap limit per isolate
// (--max-heap-size: workerd aborts with "Reached heap limit" past it) and each isolate's heap after
// every full GC (--trace-gc lines carry the isolate's address), with the search tier's Durable
// Objects in an isolate of their own, and the Worker's isolates started cold while the objects stay
// warm (a new workerd process on the same object storage, objects warmed through a probe first).
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
// @ts-expect-error: plain ESM script without types
import { freePort } from '../../scripts/sqld.mjs'
import { shardObjectName, type ShardName } from '../../src/runtime/worker-search'

/** A text binding's value as a Cap'n Proto string literal. */
const capnpString = (s: string) => JSON.stringify(s)

/**
 * A test-only Worker beside the app: `POST /<object name>/<op>` with a shard name in the body goes
 * to that search shard's object as the app's own fan-out would, so a test can load, question or
 * reset one object at a time.
 */
const PROBE = `export default {
  async fetch(req, env) {
    const [, name, op] = new URL(req.url).pathname.split('/')
    if (!name) return new Response('ok')
    const stub = env.SEARCH_SHARD.get(env.SEARCH_SHARD.idFromName(name))
    return stub.fetch('https://search-shard/' + op, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await req.text() })
  },
}
`

export interface Workerd {
  /** The app's origin. */
  base: string
  /**
   * Origins of more isolates of the app (opts.isolates), each cold until its first request: the
   * script is loaded at start, as Cloudflare loads it while the connection is set up.
   */
  more: string[]
  /** One search shard's op (status, reset, ...), through the probe. */
  shard<T = unknown>(s: ShardName, op: string): Promise<T>
  /** Everything workerd printed (the GC trace included). */
  log(): string
  /** Each isolate's heap (MB) after each full GC, by the isolate's address, in order of appearance. */
  heaps(): Map<string, number[]>
  /** Why workerd stopped, when it did. */
  exited(): string | null
  stop(): Promise<void>
}

/**
 * Starts workerd with the bundled Worker as `main` (its SEARCH_SHARD binding pointing at the
 * `shards` service, the same bundle in an isolate of its own, objects stored under `dir`/objects)
 * and the probe. `heapMb`: V8's --max-heap-size for every isolate.
 */
export async function startWorkerd(opts: {
  dir: string
  script: string
  bindings: Record<string, string>
  heapMb?: number
  isolates?: number
}): Promise<Workerd> {
  const { dir } = opts
  writeFileSync(join(dir, 'worker.js'), opts.script)
  writeFileSync(join(dir, 'probe.js'), PROBE)
  mkdirSync(join(dir, 'objects'), { recursive: true })
  const [port, probePort] = [(await freePort()) as number, (await freePort()) as number]
  const more = Array.from({ length: opts.isolates ?? 0 }, (_, i) => `main${i + 1}`)
  const morePorts: number[] = []
  for (const _ of more) morePorts.push((await freePort()) as number)
  const bindings = Object.entries(opts.bindings)
    .map(([k, v]) => `(name = ${capnpString(k)}, text = ${capnpString(v)})`)
    .join(', ')
  const worker = (extra: string) => `(
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-04-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [${bindings}, (name = "SEARCH_SHARD", durableObjectNamespace = (className = "SearchShard", serviceName = "shards"))],
  globalOutbound = "internet",${extra}
)`
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .main),${more.map((m) => `\n    (name = "${m}", worker = .main),`).join('')}
    (name = "shards", worker = .shards),
    (name = "probe", worker = .probe),
    (name = "objects", disk = (path = ${capnpString(join(dir, 'objects'))}, writable = true)),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:${port}", http = (), service = "main"),
    (name = "probe", address = "127.0.0.1:${probePort}", http = (), service = "probe"),${more.map((m, i) => `\n    (name = "${m}", address = "127.0.0.1:${morePorts[i]}", http = (), service = "${m}"),`).join('')}
  ],
  v8Flags = [${opts.heapMb ? `"--max-heap-size=${opts.heapMb}", ` : ''}"--trace-gc"],
);
const main :Workerd.Worker = ${worker('')};
const shards :Workerd.Worker = ${worker(`
  durableObjectNamespaces = [(className = "SearchShard", uniqueKey = "search-shard", enableSql = true)],
  durableObjectStorage = (localDisk = "objects"),`)};
const probe :Workerd.Worker = (
  modules = [(name = "probe.js", esModule = embed "probe.js")],
  compatibilityDate = "2026-04-01",
  bindings = [(name = "SEARCH_SHARD", durableObjectNamespace = (className = "SearchShard", serviceName = "shards"))],
);
`,
  )
  const bin = createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/bin/workerd')
  // V8's GC trace goes to stdout, block-buffered into a pipe: line-buffered, each line is read when
  // it happens (the tests read the heap of one object's load right after it)
  const child: ChildProcess = spawn('stdbuf', ['-oL', bin, 'serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  let exited: string | null = null
  child.stdout!.on('data', (b: Buffer) => (log += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()))
  const gone = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = `workerd exited (${code ?? signal}): ${log.slice(-3000)}`
      resolve()
    }),
  )
  const base = `http://127.0.0.1:${port}`
  // ready when the probe answers (no request reaches the app's isolates before the caller's)
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${probePort}/`)).ok) break
    } catch {
      if (exited || i > 300) throw new Error(exited ?? 'workerd did not start')
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return {
    base,
    more: morePorts.map((p) => `http://127.0.0.1:${p}`),
    async shard<T>(s: ShardName, op: string) {
      let res: Response
      try {
        res = await fetch(`http://127.0.0.1:${probePort}/${shardObjectName(s)}/${op}`, {
          method: 'POST',
          body: JSON.stringify({ shard: s, request: {} }),
        })
      } catch (e) {
        // workerd went away (past the heap limit, say): why, rather than a socket error
        await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))])
        throw new Error(`shard ${s.index} of ${s.of} ${op}: ${exited ?? String(e)}`)
      }
      const body = (await res.json()) as { ok?: T; error?: string }
      if (!res.ok || body.ok === undefined) throw new Error(`shard ${s.index} of ${s.of} ${op}: ${res.status} ${JSON.stringify(body)}`)
      return body.ok
    },
    log: () => log,
    heaps() {
      const byIsolate = new Map<string, number[]>()
      // e.g. "[4242:0x5581c0a3c000]     5123 ms: Mark-Compact 40.1 (45.2) -> 38.0 (44.1) MB, ..."
      for (const m of log.matchAll(/\[\d+:(0x[0-9a-f]+)\][^\n]*?Mark-Compact[^\n]*?-> ([\d.]+) \(/g)) {
        const list = byIsolate.get(m[1]!) ?? []
        list.push(Number(m[2]))
        byIsolate.set(m[1]!, list)
      }
      return byIsolate
    },
    exited: () => exited,
    async stop() {
      if (!exited) {
        child.kill()
        await gone
      }
    },
  }
}
