// The DataStore through the portable adapter (src/datastore/client-store.ts: what Workers run, here
// on a file through @libsql/client): every action's path through client batches, LIMIT/OFFSET
// dump pages and EXPLAIN table checks, with the same answers as Node's synchronous adapter.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller
let member: Caller
let outsider: Caller
let orgId: string

const fail = (field: string, ...msgs: string[]) => ({ __type: 'Validation Error', [field]: msgs })
const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
  { id: 'note', type: 'text' },
]

/** A table on a new resource; returns its id. */
async function table(params: Record<string, unknown>, dataset: Record<string, unknown> = {}) {
  const ds = await t.make.dataset(admin, dataset)
  const made = await t.ok('datastore_create', { resource: { package_id: ds.id }, ...params }, admin)
  return made.resource_id as string
}

const search = (params: Record<string, unknown>, as: Caller | null = admin) =>
  t.ok('datastore_search', params, as)
/** datastore_upsert with a method: the call's status and body. */
const write = (id: string, method: string, records: object[]) =>
  t.call('datastore_upsert', { resource_id: id, method, records }, admin)
const codes = async (id: string) =>
  (await search({ resource_id: id, sort: '_id' })).records.map((r: { code: string }) => r.code)

beforeAll(async () => {
  t = await setup({}, { portableDatastore: true })
  admin = await t.make.sysadmin()
  member = await t.make.user()
  outsider = await t.make.user()
  const org = await t.make.organization(admin, {
    users: [{ name: (member as unknown as { name: string }).name, capacity: 'member' }],
  })
  orgId = org.id
})

describe('portable adapter: writes', () => {
  it('is the portable adapter (no Node SQL runner behind it)', () => {
    expect(t.deps.datastore).toBeDefined()
    expect(t.deps.datastore!.sql).toBeUndefined()
  })

  it('creates a keyed table and reports it as datastore_info does', async () => {
    const id = await table({ fields: FIELDS, primary_key: 'code', records: [{ code: 'a', n: 1 }] })
    const info = await t.ok('datastore_info', { id }, admin)
    expect(info.meta).toMatchObject({ count: 1 })
    expect(info.fields.map((f: { id: string; type: string }) => [f.id, f.type])).toEqual([
      ['_id', 'int'],
      ['code', 'text'],
      ['n', 'int4'],
      ['note', 'text'],
    ])
    const res = await t.ok('resource_show', { id }, admin)
    expect(res.datastore_active).toBe(true)
  })

  it('upserts, inserts and updates by key', async () => {
    const id = await table({ fields: FIELDS, primary_key: 'code', records: [{ code: 'a', n: 1 }] })
    for (const [method, records] of [
      ['upsert', [{ code: 'a', n: 2 }, { code: 'b', n: 3 }]],
      ['insert', [{ code: 'c' }]],
      ['update', [{ code: 'c', note: 'x' }]],
    ] as const)
      expect((await write(id, method, [...records])).status).toBe(200)
    expect((await search({ resource_id: id, sort: '_id' })).records).toEqual([
      { _id: 1, code: 'a', n: 2, note: null },
      { _id: 2, code: 'b', n: 3, note: null },
      { _id: 3, code: 'c', n: null, note: 'x' },
    ])
  })

  it('refuses a duplicate key, a missing key and a bad value, writing nothing of the request', async () => {
    const id = await table({ fields: FIELDS, primary_key: 'code', records: [{ code: 'a', n: 1 }] })
    const dup = await write(id, 'insert', [{ code: 'b' }, { code: 'a' }])
    expect(dup.status).toBe(409)
    const unique = `duplicate key value violates unique constraint "_pk_${id}"`
    expect(dup.body.error).toEqual(fail('records', unique))
    const missing = await write(id, 'update', [{ code: 'zz' }])
    expect(missing.body.error).toEqual(fail('key', `key "['zz']" not found`))
    const bad = await write(id, 'insert', [{ code: 'c', n: 1 }, { code: 'd', n: 'x' }])
    expect(bad.status).toBe(409)
    expect(bad.body.error.message).toBe(
      'The data was invalid: invalid input syntax for type integer: "x"',
    )
    expect(await codes(id)).toEqual(['a'])
  })

  it('runs trigger functions on writes and keeps a rejected request out', async () => {
    await t.ok(
      'datastore_function_create',
      {
        name: 'portable_upper',
        rettype: 'trigger',
        definition:
          "BEGIN IF NEW.n < 0 THEN RAISE EXCEPTION 'negative n: %', NEW.n; END IF; " +
          'NEW.code := upper(NEW.code); RETURN NEW; END;',
      },
      admin,
    )
    const triggers = [{ function: 'portable_upper' }]
    const id = await table({ fields: FIELDS, triggers, records: [{ code: 'a', n: 1 }] })
    const refused = await write(id, 'insert', [{ code: 'b', n: 2 }, { code: 'c', n: -1 }])
    expect(refused.status).toBe(409)
    expect(JSON.stringify(refused.body.error)).toContain('negative n: -1')
    expect(await codes(id)).toEqual(['A'])
    expect((await write(id, 'insert', [{ code: 'b', n: 2 }])).status).toBe(200)
    expect(await t.ok('datastore_run_triggers', { resource_id: id }, admin)).toBe(2)
    expect(await codes(id)).toEqual(['A', 'B'])
  })

  it('deletes rows by filter, then the table', async () => {
    const records = [{ code: 'a', n: 1 }, { code: 'b', n: 2 }, { code: 'c', n: 1 }]
    const id = await table({ fields: FIELDS, records })
    await t.ok('datastore_delete', { resource_id: id, filters: { n: 1 } }, admin)
    expect(await codes(id)).toEqual(['b'])
    await t.ok('datastore_delete', { resource_id: id }, admin)
    const gone = await t.call('datastore_search', { resource_id: id }, admin)
    expect(gone.status).toBe(404)
    expect((await t.ok('resource_show', { id }, admin)).datastore_active).toBe(false)
  })
})

