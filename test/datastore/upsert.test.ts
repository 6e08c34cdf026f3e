// datastore_upsert over the action API: the three methods, key rules, value errors, dry runs,
// atomicity, full-text upkeep, not-found, the read-only rule and authorization.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
})

const fail = (field: string, ...msgs: string[]) => ({ __type: 'Validation Error', [field]: msgs })

const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
  { id: 'note', type: 'text' },
]

/** A url_type datastore resource with a keyed table; returns its id. */
async function keyed(records: object[] = [], extra: Record<string, unknown> = {}): Promise<string> {
  const ds = await t.make.dataset(admin)
  const res = await t.ok(
    'datastore_create',
    { resource: { package_id: ds.id }, fields: FIELDS, primary_key: 'code', records, ...extra },
    admin,
  )
  return res.resource_id as string
}

const upsert = (params: Record<string, unknown>, as: Caller | null = admin) =>
  t.call('datastore_upsert', params, as)

const rows = async (id: string) =>
  (await t.ok('datastore_search', { resource_id: id, sort: '_id' }, admin)).records

const ids = async (id: string, params: Record<string, unknown>) =>
  (await t.ok('datastore_search', { resource_id: id, ...params }, admin)).records.map(
    (r: { _id: number }) => r._id,
  )

describe('datastore_upsert: insert', () => {
  it('appends rows, leaving missing columns null', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    const res = await upsert({
      resource_id: id,
      method: 'insert',
      records: [{ code: 'b', n: '2' }, { note: 'no key' }],
    })
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual({
      resource_id: id,
      method: 'insert',
      records: [{ code: 'b', n: '2' }, { note: 'no key' }],
    })
    expect(await rows(id)).toEqual([
      { _id: 1, code: 'a', n: 1, note: null },
      { _id: 2, code: 'b', n: 2, note: null },
      { _id: 3, code: null, n: null, note: 'no key' },
    ])
  })

  it('refuses a duplicate key and writes none of the records', async () => {
    const id = await keyed([{ code: 'a' }])
    const res = await upsert({
      resource_id: id,
      method: 'insert',
      records: [{ code: 'b' }, { code: 'a' }],
    })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(
      fail('records', `duplicate key value violates unique constraint "_pk_${id}"`),
    )
    expect((await rows(id)).map((r: { code: string }) => r.code)).toEqual(['a'])
  })

  it('refuses an invalid value with the data message and writes nothing', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    const res = await upsert({
      resource_id: id,
      method: 'insert',
      records: [
        { code: 'b', n: 2 },
        { code: 'c', n: 'many' },
      ],
    })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual({
      __type: 'Validation Error',
      message:
        'The data was invalid: invalid input syntax for type integer: "many"',
      _records_row: 1,
      records_row: 1,
    })
    expect(await rows(id)).toHaveLength(1)
  })

  it('refuses rows that are not objects or have unknown keys', async () => {
    const id = await keyed()
    const notObj = await upsert({
      resource_id: id,
      method: 'insert',
      records: [{ code: 'x' }, 'y'],
    })
    expect(notObj.body.error).toEqual(fail('records', 'row "1" is not a json object'))
    const extra = await upsert({
      resource_id: id,
      method: 'insert',
      records: [{ code: 'x', zz: 1, yy: 2 }],
    })
    expect(extra.body.error).toEqual(fail('records', 'row "1" has extra keys "zz, yy"'))
    const notList = await upsert({ resource_id: id, method: 'insert', records: { code: 'x' } })
    expect(notList.body.error).toEqual(fail('records', 'Records has to be a list of dicts'))
    expect(await rows(id)).toEqual([])
  })
})

