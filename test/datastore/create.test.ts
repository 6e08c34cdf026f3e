// datastore_create over the action API: types, guessing, names, injection, records, repeated calls,
// keys, indexes, aliases, triggers, the `resource` form, the read-only rule and authorization.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
})

type Params = Record<string, unknown>

/** A dataset with one read-only (url) resource; returns the resource id. */
async function urlResource(as: Caller = admin, pkg: Params = {}): Promise<string> {
  const ds = await t.make.dataset(as, { resources: [{ url: 'http://x/y.csv' }], ...pkg })
  return ds.resources[0].id as string
}

/** Field dicts from an id → type map, in key order. */
const cols = (spec: Record<string, string>) =>
  Object.entries(spec).map(([id, type]) => ({ id, type }))
const A_TEXT = cols({ a: 'text' })

const create = (params: Params, as: Caller | null = admin) =>
  t.call('datastore_create', { force: true, ...params }, as)
const createOk = (params: Params) => t.ok('datastore_create', { force: true, ...params }, admin)

/** datastore_create on a fresh resource; returns its id (fails the test on an error). */
async function table(params: Params): Promise<string> {
  const id = await urlResource()
  await createOk({ resource_id: id, ...params })
  return id
}

/** The 409 error of datastore_create on resource `id` (a fresh one by default). */
async function refused(params: Params, id?: string): Promise<unknown> {
  const res = await create({ resource_id: id ?? (await urlResource()), ...params })
  expect(res.status).toBe(409)
  return res.body.error
}

const search = (id: string, params: Params = {}) =>
  t.ok('datastore_search', { resource_id: id, ...params }, admin)
const records = async (id: string) => (await search(id, { sort: '_id' })).records
const ids = async (id: string, params: Params) =>
  (await search(id, params)).records.map((r: { _id: number }) => r._id)
/** `id:type` of every search field, space separated. */
const fieldTypes = async (id: string) =>
  (await search(id, { limit: 0 })).fields
    .map((f: { id: string; type: string }) => `${f.id}:${f.type}`)
    .join(' ')
const hasNoTable = async (id: string) =>
  expect((await t.call('datastore_search', { resource_id: id }, admin)).status).toBe(404)

/** Names of every table and view in the DataStore database. */
async function dsObjects(): Promise<string[]> {
  const { rows } = await t.deps.datastore!.query(
    "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name",
  )
  return rows.map((r) => String(r[0]))
}

const fail = (field: string, ...msgs: string[]) => ({ __type: 'Validation Error', [field]: msgs })
const dupKey = (id: string) =>
  fail('records', `duplicate key value violates unique constraint "_pk_${id}"`)
const READ_ONLY =
  'Cannot edit read-only resource. Either pass"force=True" or change url-type to "datastore"'

