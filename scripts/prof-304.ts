// Profiling aid: the Node server under autocannon load answering package_show 304s (ONLY=304) or
// full answers (ONLY=full); PROF_DIR=dir writes the server's CPU profile there.
import autocannon from 'autocannon'
import { adminAndDataset, action } from '../bench/lib/ds-http'
import { startServer } from '../bench/lib/server'
const server = await startServer(process.env.PROF_DIR ? { NODE_OPTIONS: `--import=${process.cwd()}/bench/lib/cpu-prof.mjs`, BENCH_CPU_PROF_DIR: process.env.PROF_DIR } : {})
const { key } = await adminAndDataset(server, 'etag-bench')
await action(server.url, 'package_patch', { id: 'etag-bench', notes: 'Water levels and flows. '.repeat(40), tags: Array.from({ length: 15 }, (_, i) => ({ name: `tag-${i}` })), resources: Array.from({ length: 20 }, (_, i) => ({ name: `Resource ${i}`, url: `https://example.com/r${i}.csv`, format: 'CSV', description: 'A file. '.repeat(10) })) }, key)
const url = `${server.url}/api/3/action/package_show?id=etag-bench`
const etag = (await fetch(url)).headers.get('etag')!
const headers = process.env.ONLY === 'full' ? {} : { 'if-none-match': etag }
const r = await autocannon({ url, connections: 8, duration: Number(process.env.SECONDS ?? 8), headers })
console.log(`${process.env.ONLY ?? '304'}: ${(r.requests.total / Number(process.env.SECONDS ?? 8)).toFixed(0)} req/s`, JSON.stringify(r.statusCodeStats))
await server.stop()