describe('datastore_upsert: update', () => {
  it('changes only the columns given', async () => {
    const id = await keyed([
      { code: 'a', n: 1, note: 'first' },
      { code: 'b', n: 2, note: 'second' },
    ])
    await t.ok(
      'datastore_upsert',
      {
        resource_id: id,
        method: 'update',
        records: [
          { code: 'a', n: 10 },
          { code: 'b', note: null },
        ],
      },
      admin,
    )
    expect(await rows(id)).toEqual([
      { _id: 1, code: 'a', n: 10, note: 'first' },
      { _id: 2, code: 'b', n: 2, note: null },
    ])
  })

  it('reports a key that matches no row, and writes nothing', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    const res = await upsert({
      resource_id: id,
      method: 'update',
      records: [
        { code: 'a', n: 5 },
        { code: '1', n: 2 },
      ],
    })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(fail('key', `key "['1']" not found`))
    expect((await rows(id))[0].n).toBe(1)
  })

  it('quotes key values as CKAN does, numbers bare', async () => {
    const ds = await t.make.dataset(admin)
    const { resource_id: id } = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: [
          { id: 'k', type: 'int' },
          { id: 's', type: 'text' },
        ],
        primary_key: ['k', 's'],
      },
      admin,
    )
    const res = await upsert({ resource_id: id, method: 'update', records: [{ k: 7, s: "it's" }] })
    expect(res.body.error).toEqual(fail('key', `key "[7, "it's"]" not found`))
  })

  it('needs a unique key on the table', async () => {
    const ds = await t.make.dataset(admin)
    const { resource_id: id } = await t.ok(
      'datastore_create',
      { resource: { package_id: ds.id }, records: [{ a: 1 }] },
      admin,
    )
    for (const method of ['update', 'upsert']) {
      const res = await upsert({ resource_id: id, method, records: [{ a: 1 }] })
      expect(res.status).toBe(409)
      expect(res.body.error).toEqual(fail('table', 'table does not have a unique key defined'))
    }
  })

  it('needs every key column in every record', async () => {
    const ds = await t.make.dataset(admin)
    const { resource_id: id } = await t.ok(
      'datastore_create',
      {
        resource: { package_id: ds.id },
        fields: [
          { id: 'k1', type: 'text' },
          { id: 'k2', type: 'text' },
          { id: 'v', type: 'text' },
        ],
        primary_key: 'k1,k2',
        records: [{ k1: 'a', k2: 'b' }],
      },
      admin,
    )
    for (const method of ['update', 'upsert']) {
      const res = await upsert({
        resource_id: id,
        method,
        records: [{ k1: 'a', k2: 'b', v: 'x' }, { v: 'y' }],
      })
      expect(res.body.error).toEqual(fail('key', 'fields "k1, k2" are missing but needed as key'))
    }
    expect((await rows(id))[0].v).toBeNull()
  })

  it('refuses keys that are not columns', async () => {
    const id = await keyed([{ code: 'a' }])
    for (const method of ['update', 'upsert']) {
      const res = await upsert({
        resource_id: id,
        method,
        records: [{ code: 'a', bogus: 1, other: 2 }],
      })
      expect(res.body.error).toEqual(fail('fields', 'fields "bogus, other" do not exist'))
    }
  })

  it('reports an invalid value with its row', async () => {
    const id = await keyed([
      { code: 'a', n: 1 },
      { code: 'b', n: 2 },
    ])
    for (const method of ['update', 'upsert']) {
      const res = await upsert({
        resource_id: id,
        method,
        records: [
          { code: 'a', n: 3 },
          { code: 'b', n: '4.x' },
        ],
      })
      expect(res.status).toBe(409)
      expect(res.body.error).toEqual({
        __type: 'Validation Error',
        records: ['invalid input syntax for type integer: "4.x"'],
        _records_row: 1,
        records_row: 1,
      })
    }
    expect((await rows(id)).map((r: { n: number }) => r.n)).toEqual([1, 2])
  })
})