describe('datastore_create: fields and types', () => {
  it('reports PostgreSQL type names and echoes the types as given', async () => {
    const id = await urlResource()
    const fields = cols({
      a: 'int',
      b: 'float',
      c: 'text[]',
      d: 'json',
      e: 'timestamp',
      f: 'numeric',
      g: 'boolean',
      h: 'date',
      i: 'bigint',
      j: 'double precision',
      k: 'nested',
      l: 'varchar',
      m: '_int4',
      n: 'text',
    })
    const res = await create({ resource_id: id, fields })
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual({ resource_id: id, method: 'insert', fields })
    expect(await fieldTypes(id)).toBe(
      '_id:int a:int4 b:float8 c:_text d:json e:timestamp f:numeric g:bool h:date i:int8 ' +
        'j:float8 k:json l:varchar m:_int4 n:text',
    )
  })

  it('stores and returns values by column type', async () => {
    const id = await table({
      fields: cols({
        n: 'int',
        x: 'float',
        tags: 'text[]',
        doc: 'json',
        at: 'timestamp',
        ok: 'bool',
      }),
      records: [
        { n: '12', x: 1.5, tags: ['a'], doc: { k: [1] }, at: '2020-01-02 03:04:05', ok: 'yes' },
        { n: 3 },
      ],
    })
    expect(await records(id)).toEqual([
      { _id: 1, n: 12, x: 1.5, tags: ['a'], doc: { k: [1] }, at: '2020-01-02T03:04:05', ok: true },
      { _id: 2, n: 3, x: null, tags: null, doc: null, at: null, ok: null },
    ])
  })

  it('returns the request without records, force or id, plus resource_id and method', async () => {
    const id = await urlResource()
    const alias = 'echo-alias-' + id.slice(0, 8)
    const sent = { primary_key: 'a', indexes: 'a', aliases: [alias], calculate_record_count: true }
    const res = await createOk({ id, records: [{ a: 1 }], ...sent })
    expect(res).toEqual({ resource_id: id, method: 'insert', ...sent })
  })

  it('refuses an unknown type, or one that only looks like one', async () => {
    const id = await urlResource()
    expect(await refused({ fields: cols({ a: 'widget' }) }, id)).toEqual(
      fail('fields', '"widget" is not a valid field type'),
    )
    expect(await refused({ fields: cols({ a: 'int); DROP TABLE x; --' }) }, id)).toEqual(
      fail('fields', '"int); DROP TABLE x; --" is not a valid field type'),
    )
    await hasNoTable(id)
  })

  it('requires an id for every field', async () => {
    expect(await refused({ fields: [...A_TEXT, { type: 'text' }] })).toEqual({
      __type: 'Validation Error',
      fields: [{}, { id: ['Missing value'] }],
    })
  })
})

describe('datastore_create: type guessing', () => {
  it('guesses each column type from the first record', async () => {
    const id = await urlResource()
    const first = {
      int: 1,
      float: 1.5,
      word: 'abc',
      intText: ' 12 ',
      floatText: '1e5',
      day: '2020-01-31',
      stamp: '2020-01-31T10:11:12',
      obj: { a: 1 },
      arr: [1, 2],
      flag: true,
      nothing: null,
      empty: '',
    }
    await createOk({ resource_id: id, records: [first] })
    expect(await fieldTypes(id)).toBe(
      '_id:int int:int4 float:float8 word:text intText:int4 floatText:numeric day:timestamp ' +
        'stamp:timestamp obj:json arr:json flag:bool nothing:text empty:text',
    )
    expect((await records(id))[0]).toMatchObject({ intText: 12, floatText: 100000, flag: true })
  })

  it('fills guessed types into the echoed fields and appends other keys in record order', async () => {
    const id = await urlResource()
    const fields = [{ id: 'z', type: 'text' }, { id: 'n' }]
    const res = await createOk({
      resource_id: id,
      fields,
      records: [{ b: 'x', n: 2, z: 'q', a: 1.5 }],
    })
    expect(res.fields).toEqual(cols({ z: 'text', n: 'int' }))
    expect(await fieldTypes(id)).toBe('_id:int z:text n:int4 b:text a:float8')
  })

  it('cannot guess a field missing from the first record', async () => {
    const id = await urlResource()
    for (const params of [
      { fields: [{ id: 'a' }] },
      { fields: [{ id: 'a' }], records: [{ b: 1 }, { a: 2 }] },
      { fields: [{ id: 'a', type: '' }], records: [{ b: 1 }] },
    ])
      expect(await refused(params, id)).toEqual(fail('fields', '"a" type not guessable'))
    await hasNoTable(id)
  })
})

