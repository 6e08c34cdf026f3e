// Read-then-write sequences on one DataStore table from several stores at once, as Worker requests
// (each with its own client and lock) or several Node processes on one libSQL server run them:
// the database, not a per-process lock, keeps the table's catalogue and rows right.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOrAlter } from '../../src/datastore/create'
import { requireTable } from '../../src/datastore/registry'
import type { DatastoreDb } from '../../src/datastore/store'
import { deleteRows, upsertRecords } from '../../src/datastore/writes'
import { openClientDatastore } from '../../src/runtime/node-datastore'
// @ts-expect-error: plain ESM script without types
import { startSqld } from '../../scripts/sqld.mjs'
import { tempDir } from '../helpers/temp-dirs'

const now = () => new Date().toISOString()
const STORES = 4

let sqld: { url: string; stop(): Promise<void> }
/** Separate stores on one server: separate clients and separate `exclusive` locks. */
let stores: DatastoreDb[]
const store = (i: number) => stores[i % STORES]!

beforeAll(async () => {
  sqld = await startSqld({ dbPath: join(tempDir('ckan-edge-ds-race-'), 'ds.sqld') })
  stores = await Promise.all(Array.from({ length: STORES }, () => openClientDatastore(sqld.url)))
}, 60_000)
afterAll(async () => {
  for (const s of stores ?? []) s.close()
  await sqld?.stop()
})

describe('concurrent DataStore writes from separate stores', () => {
  it('keeps every column that concurrent datastore_create calls add', async () => {
    const id = 'race_alter'
    await createOrAlter(store(0), { id, fields: [{ id: 'a', type: 'int' }] }, now)
    const n = 12
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        // no `fields`: the record's new keys become columns (guessed types)
        createOrAlter(store(i), { id, records: [{ a: i, [`c${i}`]: 'x' }] }, now),
      ),
    )
    const t = await requireTable(store(0), id)
    const catalogued = t.columns.map((c) => c.id).sort()
    const { rows } = await store(0).query(`SELECT name FROM pragma_table_info('${id}') WHERE name <> '_id'`)
    expect(catalogued).toEqual(rows.map((r) => String(r[0])).sort())
    expect(catalogued).toHaveLength(n + 1)
    expect((await store(0).query(`SELECT count(*) FROM "${id}"`)).rows).toEqual([[n]])
  })

  it('creates a new table once when concurrent calls create it', async () => {
    const id = 'race_create'
    const made = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        createOrAlter(store(i), { id, fields: [{ id: 'k', type: 'text' }], records: [{ k: `r${i}` }] }, now),
      ),
    )
    expect(made.filter((m) => m.status === 'rejected')).toEqual([])
    expect((await store(0).query(`SELECT count(*) FROM "${id}"`)).rows).toEqual([[6]])
  })

  it('upserts one new key from concurrent calls without a duplicate key error', async () => {
    const id = 'race_upsert'
    await createOrAlter(
      store(0),
      { id, fields: [{ id: 'k', type: 'text' }, { id: 'n', type: 'int' }], primary_key: ['k'] },
      now,
    )
    const n = 12
    const done = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        upsertRecords(store(i), id, [{ k: 'same', n: i }, { k: `own${i}`, n: i }], 'upsert', { now }),
      ),
    )
    expect(done.filter((d) => d.status === 'rejected')).toEqual([])
    expect((await store(0).query(`SELECT count(*) FROM "${id}"`)).rows).toEqual([[n + 1]])
  })

  it('does not lose an update to a row deleted and re-inserted meanwhile', async () => {
    const id = 'race_update_delete'
    await createOrAlter(
      store(0),
      { id, fields: [{ id: 'k', type: 'text' }, { id: 'n', type: 'int' }], primary_key: ['k'] },
      now,
    )
    for (let round = 0; round < 5; round++) {
      await upsertRecords(store(0), id, [{ k: 'x', n: 0 }], 'upsert', { now })
      // an upsert of "x" races a delete of "x": afterwards "x" exists exactly when the upsert came last
      await Promise.all([
        upsertRecords(store(1), id, [{ k: 'x', n: round + 1 }], 'upsert', { now }),
        deleteRows(store(2), id, { k: 'x' }),
      ])
      const { rows } = await store(0).query(`SELECT k, n FROM "${id}"`)
      expect([[], [['x', round + 1]]]).toContainEqual(rows)
    }
  })
})