describe('datastore_upsert: upsert', () => {
  it('updates rows with a known key and inserts the others', async () => {
    const id = await keyed([{ code: 'a', n: 1, note: 'kept' }])
    const res = await upsert({
      resource_id: id,
      records: [
        { code: 'a', n: 2 },
        { code: 'b', n: 3 },
      ],
    })
    expect(res.body.result).toEqual({
      resource_id: id,
      records: [
        { code: 'a', n: 2 },
        { code: 'b', n: 3 },
      ],
    })
    expect(await rows(id)).toEqual([
      { _id: 1, code: 'a', n: 2, note: 'kept' },
      { _id: 2, code: 'b', n: 3, note: null },
    ])
  })

  it('matches keys by value whatever their spelling', async () => {
    const ds = await t.make.dataset(admin)
    const fields = [
      { id: 'num', type: 'numeric' },
      { id: 'at', type: 'timestamp' },
      { id: 'v', type: 'text' },
    ]
    const first = { num: '1.50', at: '2020-01-02', v: 'old' }
    const params = {
      resource: { package_id: ds.id },
      fields,
      primary_key: 'num,at',
      records: [first],
    }
    const { resource_id: id } = await t.ok('datastore_create', params, admin)
    const records = [{ num: 1.5, at: '2020-01-02T00:00:00', v: 'new' }]
    await t.ok('datastore_upsert', { resource_id: id, records }, admin)
    expect(await rows(id)).toEqual([{ _id: 1, num: 1.5, at: '2020-01-02T00:00:00', v: 'new' }])
  })

  it('inserts whenever the key is null', async () => {
    const id = await keyed()
    await t.ok(
      'datastore_upsert',
      {
        resource_id: id,
        records: [
          { code: null, n: 1 },
          { code: null, n: 2 },
        ],
      },
      admin,
    )
    await t.ok('datastore_upsert', { resource_id: id, records: [{ code: null, n: 3 }] }, admin)
    expect((await rows(id)).map((r: { n: number }) => r.n)).toEqual([1, 2, 3])
  })

  it('lets a later record of the same key update an earlier one', async () => {
    const id = await keyed()
    await t.ok(
      'datastore_upsert',
      {
        resource_id: id,
        records: [
          { code: 'x', n: 1, note: 'one' },
          { code: 'y', n: 5 },
          { code: 'x', n: 2 },
        ],
      },
      admin,
    )
    expect(await rows(id)).toEqual([
      { _id: 1, code: 'x', n: 2, note: 'one' },
      { _id: 2, code: 'y', n: 5, note: null },
    ])
  })

  it('runs trigger functions on inserted and updated rows, in order', async () => {
    await t.ok(
      'datastore_function_create',
      {
        name: 'upsert_test_shout',
        rettype: 'trigger',
        definition: `BEGIN
        NEW.note := upper(NEW.note);
        IF NEW.n < 0 THEN RAISE EXCEPTION 'negative n: %', NEW.n; END IF;
        RETURN NEW;
      END;`,
      },
      admin,
    )
    const id = await keyed([{ code: 'a', n: 1, note: 'one' }], {
      triggers: [{ function: 'upsert_test_shout' }],
    })
    await t.ok(
      'datastore_upsert',
      {
        resource_id: id,
        records: [
          { code: 'b', note: 'two' },
          { code: 'b', n: 5 },
          { code: 'a', note: 'uno' },
        ],
      },
      admin,
    )
    expect(await rows(id)).toEqual([
      { _id: 1, code: 'a', n: 1, note: 'UNO' },
      { _id: 2, code: 'b', n: 5, note: 'TWO' },
    ])
    const refused = await upsert({
      resource_id: id,
      records: [
        { code: 'c', n: 1 },
        { code: 'a', n: -1 },
      ],
    })
    expect(refused.body.error).toEqual({
      ...fail('records', 'negative n: -1'),
      _records_row: 1,
      records_row: 1,
    })
    expect(await rows(id)).toHaveLength(2)
    expect(await ids(id, { q: 'uno' })).toEqual([1])
  })

  it('writes nothing when a late record is bad', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    const res = await upsert({
      resource_id: id,
      records: [
        { code: 'a', n: 9 },
        { code: 'new', n: 2 },
        { code: 'z', unknown: 1 },
      ],
    })
    expect(res.body.error).toEqual(fail('fields', 'fields "unknown" do not exist'))
    expect(await rows(id)).toEqual([{ _id: 1, code: 'a', n: 1, note: null }])
  })

  it('keeps full-text search in step with updates', async () => {
    const id = await keyed([
      { code: 'a', note: 'original wording' },
      { code: 'b', note: 'other' },
    ])
    expect(await ids(id, { q: 'original' })).toEqual([1])
    await t.ok(
      'datastore_upsert',
      { resource_id: id, records: [{ code: 'a', note: 'replacement text' }] },
      admin,
    )
    expect(await ids(id, { q: 'original' })).toEqual([])
    expect(await ids(id, { q: 'replacement' })).toEqual([1])
    await t.ok(
      'datastore_upsert',
      { resource_id: id, method: 'update', records: [{ code: 'b', note: 'zeppelin' }] },
      admin,
    )
    expect(await ids(id, { q: 'other' })).toEqual([])
    expect(await ids(id, { q: 'zeppelin' })).toEqual([2])
    expect(await ids(id, { q: { note: 'zeppelin' } })).toEqual([2])
  })

  it('does nothing for missing or empty records', async () => {
    const id = await keyed([{ code: 'a' }])
    expect((await upsert({ resource_id: id })).body.result).toEqual({ resource_id: id })
    expect((await upsert({ resource_id: id, records: [] })).body.result).toEqual({
      resource_id: id,
      records: [],
    })
    expect(await rows(id)).toHaveLength(1)
  })
})

