// datastore_delete (rows by filters, or the whole table) and datastore_info over the action API,
// plus resource_delete dropping the table.
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

const fail = (field: string, ...msgs: string[]) => ({ __type: 'Validation Error', [field]: msgs })
const notFound = (message: string) => ({ __type: 'Not Found Error', message })

const FIELDS = [
  { id: 'code', type: 'text' },
  { id: 'n', type: 'int' },
]
const RECORDS = [
  { code: 'a', n: 1 },
  { code: 'b', n: 2 },
  { code: 'c', n: 2 },
  { code: 'd', n: 3 },
]

/** A url_type datastore resource with a table; returns the resource and dataset ids. */
async function table(pkg: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const ds = await t.make.dataset(admin, pkg)
  const res = await t.ok(
    'datastore_create',
    { resource: { package_id: ds.id }, fields: FIELDS, records: RECORDS, ...extra },
    admin,
  )
  return { id: res.resource_id as string, pkgId: ds.id as string }
}

const del = (params: Record<string, unknown>, as: Caller | null = admin) =>
  t.call('datastore_delete', params, as)

const codes = async (id: string) =>
  (await t.ok('datastore_search', { resource_id: id, sort: '_id' }, admin)).records.map(
    (r: { code: string }) => r.code,
  )

async function dsObjects(): Promise<string[]> {
  const { rows } = await t.deps.datastore!.query(
    "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')",
  )
  return rows.map((r) => String(r[0]))
}

const active = async (id: string) => (await t.ok('resource_show', { id }, admin)).datastore_active

describe('datastore_delete with filters', () => {
  it('deletes the rows equal to a value', async () => {
    const { id } = await table()
    const res = await del({ resource_id: id, filters: { code: 'b' } })
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual({ resource_id: id, filters: { code: 'b' } })
    expect(await codes(id)).toEqual(['a', 'c', 'd'])
  })

  it('deletes the rows equal to any value of a list, and ANDs the columns', async () => {
    const { id } = await table()
    await t.ok('datastore_delete', { resource_id: id, filters: { code: ['a', 'd', 'zz'] } }, admin)
    expect(await codes(id)).toEqual(['b', 'c'])
    await t.ok('datastore_delete', { resource_id: id, filters: { n: '2', code: 'c' } }, admin)
    expect(await codes(id)).toEqual(['b'])
    await t.ok('datastore_delete', { resource_id: id, filters: { _id: [2] } }, admin)
    expect(await codes(id)).toEqual([])
  })

  it('refuses an unknown column and deletes nothing', async () => {
    const { id } = await table()
    const res = await del({ resource_id: id, filters: { code: 'a', nope: 1 } })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(fail('filters', 'invalid value "nope"'))
    expect(await codes(id)).toHaveLength(4)
  })

  it('answers Invalid query for a value of the wrong type', async () => {
    const { id } = await table()
    const res = await del({ resource_id: id, filters: { n: 'many' } })
    expect(res.status).toBe(409)
    expect(res.body.error).toMatchObject({ __type: 'Validation Error', query: ['Invalid query'] })
    expect(res.body.error.info.orig).toEqual(['invalid input syntax for type integer: "many"'])
    expect(await codes(id)).toHaveLength(4)
  })

  it('deletes every row for {} and keeps the table, its aliases and the flag', async () => {
    const { id } = await table({}, { aliases: 'emptied-alias' })
    const res = await del({ resource_id: id, filters: {} })
    expect(res.body.result).toEqual({ resource_id: id, filters: {} })
    expect(await codes(id)).toEqual([])
    expect(
      (await t.ok('datastore_search', { resource_id: 'emptied-alias' }, admin)).records,
    ).toEqual([])
    expect(await active(id)).toBe(true)
    // _id values are never reused
    await t.ok(
      'datastore_upsert',
      { resource_id: id, method: 'insert', records: [{ code: 'e' }] },
      admin,
    )
    expect((await t.ok('datastore_search', { resource_id: id }, admin)).records[0]._id).toBe(5)
  })

  it('refuses filters that are not an object', async () => {
    const { id } = await table()
    for (const filters of ['code=a', ['a'], 5, true]) {
      const res = await del({ resource_id: id, filters })
      expect(res.status).toBe(409)
      expect(res.body.error).toEqual(fail('filters', 'filters must be either a dict or null.'))
    }
    expect(await codes(id)).toHaveLength(4)
  })
})

