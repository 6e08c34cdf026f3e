// CKAN 2.12's DataStore additions over the action API: include_records (datastore_create,
// datastore_upsert), include_deleted_records (datastore_delete, datastore_records_delete),
// calculate_record_count "background" and millisecond timestamps (service.datastore.ms_in_timestamp),
// under api_compat 2.9 and 2.11 and through the portable DataStore adapter (Workers' path).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

const UPPER = 'BEGIN NEW.movie := upper(NEW.movie); RETURN NEW; END;'

const FIELDS = [
  { id: 'id', type: 'text' },
  { id: 'movie', type: 'text' },
  { id: 'n', type: 'int' },
  { id: 'at', type: 'timestamp' },
]

describe.each([
  { compat: '2.9', portable: false },
  { compat: '2.11', portable: false },
  { compat: '2.9', portable: true },
])('CKAN 2.12 DataStore additions (api_compat $compat, portable $portable)', ({ compat, portable }) => {
  let t: TestEnv
  let admin: Caller
  let trigger: string

  beforeAll(async () => {
    t = await setup(
      { 'service.api_compat': compat, 'service.datastore.search.rows_max': '3' },
      { portableDatastore: portable },
    )
    admin = await t.make.sysadmin()
    trigger = `upper_movie_${compat.replace('.', '_')}_${portable ? 'p' : 'n'}`
    await t.ok('datastore_function_create', { name: trigger, rettype: 'trigger', definition: UPPER }, admin)
  })

  /** A url_type datastore resource with a keyed table; returns its resource id. */
  async function table(extra: Record<string, unknown> = {}) {
    const ds = await t.make.dataset(admin)
    const made = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: FIELDS,
        primary_key: 'id',
        records: [{ id: '1', movie: 'Cats', n: 1, at: '2005-03-01' }],
        ...extra,
      },
      admin,
    )
    return made.resource_id as string
  }

  const rows = async (id: string) =>
    (await t.ok('datastore_search', { resource_id: id }, admin)).records as Record<string, unknown>[]

  describe('datastore_create include_records', () => {
    it('answers the inserted rows as written: _id, every column, after triggers', async () => {
      const ds = await t.make.dataset(admin)
      const res = await t.ok(
        'datastore_create',
        {
          resource: { package_id: ds.id },
          fields: FIELDS,
          triggers: [{ function: trigger }],
          records: [
            { id: 'a', movie: 'Cats', at: '2005-03-01 10:11:12.5' },
            { id: 'b', n: '7' },
          ],
          include_records: true,
        },
        admin,
      )
      expect(res.records).toEqual([
        { _id: 1, id: 'a', movie: 'CATS', n: null, at: '2005-03-01T10:11:12.500000' },
        { _id: 2, id: 'b', movie: null, n: 7, at: null },
      ])
      expect(res).not.toHaveProperty('include_records')
      // a second call appends: the new rows' _ids
      const more = await t.ok(
        'datastore_create',
        { resource_id: res.resource_id, records: [{ id: 'c', movie: 'x' }], include_records: 'true' },
        admin,
      )
      expect(more.records).toEqual([{ _id: 3, id: 'c', movie: 'X', n: null, at: null }])
    })

    it('answers no records by default, nor without records', async () => {
      const ds = await t.make.dataset(admin)
      const plain = await t.ok(
        'datastore_create',
        { resource: { package_id: ds.id }, fields: FIELDS, records: [{ id: 'a' }] },
        admin,
      )
      expect(plain).not.toHaveProperty('records')
      const none = await t.ok(
        'datastore_create',
        { resource_id: plain.resource_id, fields: FIELDS, include_records: true },
        admin,
      )
      expect(none).not.toHaveProperty('records')
    })

    it('refuses a bad value with a Validation Error, writing nothing', async () => {
      const id = await table()
      const res = await t.call(
        'datastore_create',
        { resource_id: id, records: [{ id: '2', n: 'many' }], include_records: true },
        admin,
      )
      expect(res.status).toBe(409)
      expect(res.body.error.__type).toBe('Validation Error')
      expect(res.body.error.message).toContain('invalid input syntax for type integer: "many"')
      expect((await rows(id)).map((r) => r.id)).toEqual(['1'])
    })
  })

  describe('datastore_upsert include_records', () => {
    const upsert = (params: Record<string, unknown>) => t.ok('datastore_upsert', params, admin)

    it('without include_records answers the records as sent (CKAN 2.9 to 2.11)', async () => {
      const id = await table()
      const sent = [{ id: '1', movie: 'Cats the Musical' }]
      const res = await upsert({ resource_id: id, records: sent })
      expect(res.records).toEqual(sent)
    })

    it('include_records false leaves the records out', async () => {
      const id = await table()
      const res = await upsert({ resource_id: id, records: [{ id: '1', movie: 'x' }], include_records: false })
      expect(res).not.toHaveProperty('records')
      expect(res).not.toHaveProperty('include_records')
    })

    it('insert: every inserted row with its _id', async () => {
      const id = await table()
      const res = await upsert({
        resource_id: id,
        method: 'insert',
        records: [{ id: '2', movie: 'Making Of' }, { id: '3', n: 3 }],
        include_records: true,
      })
      expect(res.records).toEqual([
        { _id: 2, id: '2', movie: 'Making Of', n: null, at: null },
        { _id: 3, id: '3', movie: null, n: 3, at: null },
      ])
    })

    it('update: each row once, where first written, with its last values and unsent columns', async () => {
      const id = await table()
      await upsert({ resource_id: id, method: 'insert', records: [{ id: '2', movie: 'Dogs' }] })
      const res = await upsert({
        resource_id: id,
        method: 'update',
        records: [
          { id: '1', movie: 'Cats the Musical' },
          { id: '2', n: 5 },
          { id: '1', movie: 'Cats: The Making Of' },
        ],
        include_records: true,
      })
      expect(res.records).toEqual([
        { _id: 1, id: '1', movie: 'Cats: The Making Of', n: 1, at: '2005-03-01T00:00:00' },
        { _id: 2, id: '2', movie: 'Dogs', n: 5, at: null },
      ])
    })

    it('upsert: updated and new rows, after the table triggers', async () => {
      const id = await table({ triggers: [{ function: trigger }] })
      const res = await upsert({
        resource_id: id,
        records: [
          { id: 'new', movie: 'fresh' },
          { id: '1', movie: 'again' },
          { id: 'new', n: 9 },
        ],
        include_records: true,
      })
      expect(res.records).toEqual([
        { _id: 2, id: 'new', movie: 'FRESH', n: 9, at: null },
        { _id: 1, id: '1', movie: 'AGAIN', n: 1, at: '2005-03-01T00:00:00' },
      ])
      expect((await rows(id)).map((r) => r.movie)).toEqual(['AGAIN', 'FRESH'])
    })

    it('a dry run answers the rows it would write and writes nothing', async () => {
      const id = await table()
      const res = await upsert({
        resource_id: id,
        method: 'insert',
        records: [{ id: '2', movie: 'Dry' }],
        dry_run: true,
        include_records: true,
      })
      expect(res.records).toEqual([{ _id: 2, id: '2', movie: 'Dry', n: null, at: null }])
      expect((await rows(id)).map((r) => r.id)).toEqual(['1'])
      // nor is the _id used up
      const next = await upsert({ resource_id: id, method: 'insert', records: [{ id: '3' }], include_records: true })
      expect(next.records[0]._id).toBe(2)
    })

    it('errors stay Validation Errors: a bad value, a missing key, a duplicate key', async () => {
      const id = await table()
      const bad = await t.call(
        'datastore_upsert',
        { resource_id: id, records: [{ id: '1', n: 'x' }], include_records: true },
        admin,
      )
      expect(bad.status).toBe(409)
      expect(bad.body.error).toMatchObject({
        __type: 'Validation Error',
        records: ['invalid input syntax for type integer: "x"'],
        records_row: 0,
      })
      const missing = await t.call(
        'datastore_upsert',
        { resource_id: id, method: 'update', records: [{ id: 'nope', n: 1 }], include_records: true },
        admin,
      )
      expect(missing.status).toBe(409)
      expect(missing.body.error.key).toEqual(['key "[\'nope\']" not found'])
      const dup = await t.call(
        'datastore_upsert',
        { resource_id: id, method: 'insert', records: [{ id: '1' }], include_records: true },
        admin,
      )
      expect(dup.status).toBe(409)
      expect(dup.body.error.__type).toBe('Validation Error')
      const notList = await t.call('datastore_upsert', { resource_id: id, records: 'x', include_records: true }, admin)
      expect(notList.status).toBe(409)
      expect(notList.body.error.records).toEqual(['Records has to be a list of dicts'])
    })
  })

  describe('include_deleted_records', () => {
    async function five() {
      const id = await table()
      await t.ok(
        'datastore_upsert',
        { resource_id: id, method: 'insert', records: ['2', '3', '4', '5'].map((k) => ({ id: k, n: Number(k) })) },
        admin,
      )
      return id
    }

    it('datastore_delete answers the deleted rows in _id order, at most rows_max', async () => {
      const id = await five()
      const res = await t.ok(
        'datastore_delete',
        { resource_id: id, filters: { n: { gte: 2 } }, include_deleted_records: true },
        admin,
      )
      expect(res).toEqual({
        resource_id: id,
        filters: { n: { gte: 2 } },
        deleted_records: [
          { _id: 2, id: '2', movie: null, n: 2, at: null },
          { _id: 3, id: '3', movie: null, n: 3, at: null },
          { _id: 4, id: '4', movie: null, n: 4, at: null },
        ],
      })
      // every matching row is deleted, whatever the answer holds
      expect((await rows(id)).map((r) => r.id)).toEqual(['1'])
    })

    it('is left out by default, and when the table is dropped', async () => {
      const id = await five()
      const res = await t.ok('datastore_delete', { resource_id: id, filters: { id: '5' } }, admin)
      expect(res).toEqual({ resource_id: id, filters: { id: '5' } })
      const dropped = await t.ok('datastore_delete', { resource_id: id, include_deleted_records: true }, admin)
      expect(dropped).toEqual({ resource_id: id })
    })

    it('datastore_records_delete answers them too; {} matches every row', async () => {
      const id = await five()
      const one = await t.ok(
        'datastore_records_delete',
        { resource_id: id, filters: { id: '1' }, include_deleted_records: 'yes' },
        admin,
      )
      expect(one.deleted_records).toEqual([{ _id: 1, id: '1', movie: 'Cats', n: 1, at: '2005-03-01T00:00:00' }])
      const all = await t.ok('datastore_records_delete', { resource_id: id, filters: {}, include_deleted_records: true }, admin)
      expect(all.deleted_records.map((r: { _id: number }) => r._id)).toEqual([2, 3, 4])
      expect(await rows(id)).toEqual([])
      const none = await t.ok('datastore_records_delete', { resource_id: id, filters: {}, include_deleted_records: true }, admin)
      expect(none.deleted_records).toEqual([])
    })

    it('a bad filter is a Validation Error and deletes nothing', async () => {
      const id = await five()
      const res = await t.call(
        'datastore_delete',
        { resource_id: id, filters: { nope: 1 }, include_deleted_records: true },
        admin,
      )
      expect(res.status).toBe(409)
      expect(res.body.error.__type).toBe('Validation Error')
      const bad = await t.call(
        'datastore_records_delete',
        { resource_id: id, filters: { n: 'x' }, include_deleted_records: true },
        admin,
      )
      expect(bad.status).toBe(409)
      expect(bad.body.error.__type).toBe('Validation Error')
      expect((await t.ok('datastore_search', { resource_id: id }, admin)).total).toBe(5)
    })
  })

  describe('calculate_record_count', () => {
    it('takes "background" besides booleans, on every write', async () => {
      const id = await table()
      const up = await t.ok(
        'datastore_upsert',
        { resource_id: id, records: [{ id: '1', n: 2 }], calculate_record_count: 'background' },
        admin,
      )
      expect(up.calculate_record_count).toBe('background')
      const created = await t.ok(
        'datastore_create',
        { resource_id: id, records: [{ id: '9' }], calculate_record_count: 'background' },
        admin,
      )
      expect(created.calculate_record_count).toBe('background')
      const del = await t.ok(
        'datastore_records_delete',
        { resource_id: id, filters: { id: '9' }, calculate_record_count: 'background' },
        admin,
      )
      expect(del.calculate_record_count).toBe('background')
      // CKAN 2.9's lenient boolean stays: any other text is false, never an error
      const other = await t.ok(
        'datastore_delete',
        { resource_id: id, filters: { id: '9' }, calculate_record_count: 'maybe' },
        admin,
      )
      expect(other.calculate_record_count).toBe(false)
      expect((await t.ok('datastore_search', { resource_id: id }, admin)).total).toBe(1)
    })
  })

  describe('timestamps', () => {
    it('datastore_search cuts the fraction by default (CKAN 2.9 to 2.11)', async () => {
      const id = await table()
      await t.ok('datastore_upsert', { resource_id: id, records: [{ id: '2', at: '2005-03-01 10:11:12.123456' }] }, admin)
      expect((await rows(id)).map((r) => r.at)).toEqual(['2005-03-01T00:00:00', '2005-03-01T10:11:12'])
    })
  })
})