describe('datastore_upsert: dry_run', () => {
  it('checks the records and writes nothing', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    for (const method of ['update', 'upsert']) {
      const res = await upsert({
        resource_id: id,
        method,
        dry_run: 'true',
        records: [{ code: 'a', n: 2 }],
      })
      expect(res.body.result).toEqual({
        resource_id: id,
        method,
        dry_run: true,
        records: [{ code: 'a', n: 2 }],
      })
    }
    const insert = await upsert({
      resource_id: id,
      method: 'insert',
      dry_run: true,
      records: [{ code: 'b', n: 2 }],
    })
    expect(insert.status).toBe(200)
    expect(await rows(id)).toEqual([{ _id: 1, code: 'a', n: 1, note: null }])
    // the next real insert gets the next _id: the dry run spent none
    await t.ok(
      'datastore_upsert',
      { resource_id: id, method: 'insert', records: [{ code: 'c' }] },
      admin,
    )
    expect((await rows(id)).map((r: { _id: number }) => r._id)).toEqual([1, 2])
  })

  it('reports the errors a real write would', async () => {
    const id = await keyed([{ code: 'a', n: 1 }])
    const bad = await upsert({
      resource_id: id,
      dry_run: true,
      method: 'update',
      records: [{ code: 'zz' }],
    })
    expect(bad.body.error).toEqual(fail('key', `key "['zz']" not found`))
    const clash = await upsert({
      resource_id: id,
      dry_run: true,
      method: 'insert',
      records: [{ code: 'a' }],
    })
    expect(clash.body.error).toEqual(
      fail('records', `duplicate key value violates unique constraint "_pk_${id}"`),
    )
    const value = await upsert({
      resource_id: id,
      dry_run: true,
      method: 'insert',
      records: [{ n: 'x' }],
    })
    expect(value.body.error.message).toBe(
      'The data was invalid: invalid input syntax for type integer: "x"',
    )
    expect(await rows(id)).toHaveLength(1)
  })
})

describe('datastore_upsert: type errors of update and upsert', () => {
  // ckan 2.9: test_upsert.py TestDatastoreUpsert.test_dry_run_type_error
  it('names the type and value under records, as PostgreSQL words it', async () => {
    const ds = await t.make.dataset(admin)
    const made = await t.ok(
      'datastore_create',
      { resource: { package_id: ds.id }, fields: [{ id: 'spam', type: 'numeric' }], primary_key: 'spam' },
      admin,
    )
    for (const method of ['upsert', 'update']) {
      const res = await upsert({
        resource_id: made.resource_id,
        method,
        records: [{ spam: 'SPAM' }, { spam: 'EGGS' }],
        dry_run: true,
      })
      expect(res.status, method).toBe(409)
      expect(res.body.error.records, method).toEqual([
        'invalid input syntax for type numeric: "SPAM"',
      ])
    }
  })
})

