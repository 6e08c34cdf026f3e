// The additive CKAN 2.11 DataStore pieces over the action API: datastore_records_delete,
// delete_fields, nulls first/last sorts, records_row in errors, datastore_info by resource_id.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller
let editor: Caller & { name: string }
let outsider: Caller & { name: string }
let orgId: string

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
  editor = await t.make.user()
  outsider = await t.make.user()
  const org = await t.make.organization(admin)
  orgId = org.id
  await t.ok(
    'organization_member_create',
    { id: org.id, username: editor.name, role: 'editor' },
    admin,
  )
})

const invalid = (field: string, ...msgs: string[]) => ({
  __type: 'Validation Error',
  [field]: msgs,
})

const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
]
const RECORDS = [
  { code: 'a', n: 1 },
  { code: 'b', n: 2 },
  { code: 'c', n: 2 },
  { code: 'd', n: null },
]

/** A url_type datastore resource with a table; returns its resource id. */
async function table(pkg: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const ds = await t.make.dataset(admin, pkg)
  const res = await t.ok(
    'datastore_create',
    { resource: { package_id: ds.id }, fields: FIELDS, records: RECORDS, ...extra },
    admin,
  )
  return res.resource_id as string
}

const codes = async (id: string, sort = '_id') =>
  (await t.ok('datastore_search', { resource_id: id, sort }, admin)).records.map(
    (r: { code: string }) => r.code,
  )

describe('datastore_records_delete', () => {
  const del = (params: Record<string, unknown>, as: Caller | null = admin) =>
    t.call('datastore_records_delete', params, as)

  it('deletes the matching rows and answers with the filters sent', async () => {
    const id = await table()
    const res = await del({ resource_id: id, filters: { n: 2 } })
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual({ resource_id: id, filters: { n: 2 } })
    expect(await codes(id)).toEqual(['a', 'd'])
  })

  it('deletes every row with {} and keeps the table, aliases and datastore_active', async () => {
    const id = await table({}, { aliases: 'records-delete-alias' })
    expect((await del({ id, filters: {} })).body.result).toEqual({ resource_id: id, filters: {} })
    expect(await codes(id)).toEqual([])
    expect(await codes('records-delete-alias')).toEqual([])
    expect((await t.ok('resource_show', { id }, admin)).datastore_active).toBe(true)
    const insert = { resource_id: id, method: 'insert', records: [{ code: 'z' }] }
    await t.ok('datastore_upsert', insert, admin)
    expect(await codes(id)).toEqual(['z'])
  })

  it('requires filters as a dict', async () => {
    const id = await table()
    const missing = await del({ resource_id: id, force: true })
    expect(missing.status).toBe(409)
    expect(missing.body.error).toEqual(invalid('filters', 'Missing value'))
    for (const filters of ['error here', null, [1]]) {
      const res = await del({ resource_id: id, force: true, filters })
      expect(res.status).toBe(409)
      expect(res.body.error).toEqual(invalid('filters', 'Must be a dict'))
    }
    expect((await del({ filters: {} })).body.error).toEqual(invalid('resource_id', 'Missing value'))
    expect(await codes(id)).toHaveLength(4)
  })

  it('answers 404 for a resource without a table and for an unknown id', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const bare = ds.resources[0].id
    const res = await del({ resource_id: bare, force: true, filters: {} })
    expect(res.status).toBe(404)
    expect(res.body.error).toEqual({
      __type: 'Not Found Error',
      message: `Not found: Resource "${bare}" was not found.`,
    })
    const unknown = await del({ resource_id: 'no-such-resource', filters: {} })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.__type).toBe('Not Found Error')
  })

  it('needs force for a read-only resource', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const id = ds.resources[0].id
    await t.ok('datastore_create', { resource_id: id, force: true, records: [{ a: 1 }] }, admin)
    const res = await del({ resource_id: id, filters: {} })
    expect(res.status).toBe(409)
    expect(Object.keys(res.body.error)).toContain('read-only')
    expect((await del({ resource_id: id, filters: {}, force: true })).status).toBe(200)
  })

  it('refuses anonymous callers and users who may not edit the dataset', async () => {
    const id = await table({ owner_org: orgId, private: true })
    const anon = await del({ resource_id: id, filters: {} }, null)
    expect(anon.status).toBe(403)
    expect(anon.body.error.__type).toBe('Authorization Error')
    const other = await del({ resource_id: id, filters: {} }, outsider)
    expect(other.status).toBe(403)
    expect(other.body.error.message).toBe(
      `Access denied: User ${outsider.name} not authorized to edit resource ${id}`,
    )
    expect(await codes(id)).toHaveLength(4)
    expect((await del({ resource_id: id, filters: { code: 'a' } }, editor)).status).toBe(200)
    expect(await codes(id)).toEqual(['b', 'c', 'd'])
  })

  it('is refused by GET, as a write', async () => {
    const id = await table()
    const url = `/api/3/action/datastore_records_delete?resource_id=${id}&filters={}`
    const res = await t.get(url, admin)
    expect(res.status).toBe(400)
    expect(await codes(id)).toHaveLength(4)
  })
})

