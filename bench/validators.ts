// Benchmark 12: HTTP validators. package_show over HTTP from 4 concurrent clients: full answers
// against 304s for a client that sends the ETag it has (the answer is not computed or sent).
// BENCH_VALIDATORS_SECONDS (5 per side).
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { adminAndDataset, action } from './lib/ds-http'
import { startServer } from './lib/server'

const SECONDS = Number(process.env.BENCH_VALIDATORS_SECONDS ?? 5)
const CLIENTS = 4
const TARGET_RATIO = 5
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'validators-latest.json')

async function rate(url: string, headers: Record<string, string>, expect: number) {
  const until = performance.now() + SECONDS * 1000
  let done = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const res = await fetch(url, { headers })
        await res.arrayBuffer()
        if (res.status !== expect) throw new Error(`${res.status}, expected ${expect}`)
        done++
      }
    }),
  )
  return done / SECONDS
}

export async function validatorsBench() {
  const server = await startServer()
  try {
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
    for (const [label, url] of [
      ['package_show', `${server.url}/api/3/action/package_show?id=etag-bench`],
      ['package_search (q, facets, 20 rows)', `${server.url}/api/3/action/package_search?q=water&rows=20&facet.field=%5B%22tags%22%5D`],
    ] as const) {
      const first = await fetch(url)
      const bytes = (await first.arrayBuffer()).byteLength
      const etag = first.headers.get('etag')!
      await rate(url, {}, 200) // warm up
      const full = await rate(url, {}, 200)
      const notModified = await rate(url, { 'if-none-match': etag }, 304)
      const ratio = notModified / full
      rows.push({ action: label, answerBytes: bytes, full, notModified, ratio })
      console.log(`${label}, ${CLIENTS} clients: full answers (${(bytes / 1024).toFixed(1)} KB) ${full.toFixed(0)} req/s; 304 with If-None-Match ${notModified.toFixed(0)} req/s; ${ratio.toFixed(2)}× (target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'})`)
    }
    const out = { date: new Date().toISOString(), clients: CLIENTS, seconds: SECONDS, rows, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version } }
    mkdirSync(dirname(RESULTS_FILE), { recursive: true })
    writeFileSync(RESULTS_FILE, JSON.stringify(out, null, 2) + '\n')
    return out
  } finally {
    await server.stop()
  }
}