describe('datastore_delete without filters', () => {
  it('drops the table and its aliases and clears datastore_active', async () => {
    const { id, pkgId } = await table({}, { aliases: ['dropped-alias'] })
    expect(await active(id)).toBe(true)
    const res = await del({ resource_id: id })
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual({ resource_id: id })
    for (const name of [id, 'dropped-alias']) {
      const gone = await t.call('datastore_search', { resource_id: name }, admin)
      expect(gone.status).toBe(404)
      expect(gone.body.error).toEqual(notFound(`Not found: Resource "${name}" was not found.`))
    }
    expect(await active(id)).toBe(false)
    expect((await t.ok('package_show', { id: pkgId }, admin)).resources[0].datastore_active).toBe(
      false,
    )
    const objects = await dsObjects()
    expect(objects).not.toContain(id)
    expect(objects).not.toContain(`_fts_${id}`)
    expect(objects).not.toContain('dropped-alias')
    const meta = await t.ok(
      'datastore_search',
      { resource_id: '_table_metadata', filters: { name: [id, 'dropped-alias'] } },
      admin,
    )
    expect(meta.records).toEqual([])
  })

  it('treats null filters as none', async () => {
    const { id } = await table()
    expect((await del({ resource_id: id, filters: null })).status).toBe(200)
    expect((await t.call('datastore_search', { resource_id: id }, admin)).status).toBe(404)
  })

  it('lets the table be created again, with _id from 1 and the alias free', async () => {
    const { id } = await table({}, { aliases: 'reused-alias' })
    await t.ok('datastore_delete', { resource_id: id }, admin)
    await t.ok(
      'datastore_create',
      { resource_id: id, records: [{ other: 'x' }], aliases: 'reused-alias' },
      admin,
    )
    const res = await t.ok('datastore_search', { resource_id: 'reused-alias' }, admin)
    expect(res.records).toEqual([{ _id: 1, other: 'x' }])
    expect(await active(id)).toBe(true)
  })
})

describe('datastore_delete: lookup, read-only rule and authorization', () => {
  it('requires resource_id and accepts id', async () => {
    expect((await del({})).body.error).toEqual(fail('resource_id', 'Missing value'))
    const { id } = await table()
    expect((await del({ id, filters: { code: 'a' } })).body.result).toEqual({
      resource_id: id,
      filters: { code: 'a' },
    })
  })

  it('answers 404 for a resource without a table and for an unknown id', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const bare = ds.resources[0].id
    const res = await del({ resource_id: bare, force: true })
    expect(res.status).toBe(404)
    expect(res.body.error).toEqual(notFound(`Not found: Resource "${bare}" was not found.`))
    const unknown = await del({ resource_id: 'no-such-resource' })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toEqual(notFound('Not found'))
  })

  it('answers 404 for an alias', async () => {
    await table({}, { aliases: 'delete-by-alias' })
    const res = await del({ resource_id: 'delete-by-alias', force: true })
    expect(res.status).toBe(404)
    expect(res.body.error).toEqual(notFound('Not found: Resource "delete-by-alias" was not found.'))
    expect(
      (await t.ok('datastore_search', { resource_id: 'delete-by-alias' }, admin)).records,
    ).toHaveLength(4)
  })

  it('needs force for a read-only resource', async () => {
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const id = ds.resources[0].id
    await t.ok('datastore_create', { resource_id: id, force: true, records: [{ a: 1 }] }, admin)
    const res = await del({ resource_id: id })
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(
      fail(
        'read-only',
        'Cannot edit read-only resource. Either pass"force=True" or change url-type to "datastore"',
      ),
    )
    expect((await del({ resource_id: id, force: true })).body.result).toEqual({ resource_id: id })
  })

  it('refuses anonymous callers and users who may not edit the dataset', async () => {
    const { id } = await table({ owner_org: orgId, private: true })
    const anon = await del({ resource_id: id }, null)
    expect(anon.status).toBe(403)
    expect(anon.body.error).toEqual({
      __type: 'Authorization Error',
      message: 'Access denied: Action datastore_delete requires an authenticated user',
    })
    const other = await del({ resource_id: id, filters: {} }, outsider)
    expect(other.status).toBe(403)
    expect(other.body.error.message).toBe(
      `Access denied: User ${outsider.name} not authorized to edit resource ${id}`,
    )
    expect(await codes(id)).toHaveLength(4)
  })

  it('lets an organization editor delete rows and the table', async () => {
    const { id } = await table({ owner_org: orgId, private: true })
    expect((await del({ resource_id: id, filters: { code: 'a' } }, editor)).status).toBe(200)
    expect(await codes(id)).toEqual(['b', 'c', 'd'])
    expect((await del({ resource_id: id }, editor)).status).toBe(200)
    expect(await active(id)).toBe(false)
  })
})