describe('datastore_create: field names', () => {
  const bad = ['_x', 'a"b', ' lead', 'trail ', 'tab\there', 'line\nbreak', 'nul\u0000', 'del\u007f']
  it.each(bad)('refuses the field name %j', async (name) => {
    expect(await refused({ fields: [{ id: name, type: 'text' }] })).toEqual(
      fail('fields', `"${name}" is not a valid field name`),
    )
  })

  it('refuses a bad name that arrives as a key of the first record', async () => {
    expect(await refused({ records: [{ ok: 1, _hidden: 2 }] })).toEqual(
      fail('fields', '"_hidden" is not a valid field name'),
    )
  })

  it('accepts 63 characters and refuses 64', async () => {
    const id = await urlResource()
    const long = 'x'.repeat(64)
    expect(await refused({ fields: [{ id: long, type: 'text' }] }, id)).toEqual(
      fail('fields', `Column heading "${long}" exceeds limit of 63 characters.`),
    )
    const ok = await create({ resource_id: id, fields: [{ id: long.slice(1), type: 'text' }] })
    expect(ok.status).toBe(200)
  })

  it('refuses duplicate names, ignoring case', async () => {
    for (const params of [
      { fields: [...cols({ Name: 'text' }), ...cols({ name: 'text' })] },
      { fields: [...cols({ a: 'text' }), ...cols({ a: 'int' })] },
      { fields: cols({ Name: 'text' }), records: [{ Name: 'x', NAME: 'y' }] },
    ])
      expect(await refused(params)).toEqual(
        fail('field', 'Duplicate column names are not supported'),
      )
  })

  it('refuses a new field that differs from an existing one only in case', async () => {
    const id = await table({ fields: cols({ name: 'text' }) })
    expect(
      await refused({ fields: [...cols({ name: 'text' }), ...cols({ NAME: 'text' })] }, id),
    ).toEqual(fail('field', 'Duplicate column names are not supported'))
  })

  it('keeps unusual names verbatim', async () => {
    const names = ['with space', "o'brien", 'semi;colon', 'Ünïcødé', 'select', 'per%cent', 'a--b']
    names.push('x); DROP TABLE package; --')
    const rec = Object.fromEntries(names.map((n, i) => [n, `v${i}`]))
    const id = await table({ fields: names.map((id) => ({ id, type: 'text' })), records: [rec] })
    const res = await search(id)
    expect(res.fields.map((f: { id: string }) => f.id)).toEqual(['_id', ...names])
    expect(res.records).toEqual([{ _id: 1, ...rec }])
    expect(await ids(id, { q: 'v7' })).toEqual([1])
    expect(await ids(id, { filters: { "o'brien": 'v1' } })).toEqual([1])
  })
})

describe('datastore_create: SQL injection through names', () => {
  let victim: string
  let victimPkg: string
  beforeAll(async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/v.csv' }] })
    victimPkg = ds.name
    victim = ds.resources[0].id
    await createOk({ resource_id: victim, records: [{ k: 'safe' }] })
  })

  async function intact() {
    expect((await records(victim)).map((r: { k: string }) => r.k)).toEqual(['safe'])
    expect((await t.ok('package_show', { id: victimPkg }, admin)).name).toBe(victimPkg)
    const objects = await dsObjects()
    expect(objects).toEqual(
      expect.arrayContaining(['_ds_table', '_ds_alias', '_ds_function', victim]),
    )
  }

  const attacks = [`x"); DROP TABLE "_ds_table"; --`, `k" TEXT); DROP TABLE package; --`, `"`]

  it.each(attacks)('refuses %j as a field name', async (name) => {
    expect(await refused({ fields: [{ id: name, type: 'text' }] })).toEqual(
      fail('fields', `"${name}" is not a valid field name`),
    )
    await intact()
  })

  it.each(attacks)('refuses %j as an alias', async (name) => {
    expect(await refused({ fields: A_TEXT, aliases: [name] })).toEqual(
      fail('alias', `"${name}" is not a valid alias name`),
    )
    await intact()
  })

  it.each(attacks)('refuses %j as an index or key column', async (name) => {
    const error = fail('index', `The field "${name}" is not a valid column name.`)
    expect(await refused({ fields: A_TEXT, indexes: [name] })).toEqual(error)
    expect(await refused({ fields: A_TEXT, primary_key: [name] })).toEqual(error)
    await intact()
  })

  it('stores a hostile name without a quote as a plain column, alias and key', async () => {
    const name = `x); DROP TABLE ${victim}; --`
    const alias = `v'); DELETE FROM _ds_table; --`
    const id = await table({
      fields: [{ id: name, type: 'text' }],
      records: [{ [name]: 'hello' }],
      primary_key: name,
      indexes: [name],
      aliases: alias,
    })
    expect((await search(alias)).records).toEqual([{ _id: 1, [name]: 'hello' }])
    expect(await ids(id, { filters: { [name]: 'hello' } })).toEqual([1])
    expect(await refused({ records: [{ [name]: 'hello' }] }, id)).toEqual(dupKey(id))
    await intact()
  })

  it('refuses a hostile trigger function name as unknown', async () => {
    const fn = `f(); DROP TABLE "_ds_table"; --`
    expect(await refused({ fields: A_TEXT, triggers: [{ function: fn }] })).toEqual(
      fail('triggers', `function ${fn}() does not exist`),
    )
    await intact()
  })
})

