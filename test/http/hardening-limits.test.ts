// Issue 16: the 500s born in validation (numeric extremes, huge text filters, huge FTS queries)
// answer CKAN's 409 Validation Error envelope instead.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let admin: Caller

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
  await t.make.dataset(admin, { name: 'limits-one', tags: [{ name: 'tag_one' }] })
  await t.make.dataset(admin, { name: 'limits-two', tags: [{ name: 'tagXone' }] })
})

/** A clean 409 envelope with a Validation Error on `key`; returns that key's messages. */
function validationError(r: { status: number; body: any }, key: string): string[] {
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(409)
  expect(r.body.success).toBe(false)
  expect(r.body.error.__type).toBe('Validation Error')
  expect(r.body.error[key], JSON.stringify(r.body.error).slice(0, 300)).toBeDefined()
  return r.body.error[key]
}

describe('integer parameters', () => {
  const BAD: unknown[] = ['10.0', '1e3', 1e308, -1e308, '1e308', 'Infinity', '-Infinity', 'NaN', 2 ** 31, '99999999999999999999']

  it('refuses non-integers and extremes on the autocomplete actions (no SQLite mismatch)', async () => {
    for (const action of ['package_autocomplete', 'format_autocomplete', 'group_autocomplete', 'organization_autocomplete', 'user_autocomplete', 'tag_autocomplete']) {
      for (const limit of BAD) {
        const r = await t.call(action, { q: 'li', limit }, admin)
        const msgs = validationError(r, 'limit')
        expect(msgs[0]).toMatch(/^(Invalid integer|Must be at most 2147483647)$/)
      }
    }
  })

  it('keeps CKAN messages: "10.0" and NaN are invalid integers, -1 is not a natural number', async () => {
    expect(validationError(await t.call('package_list', { limit: '10.0' }), 'limit')).toEqual(['Invalid integer'])
    expect(validationError(await t.call('package_list', { offset: 'NaN' }), 'offset')).toEqual(['Invalid integer'])
    expect(validationError(await t.call('package_search', { rows: 'Infinity' }), 'rows')).toEqual(['Invalid integer'])
    expect(validationError(await t.call('package_search', { start: -1 }), 'start')).toEqual(['Must be a natural number'])
    expect(validationError(await t.call('package_search', { rows: 1e308 }), 'rows')).toEqual(['Must be at most 2147483647'])
    expect(validationError(await t.call('package_search', { 'facet.limit': '1e308' }), 'facet.limit')).toEqual(['Invalid integer'])
    expect(validationError(await t.call('user_list', { limit: -1 }, admin), 'limit')).toEqual(['Must be a natural number'])
    expect(validationError(await t.call('current_package_list_with_resources', { page: '2.5' }), 'page')).toEqual(['Invalid integer'])
  })

  it('still accepts integers, numbers with a zero fraction, and clamps rows to rows_max', async () => {
    expect((await t.call('package_list', { limit: 10.0 })).status).toBe(200)
    expect((await t.call('package_list', { limit: ' 5 ' })).status).toBe(200)
    const r = await t.call('package_search', { rows: 2 ** 31 - 1 })
    expect(r.status).toBe(200)
    expect(r.body.result.results.length).toBe(2)
  })

  it('answers GET query strings with extremes cleanly', async () => {
    for (const q of ['limit=1e308', 'limit=Infinity', 'limit=NaN', 'limit=10.0', 'limit=-1', 'offset=-1e308']) {
      const r = await t.get(`/api/3/action/package_list?${q}`)
      expect(r.status, q).toBe(409)
      expect((r.body as any).error.__type).toBe('Validation Error')
    }
  })
})

describe('text filters', () => {
  const HUGE = 'x'.repeat(1_000_000)

  it('refuses a 1 MB filter with a Validation Error naming the field', async () => {
    const cases: [string, object, string][] = [
      ['tag_list', { query: HUGE }, 'query'],
      ['tag_list', { q: [HUGE] }, 'q'],
      ['tag_search', { query: HUGE }, 'query'],
      ['tag_search', { fields: { tags: HUGE } }, 'fields'],
      ['tag_autocomplete', { query: HUGE }, 'query'],
      ['user_list', { q: HUGE }, 'q'],
      ['user_autocomplete', { q: HUGE }, 'q'],
      ['group_list', { q: HUGE }, 'q'],
      ['organization_list', { q: HUGE }, 'q'],
      ['group_autocomplete', { q: HUGE }, 'q'],
      ['organization_autocomplete', { q: HUGE }, 'q'],
      ['package_autocomplete', { q: HUGE }, 'q'],
      ['format_autocomplete', { q: HUGE }, 'q'],
      ['resource_search', { query: `name:${HUGE}` }, 'query'],
      ['resource_search', { fields: { name: HUGE } }, 'fields'],
    ]
    for (const [action, params, key] of cases) {
      const r = await t.call(action, params, admin)
      expect(validationError(r, key), action).toEqual(['Must be a maximum of 1000 characters long'])
    }
  })

  it('accepts filters up to the cap', async () => {
    expect((await t.call('tag_list', { query: 'x'.repeat(1000) })).body.result).toEqual([])
  })

  it('matches % and _ literally', async () => {
    expect(await t.ok('tag_list', { query: 'tag_' })).toEqual(['tag_one'])
    expect(await t.ok('tag_list', { query: '%' })).toEqual([])
    expect(await t.ok('tag_search', { query: 'g_o' })).toMatchObject({ count: 1 })
    expect(await t.ok('user_list', { q: '%' }, admin)).toEqual([])
    expect(await t.ok('group_list', { q: '_' })).toEqual([])
  })
})

describe('full-text queries', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ')

  it('refuses a datastore_search q of 10,000 words (plain, tsquery and per column)', async () => {
    const pkg = await t.make.dataset(admin)
    const created = await t.ok(
      'datastore_create',
      { resource: { package_id: pkg.id }, fields: [{ id: 'body', type: 'text' }], records: [{ body: 'word1 word2' }] },
      admin,
    )
    const rid = created.resource_id as string
    for (const params of [
      { q: words(10_000) },
      { q: words(10_000), plain: false },
      { q: { body: words(10_000) } },
      { q: words(101) },
      { q: 'x'.repeat(1_000_000) },
    ]) {
      const r = await t.call('datastore_search', { resource_id: rid, ...params }, admin)
      expect(validationError(r, 'q')[0]).toMatch(/^Must (have at most 100 search terms|be a maximum of 10000 characters long)$/)
    }
    const ok = await t.call('datastore_search', { resource_id: rid, q: words(100) }, admin)
    expect(ok.status).toBe(200)
    expect((await t.ok('datastore_search', { resource_id: rid, q: 'word1' }, admin)).records).toHaveLength(1)
  })
})

describe('catalogue search queries', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ')

  it('refuses a package_search q or fq of 10,000 words with a Validation Error', async () => {
    for (const [params, key] of [
      [{ q: words(10_000) }, 'q'],
      [{ q: `title:(${words(10_000)})` }, 'q'],
      [{ fq: words(10_000) }, 'fq'],
      [{ fq_list: ['name:x', words(10_000)] }, 'fq_list'],
      [{ q: 'x'.repeat(1_000_000) }, 'q'],
    ] as [object, string][]) {
      const r = await t.call('package_search', params)
      expect(validationError(r, key)[0]).toMatch(/^Must (have at most 1024 search terms|be a maximum of 100000 characters long)$/)
    }
    const r = await t.call('package_search', { q: words(1000) })
    expect(r.status).toBe(200)
  })
})
