// datastore_search with group_by and aggregates (beyond CKAN), through the Node and the portable
// (Workers) DataStore adapters: every answer beside an SQL query of our own on the same rows.
import Database from 'libsql'
import { createClient } from '@libsql/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invoke } from '../../src/actions/invoke'
import { registry } from '../../src/actions/index'
import { systemContext } from '../../src/context'
import { clientDatastore, clientDatastoreReader } from '../../src/datastore/client-store'
import { datastoreUrl, openDatastore } from '../../src/runtime/node-datastore'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

const N = 3000
const MAX_GROUPS = 100
const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']
const ANIMALS = ['lion', 'tiger', 'zebra', 'otter', 'panda', 'moose']
const FIELDS = [
  { id: 'category', type: 'text', info: { label: 'Category' } },
  { id: 'region', type: 'text' },
  { id: 'value', type: 'float' },
  { id: 'amount', type: 'int' },
  { id: 'price', type: 'numeric' },
  { id: 'day', type: 'date' },
  { id: 'ts', type: 'timestamp' },
  { id: 'tstz', type: 'timestamptz' },
  { id: 'flag', type: 'bool' },
  { id: 'k', type: 'int' },
  { id: 'note', type: 'text' },
  { id: 'tags', type: '_text' },
  { id: 'meta', type: 'json' },
]

/** Deterministic rows: nulls in category, value and amount; 546 days from 2023-01-01. */
function rows(): Record<string, unknown>[] {
  let x = 20261127
  const r = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x80000000
  const pad = (n: number) => String(n).padStart(2, '0')
  return Array.from({ length: N }, (_, i) => {
    const day = new Date(Date.UTC(2023, 0, 1) + Math.floor(r() * 546) * 86_400_000).toISOString().slice(0, 10)
    const time = `${pad(Math.floor(r() * 24))}:${pad(Math.floor(r() * 60))}:${pad(Math.floor(r() * 60))}`
    return {
      category: i % 97 === 0 ? null : CATEGORIES[Math.floor(r() * CATEGORIES.length)],
      region: ['north', 'south', 'west'][i % 3],
      value: r() < 0.1 ? null : Math.round(r() * 100_000) / 100,
      amount: r() < 0.05 ? null : Math.floor(r() * 500) - 100,
      price: Math.round(r() * 1_000_000) / 100,
      day,
      ts: `${day}T${time}`,
      tstz: `${day} ${time}+02:00`,
      flag: r() < 0.5,
      k: i % 101,
      note: [0, 1, 2].map(() => ANIMALS[Math.floor(r() * ANIMALS.length)]).join(' '),
      tags: ['a', 'b'],
      meta: { i },
    }
  })
}

/** Numbers within 1e-9 (relative): sums may be added up in another order. */
function expectSame(actual: unknown[][], expected: unknown[][]) {
  expect(actual.length).toBe(expected.length)
  actual.forEach((row, i) => {
    const want = expected[i]!
    expect(row.length).toBe(want.length)
    row.forEach((v, j) => {
      const w = want[j]
      if (typeof v === 'number' && typeof w === 'number' && !Number.isInteger(w))
        expect(Math.abs(v - w)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(w)))
      else expect(v).toEqual(w)
    })
  })
}

