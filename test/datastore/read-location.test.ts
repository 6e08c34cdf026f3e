// The DataStore's read location (service.datastore.read_url) on Node against real sqld servers with
// JWT authentication: writes go through a read-write token, the pure read actions through a
// read-only one (or a different copy of the database), and datastore_search_sql's time limit over
// HTTP aborts the request, which stops the statement in sqld.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrAlter } from '../../src/datastore/create'
import { openClientDatastore, openDatastore, openDatastoreReader } from '../../src/runtime/node-datastore'
// @ts-expect-error: plain ESM script without types
import { sqldJwt, startSqld } from '../../scripts/sqld.mjs'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

interface Sqld {
  url: string
  pid: number
  stop(): Promise<void>
}

const jwt = sqldJwt() as { publicKey: string; token(access: 'rw' | 'ro'): string }
const RW = jwt.token('rw')
const RO = jwt.token('ro')
const TIMEOUT_MS = 500
// Counts to 10^9: minutes of work unless something stops it.
const LONG =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) ' +
  'SELECT count(*) AS n FROM c'
const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
]

/** CPU seconds a process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

let primary: Sqld
let copy: Sqld
/** Writes with the rw token, reads with the ro token, both on `primary`. */
let t: TestEnv
/** Writes to `primary`, reads from `copy`. */
let split: TestEnv
let admin: Caller
let splitAdmin: Caller

beforeAll(async () => {
  const dir = tempDir('ckan-edge-read-url-')
  ;[primary, copy] = (await Promise.all([
    startSqld({ dbPath: join(dir, 'primary.sqld'), jwtKey: jwt.publicKey }),
    startSqld({ dbPath: join(dir, 'copy.sqld'), jwtKey: jwt.publicKey }),
  ])) as [Sqld, Sqld]
  t = await setup(
    { 'service.datastore.sqlsearch.timeout_ms': String(TIMEOUT_MS) },
    { datastore: await openDatastore(primary.url, RW, { url: primary.url, authToken: RO }) },
  )
  // (a ws: read URL: datastore_search_sql's own requests go over HTTP, see overHttp)
  const copyWs = copy.url.replace(/^http:/, 'ws:')
  split = await setup({}, { datastore: await openDatastore(primary.url, RW, { url: copyWs, authToken: RO }) })
  admin = await t.make.sysadmin()
  splitAdmin = await split.make.sysadmin()
}, 60_000)

afterAll(async () => {
  t?.deps.datastore?.close()
  split?.deps.datastore?.close()
  await Promise.all([primary?.stop(), copy?.stop()])
})

describe('DataStore read location: a read-only token on the same server', () => {
  let id: string

  it('writes through the write URL and answers every read action through the read URL', async () => {
    const ds = await t.make.dataset(admin)
    const created = await t.ok(
      'datastore_create',
      { resource: { package_id: ds.id }, fields: FIELDS, primary_key: 'code', records: [{ code: 'a', n: 1 }] },
      admin,
    )
    id = created.resource_id
    const upserted = await t.ok(
      'datastore_upsert',
      { resource_id: id, method: 'upsert', records: [{ code: 'a', n: 10 }, { code: 'b', n: 2 }] },
      admin,
    )
    expect(upserted.records).toEqual([{ code: 'a', n: 10 }, { code: 'b', n: 2 }])
    const found = await t.ok('datastore_search', { resource_id: id, sort: 'code' })
    expect(found.records).toEqual([{ _id: 1, code: 'a', n: 10 }, { _id: 2, code: 'b', n: 2 }])
    const sql = await t.ok('datastore_search_sql', { sql: `SELECT sum(n) AS total FROM "${id}"` })
    expect(sql.records).toEqual([{ total: 12 }])
    expect((await t.ok('datastore_info', { id }, admin)).meta).toEqual({ count: 2 })
    const dump = await t.get(`/datastore/dump/${id}`)
    expect([dump.status, dump.text]).toEqual([200, '_id,code,n\r\n1,a,10\n2,b,2\n'])
    await t.ok('datastore_delete', { resource_id: id, filters: { code: 'b' } }, admin)
    expect((await t.ok('datastore_search', { resource_id: id })).total).toBe(1)
  })

  it('has a read connection that cannot write', async () => {
    const reader = t.deps.datastore!.reader!
    expect(reader).toBeDefined()
    expect(reader).not.toBe(t.deps.datastore)
    expect('write' in reader).toBe(false)
    // sqld refuses the read-only token's writes (HTTP 403) before running them
    for (const sql of [
      `INSERT INTO "${id}" (code, n) VALUES ('x', 1)`,
      `DELETE FROM "${id}"`,
      'CREATE TABLE sneaky (x)',
      'DROP TABLE _ds_table',
      'PRAGMA user_version = 7',
    ])
      await expect(reader.query(sql), sql).rejects.toThrow(/403/)
    expect((await reader.query(`SELECT count(*) FROM "${id}"`)).rows).toEqual([[1]])
  })

  it('refuses to open a read location a foreign token cannot read', async () => {
    const stranger = sqldJwt() as typeof jwt
    const reader = await openDatastoreReader(primary.url, stranger.token('ro'))
    await expect(reader.query('SELECT 1')).rejects.toThrow(/401/)
    reader.close()
  })
})