describe('datastore_create: records', () => {
  it('refuses records that are not a list', async () => {
    const id = await urlResource()
    for (const recs of [{ a: 1 }, 'a,b', 5])
      expect(await refused({ records: recs }, id)).toEqual(
        fail('records', 'Records has to be a list of dicts'),
      )
  })

  it('refuses a first row that is not an object', async () => {
    const id = await urlResource()
    for (const first of [[1, 2], 'row', null, 3])
      expect(await refused({ records: [first, { a: 1 }] }, id)).toEqual(
        fail('records', 'The first row is not a json object'),
      )
  })

  it('refuses a later row that is not an object, counting from zero', async () => {
    const id = await urlResource()
    expect(await refused({ records: [{ a: 1 }, { a: 2 }, [3]] }, id)).toEqual(
      fail('records', 'row "2" is not a json object'),
    )
    await hasNoTable(id)
  })

  it('refuses keys missing from the columns, counting rows from one', async () => {
    expect(await refused({ records: [{ a: 1 }, { a: 2, b: 3, c: 4 }] })).toEqual(
      fail('records', 'row "2" has extra keys "b, c"'),
    )
    expect(await refused({ fields: cols({ a: 'int' }), records: [{ a: 1 }, { _id: 9 }] })).toEqual(
      fail('records', 'row "2" has extra keys "_id"'),
    )
  })

  it('writes nothing when a value is invalid', async () => {
    const id = await table({
      fields: cols({ n: 'int', s: 'text' }),
      records: [{ n: 1, s: 'kept' }],
    })
    expect(await refused({ records: [{ n: 2 }, { n: 3 }, { n: 'abc' }] }, id)).toEqual({
      __type: 'Validation Error',
      message:
        'The data was invalid: invalid input syntax for type integer: "abc"',
      _records_row: 2,
      records_row: 2,
    })
    const obj = (await refused({ records: [{ s: { obj: 1 } }] }, id)) as { message: string }
    expect(obj.message).toMatch(/^The data was invalid: /)
    expect(await records(id)).toEqual([{ _id: 1, n: 1, s: 'kept' }])
  })

  it('creates no table when the first call has an invalid value', async () => {
    const id = await urlResource()
    expect(await refused({ fields: cols({ x: 'numeric' }), records: [{ x: 'ten' }] }, id)).toEqual({
      __type: 'Validation Error',
      message:
        'The data was invalid: invalid input syntax for type numeric: "ten"',
      _records_row: 0,
      records_row: 0,
    })
    await hasNoTable(id)
    expect((await t.ok('resource_show', { id }, admin)).datastore_active).toBe(false)
  })
})