describe('datastore_create delete_fields', () => {
  const COLS = ['col_a', 'col_b', 'col_c', 'col_d']
  const textFields = (...ids: string[]) => ids.map((id) => ({ id, type: 'text' }))
  const fieldIds = async (id: string) =>
    (await t.ok('datastore_info', { id }, admin)).fields.map((f: { id: string }) => f.id)

  async function fourColumns(extra: Record<string, unknown> = {}, pkg = {}) {
    const ds = await t.make.dataset(admin, pkg)
    const res = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: textFields(...COLS),
        records: [{ col_a: 'a1', col_b: 'b1', col_c: 'c1', col_d: 'd1' }],
        ...extra,
      },
      admin,
    )
    return res.resource_id as string
  }

  it('keeps the columns that fields leaves out unless delete_fields is true', async () => {
    const id = await fourColumns()
    // ckan 2.9: a list that disagrees with the existing columns is refused by default
    const refused = await t.call(
      'datastore_create',
      { resource_id: id, fields: textFields('col_a', 'col_c') },
      admin,
    )
    expect(refused.status).toBe(409)
    expect(refused.body.error).toEqual(
      invalid('fields', 'Supplied field "col_c" not present or in wrong order'),
    )
    expect(await fieldIds(id)).toEqual(['_id', ...COLS])

    const res = await t.call(
      'datastore_create',
      { resource_id: id, fields: textFields('col_a', 'col_c'), delete_fields: true },
      admin,
    )
    expect(res.status).toBe(200)
    expect(await fieldIds(id)).toEqual(['_id', 'col_a', 'col_c'])
    const rows = (await t.ok('datastore_search', { resource_id: id, q: 'c1' }, admin)).records
    expect(rows).toEqual([{ _id: 1, col_a: 'a1', col_c: 'c1', rank: expect.any(Number) }])
  })

  it('adds new fields, keeps the ones the first record names and accepts any order', async () => {
    const id = await fourColumns({ aliases: 'delete-fields-alias' })
    await t.ok(
      'datastore_create',
      {
        resource_id: id,
        fields: [...textFields('col_c', 'col_a'), { id: 'col_e', type: 'int' }],
        records: [{ col_a: 'a2', col_d: 'd2', col_e: 5 }],
        delete_fields: 'true',
      },
      admin,
    )
    expect(await fieldIds(id)).toEqual(['_id', 'col_a', 'col_c', 'col_d', 'col_e'])
    const rows = (await t.ok('datastore_search', { resource_id: 'delete-fields-alias' }, admin))
      .records
    expect(rows).toEqual([
      { _id: 1, col_a: 'a1', col_c: 'c1', col_d: 'd1', col_e: null },
      { _id: 2, col_a: 'a2', col_c: null, col_d: 'd2', col_e: 5 },
    ])
  })

  it('drops the key and indexes over a dropped column', async () => {
    const id = await fourColumns({ primary_key: 'col_b', indexes: ['col_c', 'col_d'] })
    await t.ok(
      'datastore_create',
      { resource_id: id, fields: textFields('col_a', 'col_c'), delete_fields: true },
      admin,
    )
    expect(await fieldIds(id)).toEqual(['_id', 'col_a', 'col_c'])
    // no key left: upsert needs one, insert takes duplicates
    const dup = { resource_id: id, method: 'insert', records: [{ col_a: 'a1', col_c: 'c1' }] }
    await t.ok('datastore_upsert', dup, admin)
    expect(await codesOf(id)).toEqual(['c1', 'c1'])
    const sorted = await t.ok('datastore_search', { resource_id: id, sort: 'col_c desc' }, admin)
    expect(sorted.records).toHaveLength(2)
  })

  it('is refused without edit rights and answers for an unknown resource', async () => {
    const id = await fourColumns({}, { owner_org: orgId })
    const params = { resource_id: id, fields: textFields('col_a'), delete_fields: true }
    const other = await t.call('datastore_create', params, outsider)
    expect(other.status).toBe(403)
    expect(await fieldIds(id)).toEqual(['_id', ...COLS])
    const gone = await t.call('datastore_create', { ...params, resource_id: 'no-such' }, admin)
    expect(gone.status).toBe(409)
    expect(gone.body.error).toEqual(invalid('resource_id', 'Not found: Resource'))
  })
})