describe('service.datastore.ms_in_timestamp', () => {
  let t: TestEnv
  let admin: Caller
  let id: string

  beforeAll(async () => {
    t = await setup({ 'ckan.datastore.ms_in_timestamp': 'true' })
    admin = await t.make.sysadmin()
    const ds = await t.make.dataset(admin)
    const made = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: [
          { id: 'at', type: 'timestamp' },
          { id: 'd', type: 'date' },
          { id: 'tz', type: 'timestamptz' },
        ],
        records: [
          { at: '2005-03-01', d: '2005-03-01', tz: '2005-03-01 10:00:00.5+00' },
          { at: '2005-03-01 10:11:12.123956' },
          { at: '2005-03-01T10:11:12.5' },
          { at: 'infinity' },
          { at: null },
        ],
      },
      admin,
    )
    id = made.resource_id
  })

  it('datastore_search shows milliseconds, cut rather than rounded, in every records format', async () => {
    const res = await t.ok('datastore_search', { resource_id: id }, admin)
    expect(res.records.map((r: { at: string }) => r.at)).toEqual([
      '2005-03-01T00:00:00.000',
      '2005-03-01T10:11:12.123',
      '2005-03-01T10:11:12.500',
      'infinity',
      null,
    ])
    // dates and timestamptz are not touched
    expect(res.records[0].d).toBe('2005-03-01')
    const lists = await t.ok('datastore_search', { resource_id: id, records_format: 'lists', fields: 'at' }, admin)
    expect(lists.records[1]).toEqual(['2005-03-01T10:11:12.123'])
    const csv = await t.ok('datastore_search', { resource_id: id, records_format: 'csv', fields: 'at', limit: 1 }, admin)
    expect(csv.records).toBe('2005-03-01T00:00:00.000\n')
  })

  it('dumps show them too', async () => {
    const r = await t.get(`/datastore/dump/${id}?format=csv`, admin)
    expect(r.status).toBe(200)
    expect(r.text.split('\r\n')[1] ?? r.text.split('\n')[1]).toContain('2005-03-01T00:00:00.000')
  })
})