describe('datastore_create: called again', () => {
  it('appends records and adds fields that search and full text see', async () => {
    const id = await table({ fields: A_TEXT, records: [{ a: 'apple' }] })
    const fields = [{ id: 'a' }, { id: 'b', type: 'int' }]
    await createOk({ resource_id: id, fields, records: [{ a: 'banana', b: 2 }] })
    await createOk({ resource_id: id, records: [{ a: 'cherry', c: 'zebra' }] })
    expect(await records(id)).toEqual([
      { _id: 1, a: 'apple', b: null, c: null },
      { _id: 2, a: 'banana', b: 2, c: null },
      { _id: 3, a: 'cherry', b: null, c: 'zebra' },
    ])
    expect(await ids(id, { q: 'zebra' })).toEqual([3])
    expect(await ids(id, { q: 'apple' })).toEqual([1])
    expect(await ids(id, { filters: { b: 2 } })).toEqual([2])
    expect(await ids(id, { q: { c: 'zebra' } })).toEqual([3])
  })

  it('ignores types given again for existing columns', async () => {
    const id = await table({ fields: cols({ a: 'int' }) })
    await createOk({ resource_id: id, fields: cols({ a: 'text' }) })
    expect(await fieldTypes(id)).toBe('_id:int a:int4')
  })

  it('requires the existing fields first, in order', async () => {
    const id = await table({ fields: cols({ a: 'text', b: 'text' }) })
    expect(await refused({ fields: [{ id: 'b' }, { id: 'a' }] }, id)).toEqual(
      fail('fields', 'Supplied field "b" not present or in wrong order'),
    )
    expect(await refused({ fields: [{ id: 'a' }, { id: 'c', type: 'text' }] }, id)).toEqual(
      fail('fields', 'Supplied field "c" not present or in wrong order'),
    )
    // ckan 2.9: a shorter list that agrees so far leaves the other columns alone
    await createOk({ resource_id: id, fields: [{ id: 'a' }] })
    expect(await fieldTypes(id)).toBe('_id:int a:text b:text')
  })

  it('replaces or clears the data dictionary of a field', async () => {
    const id = await table({
      fields: [{ id: 'a', type: 'text', info: { label: 'A', notes: 'n' } }, ...cols({ b: 'int' })],
    })
    const info = async () =>
      (await t.ok('datastore_info', { id }, admin)).fields.map(
        (f: { info?: unknown }) => f.info ?? null,
      )
    expect(await info()).toEqual([null, { label: 'A', notes: 'n' }, null])
    const relabel = [
      { id: 'a', info: { label: 'New' } },
      { id: 'b', info: { x: 1 } },
    ]
    await createOk({ resource_id: id, fields: relabel })
    expect(await info()).toEqual([null, { label: 'New' }, { x: 1 }])
    await createOk({ resource_id: id, fields: [{ id: 'a' }, { id: 'b' }] })
    expect(await info()).toEqual([null, { label: 'New' }, { x: 1 }])
    await createOk({ resource_id: id, fields: [{ id: 'a', info: '' }, { id: 'b' }] })
    expect(await info()).toEqual([null, null, { x: 1 }])
  })
})