const codesOf = async (id: string) =>
  (await t.ok('datastore_search', { resource_id: id, sort: '_id' }, admin)).records.map(
    (r: { col_c: string }) => r.col_c,
  )

describe('records_row in datastore_create and datastore_upsert errors', () => {
  const REFUSE = `BEGIN
  IF NEW.code = 'bad' THEN RAISE EXCEPTION 'no bad codes'; END IF;
  RETURN NEW;
END;`

  it('names the failing record of a bad value beside 2.9 clients\' _records_row', async () => {
    const id = await table()
    const res = await t.call(
      'datastore_create',
      { resource_id: id, records: [{ code: 'e', n: 5 }, { code: 'f', n: 'six' }] },
      admin,
    )
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ _records_row: 1, records_row: 1 })
    const up = await t.call(
      'datastore_upsert',
      { resource_id: id, method: 'insert', records: [{ n: 'x' }] },
      admin,
    )
    expect(up.body.error).toMatchObject({ _records_row: 0, records_row: 0 })
    expect(await codes(id)).toEqual(['a', 'b', 'c', 'd'])
  })

  it('names the record a trigger refused', async () => {
    await t.ok(
      'datastore_function_create',
      { name: 'no_bad_codes', rettype: 'trigger', definition: REFUSE },
      admin,
    )
    const ds = await t.make.dataset(admin)
    const made = await t.call(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: [{ id: 'code', type: 'text' }],
        triggers: [{ function: 'no_bad_codes' }],
        records: [{ code: 'ok' }, { code: 'bad' }],
      },
      admin,
    )
    expect(made.status).toBe(409)
    expect(made.body.error).toEqual({
      __type: 'Validation Error',
      records: ['no bad codes'],
      records_row: 1,
    })
    const { resource_id: id } = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: [{ id: 'code', type: 'text' }],
        triggers: [{ function: 'no_bad_codes' }],
      },
      admin,
    )
    const insert = { resource_id: id, method: 'insert', records: [{ code: 'ok' }, { code: 'bad' }] }
    expect((await t.call('datastore_upsert', insert, admin)).body.error).toEqual({
      __type: 'Validation Error',
      records: ['no bad codes'],
      records_row: 1,
    })
    expect(await codes(id)).toEqual([])
  })

  it('is not reached by callers who may not write or by an unknown resource', async () => {
    const id = await table({ owner_org: orgId })
    const params = { resource_id: id, method: 'insert', records: [{ n: 'x' }] }
    const other = await t.call('datastore_upsert', params, outsider)
    expect(other.status).toBe(403)
    expect(other.body.error.records_row).toBeUndefined()
    const gone = await t.call('datastore_upsert', { ...params, resource_id: 'no-such' }, admin)
    expect(gone.status).toBe(404)
  })
})