/** The middle value, or the mean of the two middle ones. */
function median(xs: number[]): number | null {
  if (!xs.length) return null
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

for (const portable of [false, true]) {
  describe(`datastore_search group_by and aggregates (${portable ? 'portable adapter, Workers' : 'Node adapter'})`, () => {
    let t: TestEnv
    let sys: Caller
    let id: string
    let T: string

    /** Our own SQL, straight on the DataStore database. */
    const sql = async (text: string, args: (string | number)[] = []) =>
      (await t.deps.datastore!.query(text, args)).rows.map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))
    /** An aggregation through the API, as lists; the whole result. */
    const agg = async (params: Record<string, unknown>, as: Caller | null = null) => {
      const r = await t.call('datastore_search', { resource_id: id, records_format: 'lists', ...params }, as)
      if (r.status !== 200) throw new Error(JSON.stringify(r.body))
      return r.body.result
    }
    const refused = async (params: Record<string, unknown>) => {
      const r = await t.call('datastore_search', { resource_id: id, ...params })
      expect(r.status).toBe(409)
      expect(r.body.error.__type).toBe('Validation Error')
      return r.body.error
    }

    beforeAll(async () => {
      t = await setup({ 'service.datastore.aggregate.max_groups': String(MAX_GROUPS) }, { portableDatastore: portable })
      sys = await t.make.sysadmin()
      const org = await t.make.organization(sys)
      const pkg = await t.make.dataset(sys, { owner_org: org.id })
      const all = rows()
      const created = await t.ok(
        'datastore_create',
        { resource: { package_id: pkg.id }, fields: FIELDS, records: all.slice(0, 1000), indexes: 'category' },
        sys,
      )
      id = created.resource_id
      T = `"${id}"`
      for (let from = 1000; from < N; from += 1000)
        await t.ok('datastore_upsert', { resource_id: id, method: 'insert', records: all.slice(from, from + 1000) }, sys)
    })

    it('counts and averages per category (indexed), NULL group last, fields typed', async () => {
      const r = await agg({
        group_by: ['category'],
        aggregates: [{ function: 'count' }, { function: 'avg', column: 'value' }, { function: 'count', column: 'value' }],
      })
      expect(r.fields).toEqual([
        { id: 'category', type: 'text', info: { label: 'Category' } },
        { id: 'count', type: 'int8' },
        { id: 'avg_value', type: 'float8' },
        { id: 'count_value', type: 'int8' },
      ])
      expect(r.total).toBe(CATEGORIES.length + 1)
      expectSame(
        r.records,
        await sql(`SELECT category, count(*), avg(value), count(value) FROM ${T} GROUP BY category ORDER BY category NULLS LAST`),
      )
      expect(r.records.at(-1)[0]).toBe(null)
      expect(r.group_by).toEqual([{ column: 'category', as: 'category' }])
      expect(r.aggregates).toEqual([
        { function: 'count', as: 'count' },
        { function: 'avg', column: 'value', as: 'avg_value' },
        { function: 'count', column: 'value', as: 'count_value' },
      ])
    })

    it('computes every function, with the output types of PostgreSQL', async () => {
      const r = await agg({
        group_by: 'region',
        aggregates: [
          { function: 'sum', column: 'amount' },
          { function: 'avg', column: 'amount' },
          { function: 'sum', column: 'value', as: 'total_value' },
          { function: 'avg', column: 'price' },
          { function: 'min', column: 'day' },
          { function: 'max', column: 'ts' },
          { function: 'min', column: 'category' },
          { function: 'count_distinct', column: 'category' },
          { function: 'max', column: 'flag' },
        ],
      })
      expect(r.fields.map((f: { type: string }) => f.type)).toEqual([
        'text', 'int8', 'numeric', 'float8', 'numeric', 'date', 'timestamp', 'text', 'int8', 'bool',
      ])
      expect(r.fields.map((f: { id: string }) => f.id)).toEqual([
        'region', 'sum_amount', 'avg_amount', 'total_value', 'avg_price', 'min_day', 'max_ts', 'min_category',
        'count_distinct_category', 'max_flag',
      ])
      const want = await sql(
        `SELECT region, sum(amount), avg(amount), sum(value), avg(price), min(day), max(ts), min(category), ` +
          `count(DISTINCT category), max(flag) FROM ${T} GROUP BY region ORDER BY region`,
      )
      expectSame(r.records, want.map((w) => [...w.slice(0, 9), w[9] === 1]))
    })

    it('computes the median in one pass, per group and over the whole table', async () => {
      const r = await agg({ group_by: ['category'], aggregates: [{ function: 'median', column: 'value' }, { function: 'median', column: 'amount', as: 'mid' }, { function: 'count' }] })
      expect(r.fields.map((f: { type: string }) => f.type)).toEqual(['text', 'float8', 'float8', 'int8'])
      const raw = await sql(`SELECT category, value, amount FROM ${T}`)
      const want = [...CATEGORIES].sort().concat([null as unknown as string]).map((c) => {
        const mine = raw.filter((x) => x[0] === c)
        const nums = (j: number) => mine.map((x) => x[j]).filter((v): v is number => typeof v === 'number')
        return [c, median(nums(1)), median(nums(2)), mine.length]
      })
      expectSame(r.records, want)
      const whole = await agg({ aggregates: [{ function: 'median', column: 'price' }, { function: 'max', column: 'price' }] })
      const prices = (await sql(`SELECT price FROM ${T}`)).map((x) => x[0] as number)
      expectSame(whole.records, [[median(prices), Math.max(...prices)]])
      // an even and an odd number of values, and none at all
      const two = await agg({ filters: { k: [1, 2] }, aggregates: [{ function: 'median', column: 'k' }, { function: 'median', column: 'value', as: 'v' }] })
      const three = await agg({ filters: { k: [1, 2, 5] }, group_by: 'region', aggregates: [{ function: 'median', column: 'k' }] })
      const pairs = await sql(`SELECT k, value FROM ${T} WHERE k IN (1, 2)`)
      expectSame(two.records, [[median(pairs.map((x) => x[0] as number)), median(pairs.map((x) => x[1]).filter((v): v is number => v !== null))]])
      const byRegion = await sql(`SELECT region, k FROM ${T} WHERE k IN (1, 2, 5) ORDER BY region`)
      expectSame(three.records, [...new Set(byRegion.map((x) => x[0]))].map((g) => [g, median(byRegion.filter((x) => x[0] === g).map((x) => x[1] as number))]))
      const none = await agg({ filters: { k: 3, value: -1 }, aggregates: [{ function: 'median', column: 'value' }, { function: 'count' }] })
      expect(none.records).toEqual([[null, 0]])
    })

    it('groups by month, quarter, year, week, day and hour buckets', async () => {
      const month = await agg({ group_by: [{ column: 'day', bucket: 'month' }], aggregates: [{ function: 'count' }, { function: 'sum', column: 'amount' }] })
      expect(month.fields).toEqual([{ id: 'day_month', type: 'date' }, { id: 'count', type: 'int8' }, { id: 'sum_amount', type: 'int8' }])
      expectSame(month.records, await sql(`SELECT strftime('%Y-%m-01', day) m, count(*), sum(amount) FROM ${T} GROUP BY m ORDER BY m`))
      expect(month.total).toBe(18)

      const quarter = await agg({ group_by: [{ column: 'ts', bucket: 'quarter', as: 'q' }], aggregates: [{ function: 'avg', column: 'value' }] })
      expect(quarter.fields[0]).toEqual({ id: 'q', type: 'timestamp' })
      expectSame(
        quarter.records,
        await sql(
          `SELECT printf('%s-%02d-01T00:00:00', strftime('%Y', ts), ((CAST(strftime('%m', ts) AS INTEGER) - 1) / 3) * 3 + 1) q, ` +
            `avg(value) FROM ${T} GROUP BY q ORDER BY q`,
        ),
      )

      const week = await agg({ group_by: [{ column: 'day', bucket: 'week' }], aggregates: [{ function: 'count' }], limit: 1000 })
      // Monday of the week: the next Sunday (or the day itself), less six days
      const weeks = await sql(`SELECT date(day, 'weekday 0', '-6 days') w, count(*) FROM ${T} GROUP BY w ORDER BY w`)
      expectSame(week.records, weeks)
      expect(weeks.every((w) => new Date(`${w[0]}T00:00:00Z`).getUTCDay() === 1)).toBe(true)

      const yearRegion = await agg({ group_by: [{ column: 'ts', bucket: 'year' }, 'region'], aggregates: [{ function: 'max', column: 'value' }] })
      expectSame(
        yearRegion.records,
        await sql(`SELECT strftime('%Y-01-01T00:00:00', ts) y, region, max(value) FROM ${T} GROUP BY y, region ORDER BY y, region`),
      )

      const day = await agg({ filters: { region: 'north', category: 'alpha', k: { lt: 40 } }, group_by: [{ column: 'tstz', bucket: 'day' }], aggregates: [{ function: 'count' }], limit: 1000 })
      expect(day.fields[0]).toEqual({ id: 'tstz_day', type: 'timestamptz' })
      expectSame(
        day.records,
        await sql(`SELECT strftime('%Y-%m-%dT00:00:00+00:00', tstz) d, count(*) FROM ${T} WHERE region = 'north' AND category = 'alpha' AND k < 40 GROUP BY d ORDER BY d`),
      )

      const hour = await agg({ filters: { day: '2023-03-01' }, group_by: [{ column: 'ts', bucket: 'hour' }], aggregates: [{ function: 'count' }] })
      expectSame(hour.records, await sql(`SELECT strftime('%Y-%m-%dT%H:00:00', ts) h, count(*) FROM ${T} WHERE day = '2023-03-01' GROUP BY h ORDER BY h`))
    })

    it('applies filters and q before grouping', async () => {
      const r = await agg({
        q: 'otter',
        filters: { region: ['north', 'west'], amount: { gte: 0 } },
        group_by: 'category',
        aggregates: [{ function: 'count' }, { function: 'avg', column: 'amount' }],
      })
      expectSame(
        r.records,
        await sql(
          `SELECT category, count(*), avg(amount) FROM ${T} WHERE (' ' || note || ' ') LIKE '% otter %' ` +
            `AND region IN ('north', 'west') AND amount >= 0 GROUP BY category ORDER BY category NULLS LAST`,
        ),
      )
      const dict = await agg({ q: { note: 'zebra' }, aggregates: [{ function: 'count' }] })
      expectSame(dict.records, await sql(`SELECT count(*) FROM ${T} WHERE (' ' || note || ' ') LIKE '% zebra %'`))
      expect(dict.total).toBe(1)
    })

    it('sorts by an aggregate or a key, pages over the groups and counts them', async () => {
      const all = await sql(`SELECT category, avg(value) a, count(*) FROM ${T} GROUP BY category ORDER BY a DESC, category`)
      const page = await agg({ group_by: 'category', aggregates: [{ function: 'avg', column: 'value' }, { function: 'count', as: 'n' }], sort: 'avg_value desc', limit: 3, offset: 2 })
      expectSame(page.records, all.slice(2, 5))
      expect(page.total).toBe(all.length)
      expect(page._links).toEqual({ start: '/api/3/action/datastore_search', next: '/api/3/action/datastore_search?offset=5' })
      const byCount = await agg({ group_by: 'region', aggregates: [{ function: 'count', as: 'n' }], sort: ['n asc', 'region desc'], include_total: false })
      expectSame(byCount.records, await sql(`SELECT region, count(*) n FROM ${T} GROUP BY region ORDER BY n, region DESC`))
      expect(byCount.total).toBeUndefined()
      const nullsFirst = await agg({ group_by: 'category', sort: '"category" desc nulls last', limit: 2 })
      expectSame(nullsFirst.records, await sql(`SELECT category FROM ${T} GROUP BY category ORDER BY category DESC NULLS LAST LIMIT 2`))
      // fields picks and orders output columns; a hidden key still orders the groups
      const picked = await agg({ group_by: ['region', 'flag'], aggregates: [{ function: 'count' }], fields: ['count', 'flag'] })
      expect(picked.fields).toEqual([{ id: 'count', type: 'int8' }, { id: 'flag', type: 'bool' }])
      const want = await sql(`SELECT count(*), flag FROM ${T} GROUP BY region, flag ORDER BY region, flag`)
      expectSame(picked.records, want.map((w) => [w[0], w[1] === 1]))
      // past the last group, and a page of none: the total still comes
      const past = await agg({ group_by: 'category', offset: 50 })
      expect(past.records).toEqual([])
      expect(past.total).toBe(all.length)
      const none = await agg({ group_by: 'category', limit: 0 })
      expect([none.records, none.total]).toEqual([[], all.length])
    })

    it('answers as CKAN does: objects by default, csv on request', async () => {
      const r = await t.call('datastore_search', { resource_id: id, filters: { region: 'south' }, group_by: 'flag', aggregates: [{ function: 'count' }] })
      const want = await sql(`SELECT flag, count(*) FROM ${T} WHERE region = 'south' GROUP BY flag ORDER BY flag`)
      expect(r.body.result).toMatchObject({
        resource_id: id,
        records: want.map((w) => ({ flag: w[0] === 1, count: w[1] })),
        total: 2,
        total_was_estimated: false,
        limit: 100,
        records_format: 'objects',
        filters: { region: 'south' },
      })
      const csv = await agg({ group_by: 'region', aggregates: [{ function: 'count' }], records_format: 'csv' })
      const rows = await sql(`SELECT region, count(*) FROM ${T} GROUP BY region ORDER BY region`)
      expect(csv.records).toBe(rows.map((w) => `${w[0]},${w[1]}\n`).join(''))
    })

    it('takes JSON strings (and comma separated keys) by GET', async () => {
      const q = new URLSearchParams({
        resource_id: id,
        group_by: JSON.stringify(['region', { column: 'day', bucket: 'year' }]),
        aggregates: JSON.stringify([{ function: 'count' }, { function: 'min', column: 'price', as: 'cheapest' }]),
        filters: JSON.stringify({ category: 'beta' }),
        limit: '4',
      })
      const r = await t.get(`/api/3/action/datastore_search?${q}`)
      expect(r.status).toBe(200)
      const want = await sql(
        `SELECT region, strftime('%Y-01-01', day) y, count(*), min(price) FROM ${T} WHERE category = 'beta' GROUP BY region, y ORDER BY region, y`,
      )
      expect(r.body.result.records).toEqual(want.slice(0, 4).map((w) => ({ region: w[0], day_year: w[1], count: w[2], cheapest: w[3] })))
      expect(r.body.result.total).toBe(want.length)
      expect(r.body.result._links.next).toContain('group_by=')
      expect(r.body.result._links.next).toContain('offset=4')
      // repeated keys and comma separated names
      const plain = await t.get(
        `/api/3/action/datastore_search?resource_id=${id}&group_by=region,flag&aggregates=${encodeURIComponent('{"function": "count"}')}` +
          `&aggregates=${encodeURIComponent('{"function": "avg", "column": "value"}')}&records_format=lists`,
      )
      expect(plain.status).toBe(200)
      const both = await sql(`SELECT region, flag, count(*), avg(value) FROM ${T} GROUP BY region, flag ORDER BY region, flag`)
      expectSame(plain.body.result.records, both.map((w) => [w[0], w[1] === 1, w[2], w[3]]))
      const bad = await t.get(`/api/3/action/datastore_search?resource_id=${id}&aggregates=${encodeURIComponent('[{"function": ')}`)
      expect(bad.body.error).toMatchObject({ __type: 'Validation Error', aggregates: ['Cannot parse JSON'] })
    })

    it(`refuses more than service.datastore.aggregate.max_groups groups, and takes exactly that many`, async () => {
      const over = await refused({ group_by: 'k', aggregates: [{ function: 'count' }] })
      expect(over.group_by[0]).toMatch(/^This query makes more than 100 groups, the limit of service\.datastore\.aggregate\.max_groups/)
      expect((await refused({ group_by: [{ column: 'day', bucket: 'day' }], limit: 5 })).group_by).toHaveLength(1)
      // and also when the page would hold no row
      expect((await refused({ group_by: 'k', limit: 0 })).group_by).toHaveLength(1)
      const exactly = await agg({ group_by: 'k', filters: { k: { lt: 100 } }, aggregates: [{ function: 'count' }], sort: 'count desc', limit: 3 })
      expect(exactly.total).toBe(MAX_GROUPS)
      expectSame(exactly.records, await sql(`SELECT k, count(*) c FROM ${T} WHERE k < 100 GROUP BY k ORDER BY c DESC, k LIMIT 3`))
    })

    it('refuses what makes no sense, field by field', async () => {
      expect(await refused({ group_by: ['nope', { column: 'category', bucket: 'month' }, { column: 'day', bucket: 'hour' }, 'meta', 'tags'] })).toEqual({
        __type: 'Validation Error',
        group_by: [
          'Column "nope" does not exist',
          'Bucket "month" needs a date or timestamp column: "category" is text',
          'Bucket "hour" needs a timestamp column: "day" is date',
          'Column "meta" (json) cannot be grouped: only columns of scalar types can',
          'Column "tags" (_text) cannot be grouped: only columns of scalar types can',
        ],
      })
      expect(
        await refused({
          aggregates: [
            { function: 'sum', column: 'category' },
            { function: 'avg', column: 'ts' },
            { function: 'median', column: 'flag' },
            { function: 'max', column: 'tags' },
            { function: 'count_distinct', column: 'meta' },
            { function: 'min', column: 'missing' },
          ],
        }),
      ).toEqual({
        __type: 'Validation Error',
        aggregates: [
          '"sum" needs a number column: "category" is text',
          '"avg" needs a number column: "ts" is timestamp',
          '"median" needs a number column: "flag" is bool',
          '"max" cannot be applied to "tags" (_text)',
          '"count_distinct" cannot be applied to "meta" (json values have no equality)',
          'Column "missing" does not exist',
        ],
      })
      // checked before the table: shapes, names, and the parameters that cannot go with them
      expect(
        await refused({
          group_by: ['region', { column: 'day', bucket: 'fortnight' }, { bucket: 'day' }, 'region'],
          aggregates: [{ function: 'count' }, { function: 'count', as: 'count' }, { function: 'mode', column: 'k' }, { function: 'avg' }, { function: 'max', column: 'k', as: 'region' }, { function: 'min', column: 'k', as: '_x' }, 'count'],
          distinct: true,
          include_next_page: true,
        }),
      ).toEqual({
        __type: 'Validation Error',
        group_by: [
          '"bucket" must be one of year, quarter, month, week, day, hour: "fortnight"',
          'Missing value: "column" in {"bucket":"day"}',
          'Duplicate output name "region": give one of them another "as"',
        ],
        aggregates: [
          'Unknown function "mode": use count, count_distinct, sum, avg, min, max, median',
          'Missing value: "avg" needs a "column"',
          '"as": "_x" is not a valid field name',
          '"count": Must be a list of {"function": …, "column": …, "as": …} objects',
          'Duplicate output name "count": give one of them another "as"',
          'Duplicate output name "region": give one of them another "as"',
        ],
        distinct: ['distinct cannot be combined with group_by or aggregates: every group is one row already'],
        include_next_page: ['include_next_page pages rows in _id order; groups are paged with offset'],
      })
      expect(await refused({ group_by: 'region', fields: ['region', 'value'], sort: 'rank, count' })).toEqual({
        __type: 'Validation Error',
        fields: ['invalid value "value": with group_by or aggregates, fields are the output columns (region)'],
        sort: [
          'invalid value "rank": with group_by or aggregates, sort by the output columns (region)',
          'invalid value "count": with group_by or aggregates, sort by the output columns (region)',
        ],
      })
      expect((await refused({ aggregates: 'count' })).aggregates).toEqual(['Must be a list of {"function": …, "column": …, "as": …} objects'])
      expect((await refused({ group_by: 5 })).group_by).toEqual(['Must be a list of column names and {"column": …, "bucket": …, "as": …} objects'])
      expect((await refused({ group_by: [{ column: 'day', bucket: 'day', size: 2 }] })).group_by).toEqual(['Unknown key "size" in {"column":"day","bucket":"day","size":2}: use column, bucket and as'])
      const meta = await t.call('datastore_search', { resource_id: '_table_metadata', aggregates: [{ function: 'count' }] })
      expect(meta.body.error).toEqual({ __type: 'Validation Error', group_by: ['group_by and aggregates take a table, not _table_metadata'] })
      // unknown filters are datastore_search's own error
      expect((await refused({ filters: { nope: 1 }, aggregates: [{ function: 'count' }] })).filters).toEqual(['invalid value "nope"'])
    })

    it('gives one row over the whole filtered table without group_by', async () => {
      const r = await agg({ filters: { region: 'west' }, aggregates: [{ function: 'count' }, { function: 'sum', column: 'price' }, { function: 'max', column: 'tstz' }] })
      expect(r.total).toBe(1)
      expect(r.fields).toEqual([{ id: 'count', type: 'int8' }, { id: 'sum_price', type: 'numeric' }, { id: 'max_tstz', type: 'timestamptz' }])
      expectSame(r.records, await sql(`SELECT count(*), sum(price), max(tstz) FROM ${T} WHERE region = 'west'`))
      const empty = await agg({ filters: { region: 'east' }, aggregates: [{ function: 'count' }, { function: 'avg', column: 'value' }] })
      expect([empty.records, empty.total]).toEqual([[[0, null]], 1])
      const paged = await agg({ aggregates: [{ function: 'count' }], offset: 1 })
      expect([paged.records, paged.total]).toEqual([[], 1])
    })

    it('follows the read rules of datastore_search: a private table only to its organization', async () => {
      const org = await t.make.organization(sys)
      const member = await t.make.user()
      const stranger = await t.make.user()
      await t.make.organization(stranger)
      await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
      const pkg = await t.make.dataset(sys, { owner_org: org.id, private: true })
      const created = await t.ok('datastore_create', { resource: { package_id: pkg.id }, fields: [{ id: 'g', type: 'text' }], records: [{ g: 'a' }, { g: 'a' }, { g: 'b' }] }, sys)
      const params = { resource_id: created.resource_id, group_by: 'g', aggregates: [{ function: 'count' }] }
      for (const who of [null, stranger]) {
        const r = await t.call('datastore_search', params, who)
        expect(r.status).toBe(403)
        expect(r.body.error.__type).toBe('Authorization Error')
      }
      // the authorization comes before the checks against the table
      const hidden = await t.call('datastore_search', { ...params, group_by: 'nope' }, stranger)
      expect(hidden.body.error.__type).toBe('Authorization Error')
      const r = await t.call('datastore_search', params, member)
      expect(r.body.result.records).toEqual([{ g: 'a', count: 2 }, { g: 'b', count: 1 }])
    })
  })
}

