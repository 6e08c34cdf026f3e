// The time budget of one call: the slowest searches we can construct stop at it with CKAN's 409,
// while the same queries without a budget run to the end (so they really are slow).
import { beforeAll, describe, expect, it } from 'vitest'
import { invoke } from '../../src/actions/invoke'
import { registry } from '../../src/actions/index'
import { systemContext } from '../../src/context'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { findTableByName } from '../../src/datastore/registry'
import { planSearch, type SearchSpec } from '../../src/datastore/query'

const BUDGET_MS = 15
const ROWS = 300_000
const DATASETS = 150

let t: TestEnv
let sys: Caller
let resourceId: string

/** Deterministic pseudo-random words, so every run builds the same tables. */
function words(seed: number, n: number): string[] {
  let x = seed
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    out.push(`w${(x % 5000).toString(36)}${'aeiou'[x % 5]}`)
  }
  return out
}

beforeAll(async () => {
  t = await setup({ 'service.action.timeout_ms': String(BUDGET_MS) })
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys)
  for (let i = 0; i < DATASETS; i++) {
    await t.ok('package_create', { name: `budget-${i}`, owner_org: org.id, notes: words(i + 1, 60).join(' ') }, sys)
  }
  const pkg = await t.ok('package_create', { name: 'budget-table', owner_org: org.id }, sys)
  const chunk = 25_000
  for (let start = 0; start < ROWS; start += chunk) {
    const records = Array.from({ length: chunk }, (_, i) => {
      const [a, b, c] = words(start + i + 7, 3)
      return { a, b, note: `${a} ${b} ${c}`, n: (start + i) % 977 }
    })
    if (start === 0) {
      const r = await t.ok(
        'datastore_create',
        {
          resource: { package_id: pkg.id, name: 'big' },
          fields: [{ id: 'a', type: 'text' }, { id: 'b', type: 'text' }, { id: 'note', type: 'text' }, { id: 'n', type: 'int' }],
          records,
          indexes: 'a',
        },
        sys,
      )
      resourceId = r.resource_id
    } else await t.ok('datastore_upsert', { resource_id: resourceId, records, method: 'insert' }, sys)
  }
}, 180_000)

/** Runs an action with no budget at all (the process's own context) and times it. */
async function unbudgeted(name: string, input: Record<string, unknown>) {
  const started = performance.now()
  const result = (await invoke(systemContext(t.deps), registry.get(name)!, input)) as Record<string, unknown>
  return { ms: performance.now() - started, result }
}

async function timed(name: string, input: Record<string, unknown>) {
  const started = performance.now()
  const r = await t.call(name, input, sys)
  return { ...r, ms: performance.now() - started }
}

describe('datastore_search under a time budget', () => {
  const slow: [string, Record<string, unknown>][] = [
    ['a sort on every text column, deep offset', { sort: 'note desc, b desc, a', offset: 20_000 }],
    ['full text over every row, ranked, with a total', { q: 'w1a:* | w2e:* | w3i:* | w4o:* | w5u:* | w6a:* | w7e:* | w8i:* | w9o:* | wau:*', plain: false, sort: 'rank desc, note' }],
    ['distinct rows of a computed order', { distinct: true, fields: ['note', 'n'], sort: 'note' }],
    ['a filter no index serves, sorted, with a total', { filters: { n: Array.from({ length: 160 }, (_, i) => i * 5) }, sort: 'note desc, b desc' }],
  ]
  for (const [what, input] of slow) {
    it(`stops ${what} with "Search took too long"`, async () => {
      const params = { resource_id: resourceId, limit: 5, ...input }
      // the query is valid and its page alone is slower than the budget (the runner counts beside
      // the page, so the page is what must not fit): otherwise this test proves nothing
      const free = await unbudgeted('datastore_search', { ...params, include_total: false })
      expect(free.ms).toBeGreaterThan(BUDGET_MS * 1.5)
      const r = await timed('datastore_search', params)
      expect([r.status, r.body.error]).toEqual([409, { __type: 'Validation Error', query: ['Search took too long'] }])
      expect(r.ms).toBeLessThan(Math.max(free.ms, 1500))
    })
  }

  it('keeps the event loop free while the slow statement runs', async () => {
    let worstGap = 0
    let last = Date.now()
    const timer = setInterval(() => {
      worstGap = Math.max(worstGap, Date.now() - last)
      last = Date.now()
    }, 2)
    const r = await timed('datastore_search', { resource_id: resourceId, distinct: true, fields: ['note', 'n'], sort: 'note', limit: 5 })
    clearInterval(timer)
    expect(r.status).toBe(409)
    // the same statement on the main thread blocks it for its whole run (about a second here);
    // the margin is for a machine busy with other work
    expect(worstGap).toBeLessThan(300)
  })

  it('sends index lookups the direct way and scans, sorts and full text to the runner', async () => {
    const ds = t.deps.datastore!
    const table = (await findTableByName(ds, resourceId))!
    const judge = (spec: Partial<SearchSpec>) => {
      const p = planSearch(table, { plain: true, language: 'english', distinct: false, limit: 5, offset: 0, ...spec })
      return [p.sql, p.countSql].map((sql) => ds.statementMayTakeLong!(sql))
    }
    expect(judge({ filters: { a: 'w1a' } })).toEqual([false, false])
    expect(judge({ filters: { n: 1 } })).toEqual([true, true])
    expect(judge({ filters: { a: 'w1a' }, sort: 'b' })).toEqual([true, false])
    expect(judge({ q: 'w1a' })).toEqual([true, true])
    // and an indexed filter answers under the tiny budget
    const r = await t.call('datastore_search', { resource_id: resourceId, filters: { a: 'w1a' }, limit: 2 }, sys)
    expect(r.status).toBe(200)
  })

  it('still answers plain pages of the big table at once', async () => {
    const r = await t.call('datastore_search', { resource_id: resourceId, limit: 3, offset: 100 }, sys)
    expect(r.body.result.records.map((x: { _id: number }) => x._id)).toEqual([101, 102, 103])
    expect(r.body.result.total).toBe(ROWS)
  })
})

describe('package_search under a time budget', () => {
  it('stops a query of two hundred expensive patterns with "Search took too long"', async () => {
    const q = Array.from({ length: 200 }, (_, i) => `notes:/w.*${i % 10}.*[aei]/`).join(' OR ')
    const free = await unbudgeted('package_search', { q, rows: 1 })
    expect(free.ms).toBeGreaterThan(BUDGET_MS * 2)
    const r = await timed('package_search', { q, rows: 1 })
    expect([r.status, r.body.error]).toEqual([409, { __type: 'Search Error', message: "Search error: 'Search took too long'" }])
    expect(r.ms).toBeLessThan(free.ms)
  })

  it('answers ordinary searches within the same budget', async () => {
    const r = await t.call('package_search', { q: 'name:budget-1*', rows: 2 }, sys)
    expect(r.body.success).toBe(true)
    expect(r.body.result.count).toBeGreaterThan(10)
  })
})
