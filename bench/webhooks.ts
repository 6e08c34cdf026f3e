// BENCH_ONLY=webhooks: webhook fan-out (issue 35). BENCH_WEBHOOK_SUBSCRIBERS webhooks (1,000) of one
// user, all on every dataset event, and BENCH_WEBHOOK_CHANGES datasets created (1,000): the
// delivery runs (src/jobs/webhooks.ts, in process, as a runner takes them) fan the changes out and
// POST every delivery to a local receiver. Reference in the same run: one loop POSTing the same
// signed bodies to the same receiver with the same concurrency and nothing else (no database),
// the fastest honest way to make those requests.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Webhook } from 'standardwebhooks'
import { callAction } from '../src/actions/call'
import { loadConfig } from '../src/config/load'
import { systemContext } from '../src/context'
import { addSysadmin } from '../src/model/sysadmin'
import { buildDeps } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { webhookDispatchJob } from '../src/jobs/webhooks'
import { TEST_PROFILE } from '../test/helpers/setup'

type Log = (line: string) => void
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

export async function webhooksBench(log: Log = console.log) {
  const subscribers = Number(process.env.BENCH_WEBHOOK_SUBSCRIBERS ?? 1000)
  const changes = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 1000)
  const lanes = 16
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const dir = mkdtempSync(join(tmpdir(), 'ckan-edge-bench-webhooks-'))
  try {
    const opened = await openCatalogDb(`file:${join(dir, 'catalogue.db')}`)
    const config = loadConfig({
      ...TEST_PROFILE,
      'service.webhooks.allow_private_urls': 'true',
      'service.webhooks.concurrency': String(lanes),
    })
    const deps = buildDeps(config, opened.db, { writeExecutor: opened.writeExecutor, readExecutor: opened.readExecutor })
    const owner = await addSysadmin(deps, 'bench-hooks')
    const ctx = { ...systemContext(deps), user: owner }
    for (let i = 0; i < subscribers; i++) await callAction(ctx, 'webhook_create', { url, events: ['dataset.created'] })
    let started = performance.now()
    for (let i = 0; i < changes; i++) await callAction(ctx, 'package_create', { name: `hooked-${i}` })
    log(`${fmt(subscribers)} webhooks, ${fmt(changes)} datasets created in ${((performance.now() - started) / 1000).toFixed(1)} s`)

    const total = subscribers * changes
    started = performance.now()
    let runs = 0
    let firstRun = 0
    while (received < total && runs < 10_000) {
      const out = (await webhookDispatchJob.run(deps, {}, { id: 'bench', attempts: 1 } as never)) as { created: number; delivered: number }
      if (runs++ === 0) firstRun = (performance.now() - started) / 1000
      if (!out.created && !out.delivered) break
    }
    const seconds = (performance.now() - started) / 1000
    const ours = received / seconds
    log(`fan-out and delivery: ${fmt(received)} of ${fmt(total)} deliveries in ${seconds.toFixed(1)} s over ${runs} runs (first run ${firstRun.toFixed(1)} s): ${fmt(ours)} deliveries/s`)

    // the reference: the same signed POSTs, same lanes, no database
    const sample = Math.min(total, 100_000)
    const payload = JSON.stringify({ type: 'dataset.created', timestamp: new Date().toISOString(), data: { seq: 1, type: 'dataset', id: crypto.randomUUID(), name: 'hooked-1', change: 'created', timestamp: new Date().toISOString() } })
    const signer = new Webhook('whsec_' + Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64'))
    let next = 0
    const before = received
    started = performance.now()
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next++ < sample) {
          const id = crypto.randomUUID()
          const at = new Date()
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, payload) },
            body: payload,
          })
          await res.body?.cancel()
        }
      }),
    )
    const refSeconds = (performance.now() - started) / 1000
    const reference = (received - before) / refSeconds
    log(`reference (the same signed POSTs, ${lanes} at once, no database): ${fmt(received - before)} in ${refSeconds.toFixed(1)} s: ${fmt(reference)} requests/s`)
    log(`ratio: ${(ours / reference).toFixed(2)}×`)
    opened.client.close()
    return { subscribers, changes, deliveries: total, seconds, rate: ours, reference }
  } finally {
    server.closeAllConnections()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