describe('resource_delete', () => {
  it('drops the DataStore table and its aliases', async () => {
    const { id } = await table({}, { aliases: 'resource-gone-alias' })
    await t.ok('resource_delete', { id }, admin)
    for (const name of [id, 'resource-gone-alias']) {
      expect((await t.call('datastore_search', { resource_id: name }, admin)).status).toBe(404)
    }
    const objects = await dsObjects()
    expect(objects).not.toContain(id)
    expect(objects).not.toContain('resource-gone-alias')
  })
})

describe('datastore_info', () => {
  let id: string
  beforeAll(async () => {
    const ds = await t.make.dataset(admin)
    id = (
      await t.ok(
        'datastore_create',
        {
          resource: { package_id: ds.id },
          fields: [
            { id: 'i', type: 'int' },
            { id: 'num', type: 'numeric' },
            { id: 'big', type: 'bigint' },
            { id: 'f', type: 'float' },
            { id: 's', type: 'text', info: { label: 'S', notes: 'a note' } },
            { id: 'ts', type: 'timestamp' },
            { id: 'd', type: 'date' },
            { id: 'b', type: 'bool' },
            { id: 'j', type: 'json' },
            { id: 'arr', type: 'int[]' },
          ],
          records: [{ i: 1 }, { i: 2 }, { i: 3 }],
        },
        admin,
      )
    ).resource_id
  })

  const expected = () => ({
    schema: {
      i: 'number',
      num: 'number',
      big: 'text',
      f: 'text',
      s: 'text',
      ts: 'date',
      d: 'text',
      b: 'text',
      j: 'text',
      arr: 'text',
    },
    meta: { count: 3 },
    fields: [
      { id: '_id', type: 'int' },
      { id: 'i', type: 'int4' },
      { id: 'num', type: 'numeric' },
      { id: 'big', type: 'int8' },
      { id: 'f', type: 'float8' },
      { id: 's', type: 'text', info: { label: 'S', notes: 'a note' } },
      { id: 'ts', type: 'timestamp' },
      { id: 'd', type: 'date' },
      { id: 'b', type: 'bool' },
      { id: 'j', type: 'json' },
      { id: 'arr', type: '_int4' },
    ],
  })

  it('describes the columns and counts the rows (POST)', async () => {
    const res = await t.call('datastore_info', { id }, admin)
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual(expected())
  })

  it('answers GET too, anonymously for a public dataset', async () => {
    const res = await t.get(`/api/3/action/datastore_info?id=${id}`)
    expect(res.status).toBe(200)
    expect(res.body.result).toEqual(expected())
  })

  it('follows row deletes in the count', async () => {
    const ds = await t.make.dataset(admin)
    const rid = (
      await t.ok('datastore_create', { resource: { package_id: ds.id }, records: RECORDS }, admin)
    ).resource_id
    await t.ok('datastore_delete', { resource_id: rid, filters: { n: 2 } }, admin)
    expect((await t.ok('datastore_info', { id: rid })).meta).toEqual({ count: 2 })
  })

  it('takes id, or resource_id as CKAN 2.11 names it, and names id when both are missing', async () => {
    expect((await t.call('datastore_info', { resource_id: id }, admin)).status).toBe(200)
    const res = await t.call('datastore_info', {}, admin)
    expect(res.status).toBe(409)
    expect(res.body.error).toEqual(fail('id', 'Missing value'))
  })

  it('answers 404 for an unknown resource, an alias and a resource without a table', async () => {
    const unknown = await t.call('datastore_info', { id: 'no-such-resource' }, admin)
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toEqual(notFound('Not found'))
    await table({}, { aliases: 'info-alias' })
    const alias = await t.call('datastore_info', { id: 'info-alias' }, admin)
    expect(alias.status).toBe(404)
    expect(alias.body.error).toEqual(notFound('Not found'))
    const ds = await t.make.dataset(admin, { resources: [{ url: 'http://x/a.csv' }] })
    const bare = ds.resources[0].id
    const noTable = await t.call('datastore_info', { id: bare }, admin)
    expect(noTable.status).toBe(404)
    expect(noTable.body.error).toEqual(notFound(`Not found: Resource "${bare}" was not found.`))
  })

  it('refuses a private resource to outsiders and shows it to members', async () => {
    const { id: priv } = await table({ owner_org: orgId, private: true })
    const other = await t.call('datastore_info', { id: priv }, outsider)
    expect(other.status).toBe(403)
    expect(other.body.error).toEqual({
      __type: 'Authorization Error',
      message: `Access denied: User ${outsider.name} not authorized to read resource ${priv}`,
    })
    const anon = await t.get(`/api/3/action/datastore_info?id=${priv}`)
    expect(anon.status).toBe(403)
    expect(anon.body.error.__type).toBe('Authorization Error')
    const member = await t.call('datastore_info', { id: priv }, editor)
    expect(member.body.result.meta).toEqual({ count: 4 })
  })
})