describe('datastore_search group_by at its read location (service.datastore.read_url)', () => {
  const opened: { close(): void }[] = []
  afterAll(() => opened.forEach((o) => o.close()))

  for (const portable of [false, true]) {
    it(`reads the groups where datastore_search reads (${portable ? 'portable adapter' : 'Node adapter'})`, async () => {
      const base = await setup({}, { portableDatastore: portable })
      const sys = await base.make.sysadmin()
      const pkg = await base.make.dataset(sys)
      const params = { fields: [{ id: 'g', type: 'text' }], records: [{ g: 'a' }, { g: 'b' }] }
      const { resource_id } = await base.ok('datastore_create', { resource: { package_id: pkg.id }, ...params }, sys)
      // a copy of the DataStore as it is now becomes the read location of a second app
      const write = datastoreUrl(undefined, `file:${base.file}`)
      const read = `${tempDir()}/read-copy.db`
      const conn = new Database(write.slice(5))
      conn.exec(`VACUUM INTO '${read}'`)
      conn.close()
      const datastore = portable
        ? clientDatastore(createClient({ url: write }), { reader: clientDatastoreReader(createClient({ url: `file:${read}` })) })
        : await openDatastore(write, undefined, { url: `file:${read}` })
      opened.push(datastore)
      const split = await setup({}, { file: base.file, datastore })
      await split.ok('datastore_upsert', { resource_id, method: 'insert', records: [{ g: 'a' }, { g: 'c' }] }, sys)
      const body = { resource_id, group_by: 'g', aggregates: [{ function: 'count' }] }
      expect((await split.ok('datastore_search', body)).records).toEqual([{ g: 'a', count: 1 }, { g: 'b', count: 1 }])
      expect((await base.ok('datastore_search', body)).records).toEqual([{ g: 'a', count: 2 }, { g: 'b', count: 1 }, { g: 'c', count: 1 }])
    })
  }
})

