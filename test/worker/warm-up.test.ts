// An isolate whose first requests meet no database recovers once the database is there.
import { join } from 'node:path'
import type { Miniflare } from 'miniflare'
import { afterAll, describe, expect, it } from 'vitest'
import { openCatalogDb } from '../../src/runtime/node-db'
// @ts-expect-error: plain ESM script without types
import { freePort, startSqld } from '../../scripts/sqld.mjs'
import { TEST_PROFILE } from '../helpers/setup'
import { bundleWorker, callWorker, workerIsolate } from './harness'
import { tempDir } from '../helpers/temp-dirs'

const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const f of cleanup.reverse()) await f()
})

describe('the Worker warm-up', () => {
  it('answers an error while the database is unreachable and works once it is there', async () => {
    const dir = tempDir('ckan-edge-warm-')
    const port: number = await freePort()
    const url = `http://127.0.0.1:${port}`
    const mf: Miniflare = await workerIsolate(bundleWorker(dir), { ...TEST_PROFILE, DATABASE_URL: url })
    cleanup.push(() => mf.dispose())
    const down = await callWorker(mf, 'status_show')
    expect(down.status).toBe(503)
    expect(down.body).toMatchObject({ success: false, error: { __type: 'Service Unavailable', message: expect.stringMatching(/database could not be reached/) } })

    const sqld = await startSqld({ dbPath: join(dir, 'catalogue.sqld'), port })
    cleanup.push(() => sqld.stop())
    ;(await openCatalogDb(url)).close() // migrations, out of band
    const up = await callWorker(mf, 'status_show')
    expect(up.status).toBe(200)
    expect(up.body.success).toBe(true)
    // no DATASTORE_URL: the DataStore is not reported as enabled
    expect(up.body.result.extensions).not.toContain('datastore')
    expect((await callWorker(mf, 'package_list')).body.result).toEqual([])
  }, 120_000)
})
