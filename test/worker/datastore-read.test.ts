// The Worker's DataStore read location and datastore_search_sql time limit, in workerd against sqld
// with JWT authentication: writes with an rw token, the pure read actions through DATASTORE_READ_URL
// with an ro token (or a different copy), and a long query stopped at the deadline in sqld too.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrAlter } from '../../src/datastore/create'
import { openClientDatastore } from '../../src/runtime/node-datastore'
// @ts-expect-error: plain ESM script without types
import { sqldJwt, startSqld } from '../../scripts/sqld.mjs'
import { callWorker, startWorker, type SqldJwt, type WorkerEnv } from './harness'
import { tempDir } from '../helpers/temp-dirs'

const TIMEOUT_MS = 1000
const jwt = sqldJwt() as SqldJwt
const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
]

let w: WorkerEnv
let copy: { url: string; stop(): Promise<void> }
beforeAll(async () => {
  w = await startWorker({ 'service.datastore.sqlsearch.timeout_ms': String(TIMEOUT_MS) }, { datastoreJwt: jwt })
  copy = await startSqld({
    dbPath: join(tempDir('ckan-edge-worker-copy-'), 'copy.sqld'),
    jwtKey: jwt.publicKey,
  })
}, 120_000)
afterAll(async () => {
  await w?.close()
  await copy?.stop()
})

const ok = async (mf: WorkerEnv['mf'], name: string, params: object = {}, as?: { apikey: string }) => {
  const r = await callWorker(mf, name, params, as)
  if (r.status !== 200 || !r.body?.success)
    throw new Error(`${name} failed (${r.status}): ${r.text.slice(0, 500)}`)
  return r.body.result
}

/** A keyed table on a new dataset, written through the Worker; returns its resource id. */
async function table(name: string, records: object[]): Promise<string> {
  const pkg = await ok(w.mf, 'package_create', { name }, w.sysadmin)
  const created = await ok(
    w.mf,
    'datastore_create',
    { resource: { package_id: pkg.id }, fields: FIELDS, primary_key: 'code', records },
    w.sysadmin,
  )
  return created.resource_id
}

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

describe('the Worker with a DataStore read location', () => {
  it('writes with the rw token and reads with the ro token', async () => {
    const id = await table('ds-read-same', [{ code: 'a', n: 1 }])
    const upserted = await ok(
      w.mf,
      'datastore_upsert',
      { resource_id: id, records: [{ code: 'a', n: 10 }, { code: 'b', n: 2 }] },
      w.sysadmin,
    )
    expect(upserted.records).toEqual([{ code: 'a', n: 10 }, { code: 'b', n: 2 }])
    const found = await ok(w.mf, 'datastore_search', { resource_id: id, sort: 'code' })
    expect(found.records).toEqual([{ _id: 1, code: 'a', n: 10 }, { _id: 2, code: 'b', n: 2 }])
    const sql = await ok(w.mf, 'datastore_search_sql', { sql: `SELECT sum(n) AS total FROM "${id}"` })
    expect(sql.records).toEqual([{ total: 12 }])
    expect((await ok(w.mf, 'datastore_info', { id }, w.sysadmin)).meta).toEqual({ count: 2 })
    const dump = await w.mf.dispatchFetch(`http://localhost/datastore/dump/${id}`)
    expect(await dump.text()).toBe('_id,code,n\r\n1,a,10\n2,b,2\n')
  })

  it('sends the pure read actions to the read URL and writes to the write URL', async () => {
    const id = await table('ds-read-copy', [{ code: 'p', n: 1 }])
    // the copy holds the same table with other rows (as a stale or diverged replica would)
    const other = await openClientDatastore(copy.url, jwt.token('rw'))
    await createOrAlter(
      other,
      { id, fields: FIELDS, primary_key: ['code'], records: [{ code: 'c1', n: 5 }, { code: 'c2', n: 6 }] },
      () => new Date().toISOString(),
    )
    other.close()
    const reader = await w.isolate({ DATASTORE_READ_URL: copy.url })

    const found = await ok(reader, 'datastore_search', { resource_id: id })
    expect(found.records.map((r: { code: string }) => r.code)).toEqual(['c1', 'c2'])
    const sql = await ok(reader, 'datastore_search_sql', { sql: `SELECT sum(n) AS total FROM "${id}"` })
    expect(sql.records).toEqual([{ total: 11 }])
    expect((await ok(reader, 'datastore_info', { id }, w.sysadmin)).meta).toEqual({ count: 2 })
    const dump = await reader.dispatchFetch(`http://localhost/datastore/dump/${id}`)
    expect(await dump.text()).toBe('_id,code,n\r\n1,c1,5\n2,c2,6\n')
    // an update finds its row in the write database (the copy has no "p")
    await ok(reader, 'datastore_upsert', { resource_id: id, method: 'update', records: [{ code: 'p', n: 100 }] }, w.sysadmin)
    const primary = await ok(w.mf, 'datastore_search', { resource_id: id })
    expect(primary.records).toEqual([{ _id: 1, code: 'p', n: 100 }])
  })
})

describe('the Worker: datastore_search_sql time limit', () => {
  const LONG = [
    [
      'an endless recursive CTE',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c',
    ],
    [
      'a 10^15-row cross join',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) ' +
        'SELECT count(*) AS n FROM c AS a, c AS b, c AS d',
    ],
  ]

  it.each(LONG)('stops %s at the deadline, in the Worker and in sqld', async (_, sql) => {
    const started = Date.now()
    const r = await callWorker(w.mf, 'datastore_search_sql', { sql })
    const took = Date.now() - started
    expect([r.status, r.body?.error]).toEqual([
      409,
      { __type: 'Validation Error', query: ['Query took too long'] },
    ])
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 10)
    expect(took).toBeLessThan(TIMEOUT_MS + 3000)
    // the aborted request stopped the statement: sqld is idle again
    await new Promise((resolve) => setTimeout(resolve, 200))
    const before = cpuSeconds(w.datastore.pid)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(cpuSeconds(w.datastore.pid) - before).toBeLessThan(0.3)
    // and the isolate and sqld answer a normal request at once
    const next = Date.now()
    const one = await ok(w.mf, 'datastore_search_sql', { sql: 'SELECT 1 AS one' })
    expect(one.records).toEqual([{ one: 1 }])
    expect((await callWorker(w.mf, 'status_show')).status).toBe(200)
    expect(Date.now() - next).toBeLessThan(1000)
  })
})