describe('datastore_create: primary key and indexes', () => {
  const updateA1 = (id: string) =>
    t.call(
      'datastore_upsert',
      { resource_id: id, force: true, method: 'update', records: [{ a: 1 }] },
      admin,
    )

  it('enforces, replaces and removes the unique key', async () => {
    const fields = cols({ a: 'int', b: 'text' })
    const id = await table({ fields, primary_key: 'a', records: [{ a: 1, b: 'x' }] })
    expect(await refused({ records: [{ a: 1, b: 'y' }] }, id)).toEqual(dupKey(id))
    // records go in under the old key, before the new one replaces it
    expect(await refused({ primary_key: ['b'], records: [{ a: 1, b: 'y' }] }, id)).toEqual(
      dupKey(id),
    )
    await createOk({ resource_id: id, primary_key: ['b'], records: [{ a: 2, b: 'y' }] })
    expect(await refused({ records: [{ a: 5, b: 'y' }] }, id)).toEqual(dupKey(id))

    await createOk({ resource_id: id, primary_key: '' })
    await createOk({ resource_id: id, records: [{ a: 5, b: 'y' }] })
    expect((await records(id)).map((r: { a: number; b: string }) => `${r.a}${r.b}`)).toEqual([
      '1x',
      '2y',
      '5y',
    ])
    expect((await updateA1(id)).body.error).toEqual(
      fail('table', 'table does not have a unique key defined'),
    )
  })

  it('refuses a key over duplicate rows and changes nothing', async () => {
    const id = await table({ fields: cols({ a: 'int' }), records: [{ a: 1 }, { a: 1 }] })
    expect(await refused({ primary_key: 'a', records: [{ a: 2 }] }, id)).toEqual({
      __type: 'Validation Error',
      constraints: ['Cannot insert records or create indexbecause of uniqueness constraint'],
      info: { orig: `UNIQUE constraint failed: ${id}.a`, pgcode: '23505' },
    })
    expect((await records(id)).map((r: { a: number }) => r.a)).toEqual([1, 1])
    expect((await updateA1(id)).body.error).toEqual(
      fail('table', 'table does not have a unique key defined'),
    )
  })

  it('refuses a new table whose own records break its key', async () => {
    const fresh = await urlResource()
    const error = await refused({ primary_key: 'a', records: [{ a: 1 }, { a: 1 }] }, fresh)
    expect(error).toMatchObject({ constraints: [expect.stringMatching(/^Cannot insert records/)] })
    await hasNoTable(fresh)
  })

  it('accepts a composite key', async () => {
    const id = await table({
      fields: cols({ a: 'int', b: 'int' }),
      primary_key: 'a, b',
      records: [
        { a: 1, b: 1 },
        { a: 1, b: 2 },
      ],
    })
    expect(await refused({ records: [{ a: 1, b: 2 }] }, id)).toEqual(dupKey(id))
  })

  it('creates and replaces indexes, refusing unknown columns', async () => {
    const id = await table({ fields: cols({ a: 'int', b: 'text' }), indexes: ['a', ['a', 'b']] })
    const indexNames = async () => {
      const { rows } = await t.deps.datastore!.query(
        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? " +
          "AND name LIKE '\\_idx%' ESCAPE '\\' ORDER BY name",
        [id],
      )
      return rows.map((r) => String(r[0]))
    }
    expect(await indexNames()).toEqual([`_idx_${id}_0`, `_idx_${id}_1`])
    await createOk({ resource_id: id, indexes: 'b' })
    expect(await indexNames()).toEqual([`_idx_${id}_0`])
    expect(await refused({ indexes: 'b,nope' }, id)).toEqual(
      fail('index', 'The field "nope" is not a valid column name.'),
    )
    expect(await indexNames()).toEqual([`_idx_${id}_0`])
    await createOk({ resource_id: id, indexes: [] })
    expect(await indexNames()).toEqual([])
  })
})