describe('datastore_search group_by under the time budget (Node adapter)', () => {
  const BUDGET_MS = 25
  const ROWS = 300_000
  let t: TestEnv
  let sys: Caller
  let id: string

  beforeAll(async () => {
    t = await setup({ 'service.action.timeout_ms': String(BUDGET_MS) })
    sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const fields = [{ id: 'g', type: 'int' }, { id: 'v', type: 'float' }]
    id = (await t.ok('datastore_create', { resource: { package_id: pkg.id }, fields }, sys)).resource_id
    await t.deps.datastore!.write([
      {
        sql:
          `INSERT INTO "${id}" (g, v) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${ROWS}) ` +
          'SELECT x % 5000, (x * 7919) % 100003 FROM c',
        args: [],
      },
    ])
  }, 120_000)

  it('stops a slow aggregation at the budget with "Search took too long"', async () => {
    const input = { resource_id: id, group_by: 'g', aggregates: [{ function: 'median', column: 'v' }, { function: 'count_distinct', column: 'v' }], sort: 'median_v desc' }
    // without a budget (the process's own context) it runs well past it
    const started = performance.now()
    const full = (await invoke(systemContext(t.deps), registry.get('datastore_search')!, input)) as { total: number }
    expect(performance.now() - started).toBeGreaterThan(BUDGET_MS * 3)
    expect(full.total).toBe(5000)
    const stopped = performance.now()
    const r = await t.call('datastore_search', input, sys)
    expect(r.body.error).toEqual({ __type: 'Validation Error', query: ['Search took too long'] })
    expect(performance.now() - stopped).toBeLessThan(2000)
  })
})