describe('DataStore read location: a different copy of the database', () => {
  it('sends the pure read actions to the copy and the writes and their own reads to the primary', async () => {
    const ds = await split.make.dataset(splitAdmin)
    const created = await split.ok(
      'datastore_create',
      { resource: { package_id: ds.id }, fields: FIELDS, primary_key: 'code', records: [{ code: 'p', n: 1 }] },
      splitAdmin,
    )
    const id = created.resource_id as string
    // the copy holds the same table with other rows (as a stale or diverged replica would)
    const other = await openClientDatastore(copy.url, RW)
    await createOrAlter(
      other,
      { id, fields: FIELDS, primary_key: ['code'], records: [{ code: 'c1', n: 5 }, { code: 'c2', n: 6 }] },
      () => new Date().toISOString(),
    )
    other.close()

    const found = await split.ok('datastore_search', { resource_id: id })
    expect(found.records.map((r: { code: string }) => r.code)).toEqual(['c1', 'c2'])
    const sql = await split.ok('datastore_search_sql', { sql: `SELECT sum(n) AS total FROM "${id}"` })
    expect(sql.records).toEqual([{ total: 11 }])
    expect((await split.ok('datastore_info', { id }, splitAdmin)).meta).toEqual({ count: 2 })
    expect((await split.get(`/datastore/dump/${id}`)).text).toBe('_id,code,n\r\n1,c1,5\n2,c2,6\n')

    // an update finds its row in the primary (the copy has no "p"), and the primary has it
    const updated = await split.ok(
      'datastore_upsert',
      { resource_id: id, method: 'update', records: [{ code: 'p', n: 100 }] },
      splitAdmin,
    )
    expect(updated.records).toEqual([{ code: 'p', n: 100 }])
    const stored = await split.deps.datastore!.query(`SELECT code, n FROM "${id}"`)
    expect(stored.rows).toEqual([['p', 100]])
  })
})

describe('datastore_search_sql time limit over HTTP', () => {
  it('answers "Query took too long" at the deadline, and sqld stops the statement', async () => {
    const started = Date.now()
    const r = await t.call('datastore_search_sql', { sql: LONG })
    const took = Date.now() - started
    expect([r.status, r.body.error]).toEqual([
      409,
      { __type: 'Validation Error', query: ['Query took too long'] },
    ])
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 10)
    expect(took).toBeLessThan(TIMEOUT_MS + 2000)
    // the aborted request stopped the statement: the server is idle again
    await new Promise((resolve) => setTimeout(resolve, 200))
    const before = cpuSeconds(primary.pid)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(cpuSeconds(primary.pid) - before).toBeLessThan(0.3)
    const next = await t.call('datastore_search_sql', { sql: 'SELECT 1 AS one' })
    expect(next.body.result.records).toEqual([{ one: 1 }])
  })
})

describe('DataStore read location: an embedded file', () => {
  it('opens the file read-only, with the time-limited SQL runner', async () => {
    const file = join(tempDir('ckan-edge-read-file-'), 'datastore.db')
    const store = await openDatastore(`file:${file}`, undefined, { url: `file:${file}` })
    await store.write([{ sql: 'CREATE TABLE t (x)', args: [] }, { sql: 'INSERT INTO t VALUES (1)', args: [] }])
    const reader = store.reader!
    expect(reader.sql).toBeDefined()
    expect((await reader.query('SELECT x FROM t')).rows).toEqual([[1]])
    // (RETURNING: query() only runs statements that return rows)
    await expect(reader.query('INSERT INTO t VALUES (2) RETURNING x')).rejects.toThrow(/readonly/)
    await expect(reader.sql!.run(LONG, { timeoutMs: 200, maxRows: 10 })).rejects.toThrow('Query took too long')
    expect((await store.query('SELECT count(*) FROM t')).rows).toEqual([[1]])
    store.close()
  })
})