describe('datastore_create: aliases', () => {
  it.each(['_a', 'a%b', ' a', 'a ', 'a"b', '', 'sqlite_master'])(
    'refuses the alias %j',
    async (alias) => {
      expect(await refused({ fields: A_TEXT, aliases: [alias] })).toEqual(
        fail('alias', `"${alias}" is not a valid alias name`),
      )
    },
  )

  it('refuses an alias used by another table, or another table id', async () => {
    const first = await table({ fields: A_TEXT, aliases: 'taken-alias' })
    const id = await urlResource()
    for (const alias of ['taken-alias', 'TAKEN-alias', first])
      expect(await refused({ fields: A_TEXT, aliases: alias }, id)).toEqual(
        fail('alias', `The alias "${alias}" already exists.`),
      )
    await hasNoTable(id)
  })

  it('replaces the aliases: the old one stops working', async () => {
    const id = await table({
      fields: A_TEXT,
      records: [{ a: 'x' }],
      aliases: 'old-name, other-name',
    })
    expect((await search('old-name')).resource_id).toBe(id)
    await createOk({ resource_id: id, aliases: ['new-name', 'other-name'] })
    const gone = await t.call('datastore_search', { resource_id: 'old-name' }, admin)
    expect(gone.status).toBe(404)
    expect(gone.body.error).toEqual({
      __type: 'Not Found Error',
      message: 'Not found: Resource "old-name" was not found.',
    })
    expect((await search('new-name')).records).toEqual([{ _id: 1, a: 'x' }])
    expect((await search('other-name')).resource_id).toBe(id)
    const meta = await search('_table_metadata', { filters: { alias_of: id }, sort: 'name' })
    expect(meta.records.map((r: { name: string }) => r.name)).toEqual(['new-name', 'other-name'])
    // the freed name can be taken by another table
    await table({ fields: A_TEXT, aliases: 'old-name' })
  })

  it('keeps the aliases when they are not given', async () => {
    const id = await table({ fields: A_TEXT, aliases: 'kept-alias' })
    await createOk({ resource_id: id, records: [{ a: 'y' }] })
    expect((await search('kept-alias')).records).toHaveLength(1)
  })
})

describe('datastore_create: triggers', () => {
  it('refuses an unknown function and bad trigger options', async () => {
    const id = await urlResource()
    expect(await refused({ fields: A_TEXT, triggers: [{ function: 'no_such_fn' }] }, id)).toEqual(
      fail('triggers', 'function no_such_fn() does not exist'),
    )
    expect(await refused({ triggers: [{ function: 'f', when: 'after delete' }] }, id)).toEqual({
      __type: 'Validation Error',
      triggers: [{ when: ["Value must be one of ['before insert or update']"] }],
    })
    await hasNoTable(id)
  })

  it('runs a trigger on the records of the same call', async () => {
    const definition = 'BEGIN NEW.a := upper(NEW.a); RETURN NEW; END;'
    const fn = { name: 'create_test_upper', rettype: 'trigger', definition }
    await t.ok('datastore_function_create', fn, admin)
    const triggers = [{ function: 'create_test_upper' }]
    const id = await table({ fields: A_TEXT, triggers, records: [{ a: 'low' }] })
    expect(await records(id)).toEqual([{ _id: 1, a: 'LOW' }])
  })
})

describe('datastore_create: the resource parameter', () => {
  it('creates a datastore resource and its table', async () => {
    const ds = await t.make.dataset(admin)
    const resource = { package_id: ds.id, name: 'made here' }
    const res = await t.ok(
      'datastore_create',
      { resource, fields: A_TEXT, records: [{ a: 'x' }] },
      admin,
    )
    const rid = res.resource_id as string
    expect(res.resource).toMatchObject(resource)
    expect(res.method).toBe('insert')
    expect(await t.ok('resource_show', { id: rid }, admin)).toMatchObject({
      url_type: 'datastore',
      url: `http://test.ckan.net/datastore/dump/${rid}`,
      datastore_active: true,
      name: 'made here',
    })
    expect(await records(rid)).toEqual([{ _id: 1, a: 'x' }])
    // no force needed later: url_type is datastore
    const again = await t.call(
      'datastore_create',
      { resource_id: rid, records: [{ a: 'y' }] },
      admin,
    )
    expect(again.status).toBe(200)
  })

  it('refuses resource together with resource_id, and neither', async () => {
    const ds = await t.make.dataset(admin)
    const id = await urlResource()
    const both = await t.call(
      'datastore_create',
      { resource_id: id, resource: { package_id: ds.id } },
      admin,
    )
    expect(both.body.error).toEqual(fail('resource', 'resource cannot be used with resource_id'))
    const neither = await t.call('datastore_create', { fields: A_TEXT }, admin)
    expect(neither.body.error).toEqual(fail('resource_id', 'resource_id or resource required'))
  })

  it('creates a resource with a url and leaves its table to the loader', async () => {
    const ds = await t.make.dataset(admin)
    const resource = { package_id: ds.id, url: 'http://x/a.csv' }
    const res = await t.call('datastore_create', { resource }, admin)
    expect(res.status).toBe(200)
    const id = res.body.result.resource_id
    expect(res.body.result.resource).toMatchObject({ id, url: 'http://x/a.csv' })
    expect((await t.ok('xloader_status', { resource_id: id }, admin)).status).toBe('pending')
  })

  it('refuses an unknown resource_id', async () => {
    expect(await refused({}, 'no-such-resource')).toEqual(
      fail('resource_id', 'Not found: Resource'),
    )
  })
})