describe('portable adapter: reads', () => {
  let words: string
  let people: string
  let secret: string

  beforeAll(async () => {
    words = await table({
      fields: [{ id: 'w', type: 'text' }, { id: 'n', type: 'int' }],
      records: [
        { w: 'running dogs', n: 3 },
        { w: 'a cat sleeps', n: 1 },
        { w: 'the dog ran', n: 2 },
      ],
    })
    people = await table({
      fields: [{ id: 'n', type: 'int' }, { id: 'name', type: 'text' }],
      records: [{ n: 1, name: 'one' }, { n: 3, name: 'three' }],
    })
    secret = await table(
      { fields: [{ id: 'n', type: 'int' }], records: [{ n: 1 }] },
      { owner_org: orgId, private: true },
    )
  })

  it('searches with filters, q (stemmed), sort, paging and totals', async () => {
    const q = await search({ resource_id: words, q: 'dog', sort: 'n' })
    expect(q.records.map((r: { w: string }) => r.w)).toEqual(['the dog ran', 'running dogs'])
    expect(q.total).toBe(2)
    const paging = { sort: 'n desc', limit: 1, offset: 1, include_total: true }
    const page = await search({ resource_id: words, ...paging })
    expect(page.records).toEqual([{ _id: 3, w: 'the dog ran', n: 2 }])
    expect(page.total).toBe(3)
    const csv = { fields: 'w', sort: 'n', records_format: 'csv' }
    const f = await search({ resource_id: words, filters: { n: [1, 3] }, ...csv })
    expect(f.records).toBe('a cat sleeps\nrunning dogs\n')
  })

  it('joins two tables in datastore_search_sql, with the EXPLAIN table check', async () => {
    const sql = `SELECT p.name, w.w FROM "${people}" p JOIN "${words}" w ON w.n = p.n ORDER BY p.n`
    const r = await t.ok('datastore_search_sql', { sql }, admin)
    expect(r.records).toEqual([
      { name: 'one', w: 'a cat sleeps' },
      { name: 'three', w: 'running dogs' },
    ])
  })

  it('refuses private tables to outsiders and answers members', async () => {
    const sql = `SELECT w.w FROM "${words}" w JOIN "${secret}" s ON s.n = w.n`
    const refused = await t.call('datastore_search_sql', { sql }, outsider)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Not authorized to read resource.',
    })
    const answered = await t.ok('datastore_search_sql', { sql }, member)
    expect(answered.records).toEqual([{ w: 'a cat sleeps' }])
    const write = await t.call('datastore_search_sql', { sql: `DELETE FROM "${words}"` }, admin)
    expect(write.status).toBe(409)
    expect((await search({ resource_id: words })).total).toBe(3)
  })

  it('dumps a table larger than one page, every row once and in order', async () => {
    const n = 1234 // over two 500-row pages of LIMIT/OFFSET
    const id = await table({
      fields: [{ id: 'i', type: 'int' }],
      records: Array.from({ length: n }, (_, i) => ({ i: i + 1 })),
    })
    const csv = await t.get(`/datastore/dump/${id}`, admin)
    expect(csv.status).toBe(200)
    const lines = csv.text.split('\n')
    expect(lines[0]).toBe('_id,i\r')
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: n }, (_, i) => `${i + 1},${i + 1}`))
    const json = await t.get(`/datastore/dump/${id}?format=json&offset=600&limit=700`, admin)
    const parsed = JSON.parse(json.text) as { records: number[][] }
    expect(parsed.records.map((r) => r[1])).toEqual(Array.from({ length: 634 }, (_, i) => i + 601))
  })
})
