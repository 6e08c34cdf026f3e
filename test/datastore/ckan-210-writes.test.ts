// DataStore writes that follow service.api_compat: CKAN 2.10's update and upsert by `_id` (also on a
// table without a primary key; 2.9: `fields "_id" do not exist` / "table does not have a unique
// key defined") and CKAN 2.11's `""` as NULL for columns of any type but text (2.9 and 2.10:
// "invalid input syntax").
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

describe.each([
  { compat: '2.9', portable: false },
  { compat: '2.10', portable: false },
  { compat: '2.11', portable: false },
  { compat: '2.11', portable: true },
])('api_compat $compat (portable $portable)', ({ compat, portable }) => {
  const byId = compat !== '2.9'
  const blankIsNull = compat === '2.11'
  let t: TestEnv
  let admin: Caller

  beforeAll(async () => {
    t = await setup({ 'service.api_compat': compat }, { portableDatastore: portable })
    admin = await t.make.sysadmin()
  })

  async function table(params: object) {
    const ds = await t.make.dataset(admin)
    const made = await t.ok('datastore_create', { resource: { package_id: ds.id }, ...params }, admin)
    return made.resource_id as string
  }
  const rows = async (id: string) =>
    (await t.ok('datastore_search', { resource_id: id, sort: '_id' }, admin)).records
  const upsert = (id: string, method: string, records: object[], extra: object = {}) =>
    t.call('datastore_upsert', { resource_id: id, force: true, method, records, ...extra }, admin)

  describe('update and upsert by _id (CKAN 2.10)', () => {
    const noKey = () => table({ fields: [{ id: 'book', type: 'text' }], records: [{ book: 'El Niño' }] })
    const keyed = () =>
      table({
        primary_key: 'pk',
        fields: [
          { id: 'pk', type: 'text' },
          { id: 'book', type: 'text' },
          { id: 'author', type: 'text' },
        ],
        records: [{ pk: '1000', book: 'El Niño', author: 'Torres' }],
      })

    it.each(['update', 'upsert'])('%s of a table without a primary key', async (method) => {
      const id = await noKey()
      const r = await upsert(id, method, [{ _id: '1', book: 'The boy' }])
      if (byId) {
        expect(r.status).toBe(200)
        expect(await rows(id)).toEqual([{ _id: 1, book: 'The boy' }])
      } else {
        expect(r.status).toBe(409)
        expect(r.body.error).toMatchObject({ table: ['table does not have a unique key defined'] })
        expect(await rows(id)).toEqual([{ _id: 1, book: 'El Niño' }])
      }
      // a record without _id on such a table
      const without = await upsert(id, method, [{ book: 'x' }])
      expect(without.status).toBe(409)
      expect(without.body.error.table).toEqual([
        byId ? 'unique key must be passed for update/upsert' : 'table does not have a unique key defined',
      ])
    })

    it.each(['update', 'upsert'])('%s by _id of a table with a primary key', async (method) => {
      const id = await keyed()
      const r = await upsert(id, method, [{ _id: 1, book: 'The boy', author: 'F Torres' }])
      if (!byId) {
        expect(r.status).toBe(409)
        expect(r.body.error).toMatchObject({ fields: ['fields "_id" do not exist'] })
        return
      }
      expect(r.status).toBe(200)
      expect(await rows(id)).toEqual([{ _id: 1, pk: '1000', book: 'The boy', author: 'F Torres' }])
      // the key columns a record found by _id sends are written too; the key finds it afterwards
      await t.ok('datastore_upsert', { resource_id: id, force: true, method, records: [{ _id: 1, pk: '2000' }] }, admin)
      await t.ok('datastore_upsert', { resource_id: id, force: true, method, records: [{ pk: '2000', book: 'B' }] }, admin)
      expect(await rows(id)).toEqual([{ _id: 1, pk: '2000', book: 'B', author: 'F Torres' }])
      // records by key and by _id in one call, one row each way
      await t.ok(
        'datastore_upsert',
        { resource_id: id, force: true, method, records: [{ pk: '2000', book: 'C' }, { _id: 1, author: 'D' }] },
        admin,
      )
      expect(await rows(id)).toEqual([{ _id: 1, pk: '2000', book: 'C', author: 'D' }])
    })

    it.runIf(byId)('a key taken by another row is the duplicate key error', async () => {
      const id = await keyed()
      await t.ok('datastore_upsert', { resource_id: id, force: true, method: 'insert', records: [{ pk: '1001' }] }, admin)
      const r = await upsert(id, 'update', [{ _id: 2, pk: '1000' }])
      expect(r.status).toBe(409)
      expect(r.body.error.records[0]).toMatch(/^duplicate key value violates unique constraint/)
    })

    it.runIf(byId)('an _id not found: update refuses it, upsert inserts a new row', async () => {
      const id = await noKey()
      const miss = await upsert(id, 'update', [{ _id: '99', book: 'x' }])
      expect(miss.status).toBe(409)
      expect(miss.body.error).toMatchObject({ key: [`key "['99']" not found`] })
      await t.ok('datastore_upsert', { resource_id: id, force: true, records: [{ _id: 99, book: 'new' }] }, admin)
      await t.ok('datastore_upsert', { resource_id: id, force: true, records: [{ _id: null, book: 'newer' }] }, admin)
      expect(await rows(id)).toEqual([
        { _id: 1, book: 'El Niño' },
        { _id: 2, book: 'new' },
        { _id: 3, book: 'newer' },
      ])
      const nullUpdate = await upsert(id, 'update', [{ _id: null, book: 'x' }])
      expect(nullUpdate.body.error).toMatchObject({ key: ['key "[None]" not found'] })
    })

    it.runIf(byId)('an _id that is not an integer is the database error, never a 500', async () => {
      const id = await noKey()
      for (const bad of ['abc', true, [1], { a: 1 }]) {
        const r = await upsert(id, 'update', [{ book: 'ok', _id: 1 }, { _id: bad, book: 'x' }])
        expect(r.status, JSON.stringify(bad)).toBe(409)
        expect(r.body.error, JSON.stringify(bad)).toMatchObject({ records_row: 1, _records_row: 1 })
        expect(r.body.error.records[0]).toMatch(/integer/)
      }
      expect(await rows(id)).toEqual([{ _id: 1, book: 'El Niño' }])
    })

    it.runIf(byId)('include_records answers the rows written by _id', async () => {
      const id = await noKey()
      const r = await t.ok(
        'datastore_upsert',
        { resource_id: id, force: true, include_records: true, records: [{ _id: 1, book: 'a' }, { _id: 7, book: 'b' }] },
        admin,
      )
      expect(r.records).toEqual([
        { _id: 1, book: 'a' },
        { _id: 2, book: 'b' },
      ])
    })

    it('insert still refuses _id', async () => {
      const id = await noKey()
      const r = await upsert(id, 'insert', [{ _id: 5, book: 'x' }])
      expect(r.status).toBe(409)
      expect(r.body.error.records[0]).toMatch(/has extra keys "_id"/)
    })
  })

  describe('"" for a column that is not text (CKAN 2.11)', () => {
    const fields = [
      { id: 'pk', type: 'text' },
      { id: 'n', type: 'int' },
      { id: 'd', type: 'date' },
      { id: 's', type: 'text' },
      { id: 'a', type: '_int4' },
    ]
    const blankRow = { pk: '1000', n: '', d: '', s: '', a: '' }

    it('datastore_create and the insert method', async () => {
      const ds = await t.make.dataset(admin)
      const made = await t.call(
        'datastore_create',
        { resource: { package_id: ds.id }, primary_key: 'pk', fields, records: [blankRow] },
        admin,
      )
      if (!blankIsNull) {
        expect(made.status).toBe(409)
        expect(made.body.error).toMatchObject({
          message: 'The data was invalid: invalid input syntax for type integer: ""',
          records_row: 0,
        })
        return
      }
      expect(made.status).toBe(200)
      const id = made.body.result.resource_id
      expect(await upsert(id, 'insert', [{ ...blankRow, pk: '1001' }])).toMatchObject({ status: 200 })
      expect(await rows(id)).toEqual([
        { _id: 1, pk: '1000', n: null, d: null, s: '', a: null },
        { _id: 2, pk: '1001', n: null, d: null, s: '', a: null },
      ])
    })

    it.each(['update', 'upsert'])('the %s method', async (method) => {
      const id = await table({
        primary_key: 'pk',
        fields,
        records: [{ pk: '1000', n: '5', d: '2020-02-02', s: 'x', a: [1] }],
      })
      const r = await upsert(id, method, [blankRow])
      if (!blankIsNull) {
        expect(r.status).toBe(409)
        expect(r.body.error).toMatchObject({ records: ['invalid input syntax for type integer: ""'] })
        return
      }
      expect(r.status).toBe(200)
      expect(await rows(id)).toEqual([{ _id: 1, pk: '1000', n: null, d: null, s: '', a: null }])
    })
  })
})
