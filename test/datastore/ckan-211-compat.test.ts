// CKAN 2.11 DataStore changes that follow service.api_compat: a number or boolean filter value on a
// text column (2.11.3 and later: compared as Python's str() of it; 2.9: "operator does not exist"),
// and datastore_create's fields in any order or a subset without delete_fields (2.11: the other
// columns are kept; 2.9: "not present or in wrong order").
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

describe.each([
  { compat: '2.9', portable: false },
  { compat: '2.10', portable: false },
  { compat: '2.11', portable: false },
  { compat: '2.11', portable: true },
])('api_compat $compat (portable $portable)', ({ compat, portable }) => {
  const is211 = compat === '2.11'
  let t: TestEnv
  let admin: Caller

  beforeAll(async () => {
    t = await setup({ 'service.api_compat': compat }, { portableDatastore: portable })
    admin = await t.make.sysadmin()
  })

  async function table(fields: object[], records: object[] = []) {
    const ds = await t.make.dataset(admin)
    const made = await t.ok('datastore_create', { resource: { package_id: ds.id }, fields, records }, admin)
    return made.resource_id as string
  }

  describe('a number filter on a text column', () => {
    const texts = () =>
      table(
        [
          { id: 'text_field', type: 'text' },
          { id: 'n', type: 'int' },
        ],
        [
          { text_field: 25, n: 25 },
          { text_field: 37, n: 37 },
          { text_field: 'True', n: 1 },
          { text_field: '2.5', n: 2 },
        ],
      )
    const search = (id: string, filters: object) =>
      t.call('datastore_search', { resource_id: id, filters, fields: 'text_field' }, admin)

    it('datastore_search: 2.11 compares the text of the value, 2.9 refuses it', async () => {
      const id = await texts()
      const cases: [object, string[]][] = [
        [{ text_field: 25 }, ['25']],
        [{ text_field: '37' }, ['37']],
        [{ text_field: [25, '37'] }, ['25', '37']],
        [{ text_field: true }, ['True']],
        [{ text_field: 2.5 }, ['2.5']],
        [{ text_field: { in: [37, 99] } }, ['37']],
        [{ text_field: { gte: 3 } }, ['37', 'True']],
      ]
      for (const [filters, found] of cases) {
        const r = await search(id, filters)
        const numeric = JSON.stringify(filters).match(/:\s*(\[?\s*\d|true|\{"(in|gte)":\s*\[?\d)/)
        if (is211 || !numeric) {
          expect(r.status, JSON.stringify(filters)).toBe(200)
          expect(r.body.result.records.map((x: { text_field: string }) => x.text_field)).toEqual(found)
        } else {
          expect(r.status, JSON.stringify(filters)).toBe(409)
          expect(r.body.error.query).toEqual(['Invalid query'])
          expect(r.body.error.info.orig[0]).toMatch(/^operator does not exist: text = (integer|boolean|numeric)$/)
        }
      }
      // a number column still takes a number, and a bad text on it is still an Invalid query
      expect((await search(id, { n: 25 })).body.result.records).toEqual([{ text_field: '25' }])
      const bad = await search(id, { n: 'x' })
      expect(bad.status).toBe(409)
      expect(bad.body.error.info.orig).toEqual(['invalid input syntax for type integer: "x"'])
    })

    it('datastore_delete, datastore_records_delete and dumps take it the same way', async () => {
      const id = await texts()
      const del = await t.call('datastore_records_delete', { resource_id: id, filters: { text_field: 25 } }, admin)
      const dump = await t.get(`/datastore/dump/${id}?filters=${encodeURIComponent('{"text_field": 37}')}`, admin)
      const del2 = await t.call('datastore_delete', { resource_id: id, filters: { text_field: [37] } }, admin)
      const left = (await t.ok('datastore_search', { resource_id: id }, admin)).total
      if (is211) {
        expect([del.status, dump.status, del2.status]).toEqual([200, 200, 200])
        expect(dump.text).toContain('37')
        expect(left).toBe(2)
      } else {
        expect([del.status, dump.status, del2.status]).toEqual([409, 400, 409])
        expect(del.body.error.__type).toBe('Validation Error')
        expect(dump.text).toContain('operator does not exist: text = integer')
        expect(left).toBe(4)
      }
    })
  })

  describe('datastore_create fields without delete_fields', () => {
    const textFields = (...ids: string[]) => ids.map((id) => ({ id, type: 'text' }))
    const fieldIds = async (id: string) =>
      (await t.ok('datastore_search', { resource_id: id, limit: 0 }, admin)).fields.map((f: { id: string }) => f.id)

    it('2.11 takes a subset in any order and keeps the other columns; 2.9 refuses it', async () => {
      const id = await table(textFields('col_a', 'col_b', 'col_c', 'col_d'))
      const res = await t.call(
        'datastore_create',
        {
          resource_id: id,
          fields: [{ id: 'col_c', type: 'text', info: { label: 'C' } }, ...textFields('col_a', 'col_e')],
          records: [{ col_a: 'a', col_e: 'e' }],
        },
        admin,
      )
      if (is211) {
        expect(res.status).toBe(200)
        expect(await fieldIds(id)).toEqual(['_id', 'col_a', 'col_b', 'col_c', 'col_d', 'col_e'])
        const info = await t.ok('datastore_info', { id }, admin)
        expect(info.fields.find((f: { id: string }) => f.id === 'col_c').info).toEqual({ label: 'C' })
        const rows = (await t.ok('datastore_search', { resource_id: id }, admin)).records
        expect(rows).toEqual([{ _id: 1, col_a: 'a', col_b: null, col_c: null, col_d: null, col_e: 'e' }])
      } else {
        expect(res.status).toBe(409)
        expect(res.body.error).toEqual({
          __type: 'Validation Error',
          fields: ['Supplied field "col_c" not present or in wrong order'],
        })
        expect(await fieldIds(id)).toEqual(['_id', 'col_a', 'col_b', 'col_c', 'col_d'])
      }
    })

    it('a new field still needs a type it can guess, under every setting', async () => {
      const id = await table(textFields('col_a', 'col_b'))
      const res = await t.call('datastore_create', { resource_id: id, fields: [{ id: 'col_a' }, { id: 'col_b' }, { id: 'x' }] }, admin)
      expect(res.status).toBe(409)
      expect(res.body.error.fields).toEqual(['"x" type not guessable'])
      // delete_fields keeps its own rule
      const dropped = await t.ok('datastore_create', { resource_id: id, fields: textFields('col_b'), delete_fields: true }, admin)
      expect(dropped.resource_id).toBe(id)
      expect(await fieldIds(id)).toEqual(['_id', 'col_b'])
    })
  })
})
