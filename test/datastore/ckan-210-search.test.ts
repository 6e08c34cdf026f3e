// datastore_search's CKAN 2.10 `full_text` (an addition: offered under every setting) and sorts by
// an array column in PostgreSQL's order (element by element, a prefix first, NULL elements last).
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

describe.each([
  { compat: '2.9', portable: false },
  { compat: '2.11', portable: false },
  { compat: '2.11', portable: true },
])('api_compat $compat (portable $portable)', ({ compat, portable }) => {
  let t: TestEnv
  let admin: Caller
  let places: string

  beforeAll(async () => {
    t = await setup({ 'service.api_compat': compat }, { portableDatastore: portable })
    admin = await t.make.sysadmin()
    places = await table({
      records: [
        { from: 'Brazil', to: 'Brazil' },
        { from: 'Brazil', to: 'Italy' },
        { from: 'Italy', to: 'Spain' },
      ],
    })
  })

  async function table(params: object) {
    const ds = await t.make.dataset(admin)
    const made = await t.ok('datastore_create', { resource: { package_id: ds.id }, ...params }, admin)
    return made.resource_id as string
  }
  const search = (params: object) => t.call('datastore_search', { resource_id: places, ...params }, admin)
  const found = async (params: object) => {
    const r = await search(params)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body.result
  }

  describe('full_text', () => {
    it('searches whole rows, ranked best first, and is echoed', async () => {
      const r = await found({ full_text: 'Brazil' })
      expect(r.full_text).toBe('Brazil')
      expect(r.records.map((x: { _id: number }) => x._id)).toEqual([1, 2])
      const ranks = r.records.map((x: { rank: number }) => x.rank)
      expect(ranks[0]).toBeGreaterThan(ranks[1])
      expect(r.fields.map((f: { id: string }) => f.id)).toEqual(['_id', 'from', 'to', 'rank'])
      expect(r.total).toBe(2)
    })

    it('takes the place of a q string', async () => {
      const r = await found({ full_text: 'Brazil', q: 'Spain' })
      expect(r.records.map((x: { _id: number }) => x._id)).toEqual([1, 2])
      expect(r.q).toBe('Spain')
    })

    it('is ANDed with a q dict, with rank beside each column rank', async () => {
      const r = await found({ full_text: 'Brazil', q: { to: 'Italy' }, fields: 'from, rank, rank to' })
      expect(r.records).toHaveLength(1)
      expect(Object.keys(r.records[0])).toEqual(['from', 'rank', 'rank to'])
      expect(r.records[0].rank).toBeGreaterThan(0)
      expect(r.records[0]['rank to']).toBeGreaterThan(0)
      // each rank counts its own query: the same column rank for both rows of q {from: Brazil}
      const both = await found({ full_text: 'Brazil', q: { from: 'Brazil' }, fields: 'rank from, rank' })
      expect(both.records).toHaveLength(2)
      expect(new Set(both.records.map((x: Record<string, number>) => x['rank from'])).size).toBe(1)
      expect(new Set(both.records.map((x: Record<string, number>) => x.rank)).size).toBe(2)
      // an empty q dict leaves full_text alone
      expect((await found({ full_text: 'Spain', q: {} })).records).toHaveLength(1)
    })

    it('follows plain and language; only stop words match nothing; empty is no search', async () => {
      expect((await found({ full_text: 'Bra:*', plain: false })).records).toHaveLength(2)
      expect((await found({ full_text: '!Italy', plain: false })).records.map((x: { _id: number }) => x._id)).toEqual([1])
      expect((await found({ full_text: 'the' })).records).toHaveLength(0)
      expect((await found({ full_text: '' })).records).toHaveLength(3)
      const bad = await search({ full_text: 'a & (', plain: false })
      expect(bad.status).toBe(409)
      expect(bad.body.error.query).toEqual(['Invalid query'])
      const lang = await search({ full_text: 'Brazil', language: 'klingon' })
      expect(lang.status).toBe(409)
    })

    it('is refused on _table_metadata as CKAN (no _full_text there), and unknown keys still are', async () => {
      const meta = await t.call('datastore_search', { resource_id: '_table_metadata', full_text: 'x' }, admin)
      expect(meta.status).toBe(409)
      expect(meta.body.error.info.orig).toEqual(['column "_full_text" does not exist'])
      const extra = await search({ full_txt: 'Brazil' })
      expect(extra.status).toBe(409)
      expect(extra.body.error.__extras).toEqual(['invalid value "full_txt"'])
    })

    it('works by GET', async () => {
      const r = await t.get(`/api/3/action/datastore_search?resource_id=${places}&full_text=Spain`, admin)
      expect(r.status).toBe(200)
      expect(r.body.result.records.map((x: { _id: number }) => x._id)).toEqual([3])
    })
  })

  describe('sort by an array column', () => {
    it('orders element by element, as PostgreSQL', async () => {
      const id = await table({
        fields: [
          { id: 'k', type: 'text' },
          { id: 'lst', type: '_text' },
          { id: 'ns', type: '_int4' },
          { id: 'fs', type: '_float8' },
        ],
        records: [
          { k: 'a', lst: ['one'], ns: [10], fs: ['Infinity'] },
          { k: 'b', lst: ['one', 'two'], ns: [2, 1], fs: [1.5] },
          { k: 'c', lst: null, ns: null, fs: null },
          { k: 'd', lst: ['a'], ns: [2], fs: ['-Infinity'] },
          { k: 'e', lst: [], ns: [2, null], fs: ['NaN'] },
          { k: 'f', lst: [null], ns: [-3], fs: [-2] },
        ],
      })
      const keys = async (sort: string | string[]) =>
        (await t.ok('datastore_search', { resource_id: id, sort, fields: 'k' }, admin)).records
          .map((r: { k: string }) => r.k)
          .join('')
      expect(await keys('lst')).toBe('edabfc')
      expect(await keys('lst desc')).toBe('cfbade')
      expect(await keys('lst nulls first')).toBe('cedabf')
      expect(await keys('lst desc nulls last')).toBe('fbadec')
      expect(await keys(['ns', 'k'])).toBe('fdbeac')
      expect(await keys('fs')).toBe('dfbaec')
      // the dump takes the same order
      const dump = await t.get(`/datastore/dump/${id}?format=json&fields=k&sort=${encodeURIComponent('ns desc')}`, admin)
      expect(dump.body.records.map((r: string[]) => r[0]).join('')).toBe('caebdf')
    })
  })
})
