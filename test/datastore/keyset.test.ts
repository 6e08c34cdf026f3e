// Issue 19: CKAN 2.12's keyset paging in datastore_search (include_next_page → next_page, operator
// filters), every row exactly once while writes happen between pages, in every mode.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let id: string

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys)
  const pkg = await t.ok('package_create', { name: 'keyset-data', owner_org: org.id }, sys)
  const created = await t.ok(
    'datastore_create',
    {
      resource: { package_id: pkg.id, name: 'rows' },
      fields: [{ id: 'n', type: 'int' }, { id: 'word', type: 'text' }, { id: 'even', type: 'bool' }],
      records: Array.from({ length: 1000 }, (_, i) => ({ n: i, word: i % 7 === 0 ? 'seven' : 'other', even: i % 2 === 0 })),
    },
    sys,
  )
  id = created.resource_id
})

async function walk(params: Record<string, unknown>, during?: (page: number) => Promise<void>) {
  const seen: number[] = []
  let filters = { ...((params.filters as object) ?? {}) }
  for (let page = 0; page < 200; page++) {
    const r = await t.ok('datastore_search', { resource_id: id, limit: 97, include_next_page: true, ...params, filters }, sys)
    if (!r.records.length) break
    seen.push(...r.records.map((x: any) => x._id))
    expect(r.next_page).toBeDefined()
    filters = { ...((params.filters as object) ?? {}), ...r.next_page }
    if (during) await during(page)
  }
  return seen
}

describe('keyset paging', () => {
  it('returns next_page in _id order and every row exactly once, while rows are added and deleted between pages', async () => {
    const first = await t.ok('datastore_search', { resource_id: id, limit: 10, include_next_page: true }, sys)
    expect(first.next_page).toEqual({ _id: { gt: 10 } })
    const before = new Set((await t.ok('datastore_search', { resource_id: id, limit: 32000 }, sys)).records.map((r: any) => r._id))
    let added = 0
    const seen = await walk({}, async (page) => {
      if (page === 2) {
        // rows behind the reader go, rows ahead of it come: neither shifts what it reads next
        await t.ok('datastore_delete', { resource_id: id, filters: { n: 3 }, force: true }, sys)
        await t.ok('datastore_upsert', { resource_id: id, method: 'insert', records: [{ n: 5000, word: 'late', even: true }], force: true }, sys)
        added++
      }
    })
    expect(new Set(seen).size).toBe(seen.length) // no row twice
    // every row there at the start was read once (the deleted one before it went), and the new one
    for (const x of before) expect(seen).toContain(x)
    expect(seen.length).toBe(before.size + added)
  })

  it('works with filters, q, descending order, and fields without _id', async () => {
    const filtered = await walk({ filters: { word: 'seven' } })
    expect(filtered.length).toBe(143)
    const desc = await walk({ sort: '_id desc' })
    expect(desc).toEqual([...desc].sort((a, b) => b - a))
    const d1 = await t.ok('datastore_search', { resource_id: id, limit: 5, sort: '_id desc', include_next_page: true }, sys)
    expect(Object.keys(d1.next_page._id)).toEqual(['lt'])
    const noId = await t.ok('datastore_search', { resource_id: id, limit: 5, fields: ['n'], include_next_page: true }, sys)
    const withId = await t.ok('datastore_search', { resource_id: id, limit: 5 }, sys)
    expect(noId.next_page).toEqual({ _id: { gt: withId.records[4]._id } })
    // ranked q or another sort: no keyset (as CKAN)
    expect((await t.ok('datastore_search', { resource_id: id, q: 'seven', include_next_page: true }, sys)).next_page).toBeUndefined()
    expect((await t.ok('datastore_search', { resource_id: id, sort: 'n', include_next_page: true }, sys)).next_page).toBeUndefined()
  })

  it('takes operator filters: eq, in, gt, gte, lt, lte; refuses unknown ones', async () => {
    const count = async (filters: object) => (await t.ok('datastore_search', { resource_id: id, filters, limit: 0 }, sys)).total
    expect(await count({ n: { gte: 10, lt: 20 } })).toBe(10)
    expect(await count({ n: { in: [1, 2, 5, 999999] } })).toBe(3)
    expect(await count({ n: { eq: 5 }, even: false })).toBe(1)
    expect(await count({ _id: { lte: 3 } })).toBe(3)
    const bad = await t.call('datastore_search', { resource_id: id, filters: { n: { near: 5 } } }, sys)
    expect(bad.status).toBe(409)
    expect(bad.body.error.filters[0]).toMatch(/Unknown filter operation: near/)
    const badIn = await t.call('datastore_search', { resource_id: id, filters: { n: { in: 5 } } }, sys)
    expect(badIn.status).toBe(409)
  })
})