describe('datastore_search sort nulls first / nulls last', () => {
  it('places NULLs where the sort asks, PostgreSQL\'s defaults otherwise', async () => {
    const id = await table()
    expect(await codes(id, 'n desc nulls last, code')).toEqual(['b', 'c', 'a', 'd'])
    expect(await codes(id, 'n desc nulls first, code')).toEqual(['d', 'b', 'c', 'a'])
    expect(await codes(id, 'n nulls first, code desc')).toEqual(['d', 'a', 'c', 'b'])
    expect(await codes(id, 'n NULLS LAST, code')).toEqual(['a', 'b', 'c', 'd'])
    // PostgreSQL: NULL is larger than every value
    expect(await codes(id, 'n, code')).toEqual(['a', 'b', 'c', 'd'])
    expect(await codes(id, 'n desc, code')).toEqual(['d', 'b', 'c', 'a'])
    const list = await t.ok(
      'datastore_search',
      { resource_id: id, sort: ['n asc nulls first', 'code'] },
      admin,
    )
    expect(list.records.map((r: { code: string }) => r.code)).toEqual(['d', 'a', 'b', 'c'])
  })

  it('works by GET, as a read', async () => {
    const id = await table()
    const sort = encodeURIComponent('n desc nulls last,code')
    const res = await t.get(`/api/3/action/datastore_search?resource_id=${id}&sort=${sort}`)
    expect(res.status).toBe(200)
    expect((res.body as any).result.records.map((r: { code: string }) => r.code)).toEqual([
      'b',
      'c',
      'a',
      'd',
    ])
  })

  it('refuses a malformed nulls clause and an unknown column', async () => {
    const id = await table()
    for (const sort of ['n nulls middle', 'n desc nulls', 'nope nulls last']) {
      const res = await t.call('datastore_search', { resource_id: id, sort }, admin)
      expect(res.status).toBe(409)
      expect(res.body.error.__type).toBe('Validation Error')
      expect(Object.keys(res.body.error)).toContain('sort')
    }
  })

  it('answers 404 for an unknown table and refuses a private one to others', async () => {
    const gone = await t.call('datastore_search', { resource_id: 'no-such', sort: 'n nulls last' })
    expect(gone.status).toBe(404)
    const id = await table({ owner_org: orgId, private: true })
    const other = await t.call('datastore_search', { resource_id: id, sort: 'n nulls last' }, outsider)
    expect(other.status).toBe(403)
  })
})

describe('datastore_info with resource_id', () => {
  it('answers GET and POST with resource_id as with id', async () => {
    const id = await table()
    const byId = await t.ok('datastore_info', { id }, admin)
    expect(byId.meta).toEqual({ count: 4 })
    expect(await t.ok('datastore_info', { resource_id: id }, admin)).toEqual(byId)
    const res = await t.get(`/api/3/action/datastore_info?resource_id=${id}`)
    expect(res.status).toBe(200)
    expect((res.body as any).result).toEqual(byId)
  })

  it('keeps 2.9\'s Missing value under id when neither is given', async () => {
    const res = await t.get('/api/3/action/datastore_info')
    expect(res.status).toBe(409)
    expect((res.body as any).error).toEqual(invalid('id', 'Missing value'))
    const blank = await t.call('datastore_info', { resource_id: '' }, admin)
    expect(blank.body.error).toEqual(invalid('id', 'Missing value'))
  })

  it('answers 404 for an unknown resource and one without a table', async () => {
    const unknown = await t.get('/api/3/action/datastore_info?resource_id=no-such-resource')
    expect(unknown.status).toBe(404)
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const bare = await t.call('datastore_info', { resource_id: ds.resources[0].id }, admin)
    expect(bare.status).toBe(404)
  })

  it('refuses a private resource to outsiders and anonymous callers', async () => {
    const id = await table({ owner_org: orgId, private: true })
    const other = await t.call('datastore_info', { resource_id: id }, outsider)
    expect(other.status).toBe(403)
    const anon = await t.get(`/api/3/action/datastore_info?resource_id=${id}`)
    expect(anon.status).toBe(403)
    expect((await t.call('datastore_info', { resource_id: id }, editor)).status).toBe(200)
  })
})
