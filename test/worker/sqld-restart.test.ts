// Issue 33, faults at the edge: the libSQL server is killed (SIGKILL) while 8 clients create
// datasets through the Worker, and started again on the same files and port. Every create the
// Worker acknowledged is there afterwards, the ones in between got 503 envelopes (no hang), and
// the same isolate writes and reads again without a restart.
import { join } from 'node:path'
import type { Miniflare } from 'miniflare'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { addSysadmin } from '../../src/model/sysadmin'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
// @ts-expect-error: plain ESM script without types
import { freePort, startSqld } from '../../scripts/sqld.mjs'
import { TEST_PROFILE } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'
import { bundleWorker, callWorker, workerIsolate } from './harness'

type Sqld = { url: string; pid: number; stop(): Promise<void> }
const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const f of cleanup.reverse()) await f().catch(() => {})
})

describe('the libSQL server killed and restarted under writes', () => {
  it('loses no acknowledged write, and the isolate recovers by itself', async () => {
    const dir = tempDir('ckan-edge-sqld-restart-')
    const dbPath = join(dir, 'catalogue.sqld')
    const port: number = await freePort()
    let sqld = (await startSqld({ dbPath, port })) as Sqld
    cleanup.push(() => sqld.stop())
    const opened = await openCatalogDb(sqld.url)
    const admin = await addSysadmin(buildDeps(loadConfig(TEST_PROFILE), opened.db), 'admin')
    opened.close()
    const mf: Miniflare = await workerIsolate(bundleWorker(dir), { ...TEST_PROFILE, DATABASE_URL: sqld.url })
    cleanup.push(() => mf.dispose())
    const as = { apikey: admin.apikey! }

    const acknowledged: string[] = []
    const refused: { status: number; type: string }[] = []
    let stop = false
    let n = 0
    const writers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const name = `restart-${n++}`
        const r = await callWorker(mf, 'package_create', { name, notes: 'written under a restart' }, as)
        if (r.status === 200 && (r.body as { success: boolean }).success) acknowledged.push(name)
        else refused.push({ status: r.status, type: String((r.body as { error?: { __type?: string } })?.error?.__type) })
      }
    })
    await new Promise((r) => setTimeout(r, 1500))
    const beforeKill = acknowledged.length
    process.kill(sqld.pid, 'SIGKILL')
    await new Promise((r) => setTimeout(r, 1000))
    const duringOutage = refused.length
    sqld = (await startSqld({ dbPath, port })) as Sqld
    await new Promise((r) => setTimeout(r, 2000))
    stop = true
    await Promise.all(writers)
    const afterRestart = acknowledged.length

    expect(beforeKill).toBeGreaterThan(0)
    expect(duringOutage).toBeGreaterThan(0)
    expect(afterRestart).toBeGreaterThan(beforeKill)
    // refusals are CKAN's envelope saying the database is out of reach (503), not hangs or 500s
    expect(refused.filter((r) => r.status !== 503 || r.type !== 'Service Unavailable')).toEqual([])
    // every acknowledged create is there, read through the same isolate
    for (const name of acknowledged) {
      const shown = await callWorker(mf, 'package_show', { id: name }, as)
      expect(shown.status, name).toBe(200)
    }
    // and the count matches: nothing acknowledged was lost, nothing refused was stored twice
    const list = (await callWorker(mf, 'package_list', {}, as)).body as { result: string[] }
    expect(list.result.filter((x) => x.startsWith('restart-')).length).toBeGreaterThanOrEqual(acknowledged.length)
    console.log(`sqld killed under 8 writers: ${beforeKill} creates acknowledged before, ${refused.length} refused during the outage, ${afterRestart - beforeKill} acknowledged after the restart; all ${acknowledged.length} present`)
  }, 120_000)
})