describe('datastore_upsert: parameters and lookup', () => {
  it('requires resource_id and a known method', async () => {
    const missing = await upsert({ records: [] })
    expect(missing.status).toBe(409)
    expect(missing.body.error).toEqual(fail('resource_id', 'Missing value'))
    const id = await keyed()
    const method = await upsert({ resource_id: id, method: 'merge', records: [] })
    expect(method.body.error).toEqual(
      fail('method', "Value must be one of ['upsert', 'insert', 'update']"),
    )
  })

  it('accepts id for resource_id', async () => {
    const id = await keyed()
    const res = await upsert({ id, method: 'insert', records: [{ code: 'q' }] })
    expect(res.body.result).toEqual({ resource_id: id, method: 'insert', records: [{ code: 'q' }] })
  })

  it('answers 404 for a resource without a table, an alias and an unknown id', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const bare = ds.resources[0].id
    const noTable = await upsert({ resource_id: bare, force: true, records: [{ a: 1 }] })
    expect(noTable.status).toBe(404)
    expect(noTable.body.error).toEqual({
      __type: 'Not Found Error',
      message: `Not found: Resource "${bare}" was not found.`,
    })

    await keyed([], { aliases: 'upsert-alias' })
    const alias = await upsert({
      resource_id: 'upsert-alias',
      force: true,
      records: [{ code: 'a' }],
    })
    expect(alias.status).toBe(404)
    expect(alias.body.error.message).toBe('Not found: Resource "upsert-alias" was not found.')

    const unknown = await upsert({ resource_id: 'no-such-resource', records: [{ code: 'a' }] })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
  })

  it('needs force for a read-only resource', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const id = ds.resources[0].id
    await t.ok(
      'datastore_create',
      { resource_id: id, force: true, fields: FIELDS, primary_key: 'code' },
      admin,
    )
    const res = await upsert({ resource_id: id, records: [{ code: 'a' }] })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(
      fail(
        'read-only',
        'Cannot edit read-only resource. Either pass"force=True" or change url-type to "datastore"',
      ),
    )
    const forced = await upsert({ resource_id: id, force: true, records: [{ code: 'a' }] })
    expect(forced.body.result).toEqual({ resource_id: id, records: [{ code: 'a' }] })
    expect(await rows(id)).toHaveLength(1)
  })
})

describe('datastore_upsert: authorization', () => {
  let editor: Caller & { name: string }
  let outsider: Caller & { name: string }
  let id: string

  beforeAll(async () => {
    editor = await t.make.user()
    outsider = await t.make.user()
    const org = await t.make.organization(admin)
    await t.ok(
      'organization_member_create',
      { id: org.id, username: editor.name, role: 'editor' },
      admin,
    )
    const ds = await t.make.dataset(admin, { owner_org: org.id, private: true })
    id = (
      await t.ok(
        'datastore_create',
        { resource: { package_id: ds.id }, fields: FIELDS, primary_key: 'code' },
        admin,
      )
    ).resource_id
  })

  it('refuses an anonymous caller', async () => {
    const res = await upsert({ resource_id: id, records: [{ code: 'a' }] }, null)
    expect(res.status).toBe(403)
    expect(res.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Action datastore_upsert requires an authenticated user',
    })
  })

  it('refuses a user who may not edit the dataset', async () => {
    const res = await upsert({ resource_id: id, records: [{ code: 'a' }] }, outsider)
    expect(res.status).toBe(403)
    expect(res.body.error.message).toBe(
      `Access denied: User ${outsider.name} not authorized to edit resource ${id}`,
    )
    expect(await rows(id)).toEqual([])
  })

  it('lets an organization editor write', async () => {
    const res = await upsert({ resource_id: id, records: [{ code: 'a', n: 1 }] }, editor)
    expect(res.status).toBe(200)
    expect(await rows(id)).toEqual([{ _id: 1, code: 'a', n: 1, note: null }])
  })
})