describe('datastore_create: read-only resources and datastore_active', () => {
  it('needs force for a resource whose url_type is not datastore', async () => {
    const id = await urlResource()
    const res = await t.call('datastore_create', { resource_id: id, fields: A_TEXT }, admin)
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(fail('read-only', READ_ONLY))
    const forced = await create({ resource_id: id, force: 'true', fields: A_TEXT })
    expect(forced.status).toBe(200)
    expect(forced.body.result.force).toBeUndefined()
  })

  it('sets datastore_active, seen by resource_show, package_show and package_search', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const id = ds.resources[0].id
    expect(ds.resources[0].datastore_active).toBe(false)
    await createOk({ resource_id: id, fields: A_TEXT })
    expect((await t.ok('resource_show', { id }, admin)).datastore_active).toBe(true)
    const shown = await t.ok('package_show', { id: ds.id }, admin)
    expect(shown.resources[0].datastore_active).toBe(true)
    const found = await t.ok('package_search', { fq: `name:${ds.name}` }, admin)
    expect(found.results[0].resources[0].datastore_active).toBe(true)
  })
})

describe('datastore_create: authorization', () => {
  let editor: Caller & { name: string }
  let outsider: Caller & { name: string }
  let orgId: string

  beforeAll(async () => {
    editor = await t.make.user()
    outsider = await t.make.user()
    const org = await t.make.organization(admin)
    orgId = org.id
    const member = { id: org.id, username: editor.name, role: 'editor' }
    await t.ok('organization_member_create', member, admin)
  })

  it('refuses an anonymous caller', async () => {
    const res = await create({ resource_id: await urlResource() }, null)
    expect(res.status).toBe(403)
    expect(res.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Action datastore_create requires an authenticated user',
    })
  })

  it('refuses a user without rights on a private organization dataset', async () => {
    const id = await urlResource(admin, { owner_org: orgId, private: true })
    const res = await create({ resource_id: id, fields: A_TEXT }, outsider)
    expect(res.status).toBe(403)
    expect(res.body.error).toEqual({
      __type: 'Authorization Error',
      message: `Access denied: User ${outsider.name} not authorized to edit resource ${id}`,
    })
    await hasNoTable(id)
    const ds = await t.make.dataset(admin, { owner_org: orgId })
    const viaPkg = await t.call('datastore_create', { resource: { package_id: ds.id } }, outsider)
    expect(viaPkg.status).toBe(403)
    expect(viaPkg.body.error.message).toBe(
      `Access denied: User ${outsider.name} not authorized to edit package ${ds.id}`,
    )
  })

  it('lets an organization editor create tables', async () => {
    const id = await urlResource(admin, { owner_org: orgId, private: true })
    expect((await create({ resource_id: id, records: [{ a: 1 }] }, editor)).status).toBe(200)
    const ds = await t.make.dataset(admin, { owner_org: orgId })
    const params = { resource: { package_id: ds.id }, records: [{ a: 1 }] }
    expect((await t.call('datastore_create', params, editor)).status).toBe(200)
  })

  it('asks non-sysadmins for a resource id before anything else', async () => {
    const res = await t.call('datastore_create', { fields: A_TEXT }, editor)
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual({
      __type: 'Validation Error',
      message: 'Missing id, can not get Resource object',
    })
  })
})
