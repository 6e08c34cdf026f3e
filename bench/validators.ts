// Benchmark 12: HTTP validators. package_show (and package_search with facets) over HTTP: full
// answers against 304s for a client that sends the ETag it has (the answer is not computed or
// sent). The load comes from autocannon (its HTTP client costs a fraction of fetch's, which would
// otherwise be what is measured on a 2-core machine shared with the server); the server's own CPU
// per request is read from /proc, so its capacity shows apart from the generator's.
// Measured at 8 and 16 connections (what a few clients, or a CDN's many, keep open), each beside
// the floor: a bare node:http server answering the same 304 in the same run.
// BENCH_VALIDATORS_SECONDS (5 per side), BENCH_VALIDATORS_CONNECTIONS (8,16).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { adminAndDataset, action } from './lib/ds-http'
import { startServer } from './lib/server'
import { saveResults } from './lib/results'

const SECONDS = Number(process.env.BENCH_VALIDATORS_SECONDS ?? 5)
const CONNECTION_COUNTS = (process.env.BENCH_VALIDATORS_CONNECTIONS ?? '8,16').split(',').map(Number)
const TARGET_RATIO = 5

/** CPU time (user + system) of a process in ms, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`
  if (!existsSync(file)) return undefined
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // USER_HZ is 100 on Linux
}

async function load(url: string, headers: Record<string, string>, expect: number, pid: number, connections: number, seconds = SECONDS) {
  const cpu0 = cpuMs(pid)
  const r = await autocannon({ url, connections, duration: seconds, headers })
  const cpu1 = cpuMs(pid)
  const answered = r.statusCodeStats?.[`${expect}` as `${number}`]?.count ?? 0
  if (r.errors || r.timeouts || answered !== r.requests.total)
    throw new Error(`expected only ${expect}s: ${JSON.stringify({ codes: r.statusCodeStats, errors: r.errors, timeouts: r.timeouts })}`)
  return {
    rate: r.requests.total / seconds,
    p50Ms: r.latency.p50,
    serverCpuUs: cpu0 === undefined || cpu1 === undefined ? undefined : ((cpu1 - cpu0) * 1000) / r.requests.total,
  }
}

/**
 * The floor: a bare node:http server in its own process answering every request with a 304 and
 * the headers ours sends. No 304 of any Node server can cost less than this exchange.
 */
async function floor(etag: string, connections: number) {
  const port = 6100 + Math.floor(Math.random() * 200)
  const script = `require('node:http').createServer((req, res) => { res.writeHead(304, { etag: ${JSON.stringify(etag)}, 'cache-control': 'public, max-age=0, s-maxage=60', vary: 'Authorization, X-CKAN-API-Key, X-SERVICE-API-Key, Cookie' }); res.end() }).listen(${port}, '127.0.0.1', () => console.log('up'))`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    await new Promise((resolve) => child.stdout!.once('data', resolve))
    const url = `http://127.0.0.1:${port}/api/3/action/package_show?id=etag-bench`
    await load(url, { 'if-none-match': etag }, 304, child.pid!, connections, 2)
    return await load(url, { 'if-none-match': etag }, 304, child.pid!, connections)
  } finally {
    child.kill()
  }
}

export async function validatorsBench() {
  const server = await startServer()
  try {
    const pid = server.child.pid!
    const { key } = await adminAndDataset(server, 'etag-bench')
    // a dataset with the metadata of a real one: 20 resources, 15 tags, notes
    await action(server.url, 'package_patch', {
      id: 'etag-bench',
      notes: 'Water levels and flows. '.repeat(40),
      tags: Array.from({ length: 15 }, (_, i) => ({ name: `tag-${i}` })),
      resources: Array.from({ length: 20 }, (_, i) => ({ name: `Resource ${i}`, url: `https://example.com/r${i}.csv`, format: 'CSV', description: 'A file. '.repeat(10) })),
    }, key)
    for (let i = 0; i < 300; i++)
      await action(server.url, 'package_create', { name: `etag-more-${i}`, notes: `water flow ${i}`, tags: [{ name: `tag-${i % 15}` }] }, key)
    const rows = []
    const floors = []
    for (const connections of CONNECTION_COUNTS) {
      let showRow: { full: { rate: number }; notModified: { rate: number } } | undefined
      for (const [label, url] of [
        ['package_show', `${server.url}/api/3/action/package_show?id=etag-bench`],
        ['package_search (q, facets, 20 rows)', `${server.url}/api/3/action/package_search?q=water&rows=20&facet.field=%5B%22tags%22%5D`],
      ] as const) {
        const first = await fetch(url)
        const bytes = (await first.arrayBuffer()).byteLength
        const etag = first.headers.get('etag')!
        await load(url, {}, 200, pid, connections, 2) // warm up
        await load(url, { 'if-none-match': etag }, 304, pid, connections, 2)
        const full = await load(url, {}, 200, pid, connections)
        const notModified = await load(url, { 'if-none-match': etag }, 304, pid, connections)
        const ratio = notModified.rate / full.rate
        const cpuRatio = full.serverCpuUs && notModified.serverCpuUs ? full.serverCpuUs / notModified.serverCpuUs : undefined
        const row = { action: label, connections, answerBytes: bytes, full, notModified, ratio, serverCpuRatio: cpuRatio }
        rows.push(row)
        showRow ??= row
        const cpu = (x: { serverCpuUs?: number }) => (x.serverCpuUs === undefined ? '' : `, server CPU ${x.serverCpuUs.toFixed(0)} µs/req`)
        console.log(
          `${label}, ${connections} connections: full answers (${(bytes / 1024).toFixed(1)} KB) ${full.rate.toFixed(0)} req/s${cpu(full)}; ` +
            `304 with If-None-Match ${notModified.rate.toFixed(0)} req/s${cpu(notModified)}; ${ratio.toFixed(2)}× the rate` +
            (cpuRatio ? `, ${cpuRatio.toFixed(2)}× less server CPU` : '') +
            ` (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`,
        )
      }
      // the least any 304 can cost here, in the same run
      const bare = await floor((await fetch(`${server.url}/api/3/action/package_show?id=etag-bench`)).headers.get('etag')!, connections)
      const best = bare.rate / showRow!.full.rate
      floors.push({ connections, ...bare, ratioToFullPackageShow: best })
      console.log(
        `floor, ${connections} connections: a bare node:http server answering 304 ${bare.rate.toFixed(0)} req/s` +
          (bare.serverCpuUs === undefined ? '' : `, server CPU ${bare.serverCpuUs.toFixed(0)} µs/req`) +
          `: no Node server's 304 can beat ${best.toFixed(2)}× the full package_show rate here; ours reaches ${((showRow!.notModified.rate / bare.rate) * 100).toFixed(0)} % of the floor's rate`,
      )
    }
    const out = saveResults('validators', { seconds: SECONDS, loadGenerator: 'autocannon 9 (same machine)', rows, floors })
    return out
  } finally {
    await server.stop()
  }
}
