// Issue 34 item 2, column profiles: datastore_info include_profile answers what the profile job
// stored for the table's version; every figure checked against SQL of our own over the same rows;
// stale while recomputing after a write, never computed in the request, one job per burst of
// writes, estimated above the exact bound, gone with the table, refused to whoever may not read
// it; on the Node and the portable (Workers) DataStore adapters.
import { describe, expect, it } from 'vitest'
import { jobKinds } from '../../src/jobs/kinds'
import { drain } from '../../src/jobs/runner'
import { computeProfile, HISTOGRAM_BINS } from '../../src/datastore/profile'
import { findTable } from '../../src/datastore/registry'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>

const CATS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu']

function rowsOf(n: number, from = 0) {
  return Array.from({ length: n }, (_, k) => {
    const i = k + from
    return {
      n: i,
      cat: CATS[(i * 7) % (i % 3 === 0 ? 12 : 5)]!,
      price: i % 9 === 0 ? null : Math.round(((i * 37) % 1000) * 1.25) / 100,
      day: i % 11 === 0 ? null : `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      at: `2025-01-01T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      ok: i % 4 === 0,
      tags: [`t${i % 3}`],
      note: i % 5 === 0 ? null : `note ${i % 40}`,
    }
  })
}

const FIELDS = [
  { id: 'n', type: 'int' },
  { id: 'cat', type: 'text' },
  { id: 'price', type: 'numeric' },
  { id: 'day', type: 'date' },
  { id: 'at', type: 'timestamp' },
  { id: 'ok', type: 'bool' },
  { id: 'tags', type: '_text' },
  { id: 'note', type: 'text' },
]

async function table(t: TestEnv, admin: Caller, rows: number, extra: Dict = {}) {
  const ds = await t.make.dataset(admin, extra)
  const r = await t.ok('datastore_create', { resource: { package_id: ds.id, name: 'm' }, fields: FIELDS, records: rowsOf(rows) }, admin)
  return r.resource_id as string
}

const runJobs = (t: TestEnv) => drain(t.deps.jobs, jobKinds, t.deps)
const profileOf = async (t: TestEnv, id: string, as?: Caller) => (await t.ok('datastore_info', { id, include_profile: true }, as)).profile

/** Our own SQL over the table, through the DataStore's database. */
async function sql(t: TestEnv, q: string, args: unknown[] = []): Promise<any[][]> {
  return (await t.deps.datastore!.query(q, args as never)).rows
}
/** The first row of our own SQL. */
const one = async (t: TestEnv, q: string, args: unknown[] = []): Promise<any[]> => (await sql(t, q, args))[0]!

for (const portable of [false, true]) {
  describe(`column profiles (${portable ? 'portable adapter' : 'Node adapter'})`, () => {
    it('answers every figure as SQL computes it over the same rows', async () => {
      const t = await setup({}, { portableDatastore: portable })
      const admin = await t.make.sysadmin()
      const id = await table(t, admin, 3000)
      expect((await profileOf(t, id, admin)).status).toBe('pending')
      await runJobs(t)
      const p = await profileOf(t, id, admin)
      expect(p).toMatchObject({ status: 'current', rows: 3000 })
      expect(p.version).toBe(p.table_version)
      const col = (name: string) => p.columns.find((c: Dict) => c.id === name)
      const q = `"${id}"`
      for (const f of FIELDS) {
        const c = col(f.id)
        const [count, distinct] = await one(t, `SELECT count("${f.id}"), count(DISTINCT "${f.id}") FROM ${q}`)
        expect(c, f.id).toMatchObject({ id: f.id, count: Number(count), null_count: 3000 - Number(count), distinct: Number(distinct) })
        expect(c.distinct_estimated).toBeUndefined()
      }
      // min, max, mean
      const [pmin, pmax, pavg] = await one(t, `SELECT min(price), max(price), avg(price) FROM ${q}`)
      expect(col('price')).toMatchObject({ min: Number(pmin), max: Number(pmax) })
      expect(col('price').mean).toBeCloseTo(Number(pavg), 9)
      const [dmin, dmax] = await one(t, `SELECT min(day), max(day) FROM ${q}`)
      expect(col('day')).toMatchObject({ min: dmin, max: dmax })
      expect(col('n')).toMatchObject({ min: 0, max: 2999 })
      expect(col('n').mean).toBeCloseTo(1499.5, 9)
      expect(col('cat').mean).toBeUndefined()
      expect(col('tags').min).toBeUndefined()
      // the most frequent values: as a GROUP BY orders them
      const top = await sql(t, `SELECT cat, count(*) AS k FROM ${q} GROUP BY cat ORDER BY k DESC, cat LIMIT 10`)
      expect(col('cat').top).toEqual(top.map(([value, k]) => ({ value, count: Number(k) })))
      const okTop = await sql(t, `SELECT ok, count(*) AS k FROM ${q} GROUP BY ok ORDER BY k DESC, ok`)
      expect(col('ok').top).toEqual(okTop.map(([v, k]) => ({ value: Number(v) === 1, count: Number(k) })))
      expect(col('tags').top.map((x: Dict) => x.value)).toEqual([['t0'], ['t1'], ['t2']])
      // every value different: nothing worth listing
      expect(col('n').top).toEqual([])
      // histograms: equal-width bins over [min, max], counted here from every value
      const prices = (await sql(t, `SELECT price FROM ${q} WHERE price IS NOT NULL`)).map(([v]) => Number(v))
      const [lo, hi] = [Math.min(...prices), Math.max(...prices)]
      const expected = new Array(HISTOGRAM_BINS).fill(0)
      for (const v of prices) expected[Math.min(HISTOGRAM_BINS - 1, Math.floor((v - lo) / ((hi - lo) / HISTOGRAM_BINS)))]++
      const h = col('price').histogram
      expect(h.map((b: Dict) => b.count)).toEqual(expected)
      expect(h[0].from).toBe(lo)
      expect(h[HISTOGRAM_BINS - 1].to).toBe(hi)
      const days = col('day').histogram
      expect(days.reduce((s: number, b: Dict) => s + b.count, 0)).toBe(col('day').count)
      expect(days[0].from).toBe(dmin)
      expect(days[HISTOGRAM_BINS - 1].to).toBe(dmax)
      expect(col('at').histogram[0].from).toBe('2025-01-01T00:00:00')
      expect(col('cat').histogram).toBeUndefined()
    })

    it('is stale after a write until its job ran again, and one job serves a burst of writes', async () => {
      const t = await setup({}, { portableDatastore: portable })
      const admin = await t.make.sysadmin()
      const id = await table(t, admin, 200)
      await runJobs(t)
      const before = await profileOf(t, id, admin)
      const profileJobs = async () => (await t.deps.jobs.list()).filter((j) => j.kind === 'datastore_profile')
      // within the cool-down after a profile, writes ask for none
      await t.ok('datastore_upsert', { resource_id: id, method: 'insert', force: true, records: rowsOf(10, 1000) }, admin)
      expect(await profileJobs()).toHaveLength(0)
      // past it, the next write does; a burst of writes makes one job
      await t.deps.datastore!.write([{ sql: `UPDATE _ds_profile SET computed = '2020-01-01T00:00:00.000000' WHERE table_id = ?`, args: [id] }])
      for (let i = 1; i < 5; i++)
        await t.ok('datastore_upsert', { resource_id: id, method: 'insert', force: true, records: rowsOf(10, 1000 + i * 10) }, admin)
      expect(await profileJobs()).toHaveLength(1)
      // the write answered without the profile: the old one is served, marked stale
      const stale = await profileOf(t, id, admin)
      expect(stale).toMatchObject({ status: 'stale', version: before.version, rows: 200 })
      expect(stale.table_version).toBeGreaterThan(before.version)
      expect(await profileJobs()).toHaveLength(1)
      await runJobs(t)
      const now = await profileOf(t, id, admin)
      expect(now).toMatchObject({ status: 'current', rows: 250 })
      // a dry run writes nothing and asks for nothing
      await t.ok('datastore_upsert', { resource_id: id, method: 'insert', force: true, dry_run: true, records: rowsOf(1, 5000) }, admin)
      expect((await t.deps.jobs.list()).filter((j) => j.kind === 'datastore_profile')).toHaveLength(0)
      // rows deleted by filter, in the cool-down: stale, and the first request for it queues the job
      await t.ok('datastore_delete', { resource_id: id, force: true, filters: { cat: 'alpha' } }, admin)
      expect(await profileJobs()).toHaveLength(0)
      expect((await profileOf(t, id, admin)).status).toBe('stale')
      expect(await profileJobs()).toHaveLength(1)
      await runJobs(t)
      const [left] = await one(t, `SELECT count(*) FROM "${id}"`)
      expect((await profileOf(t, id, admin)).rows).toBe(Number(left))
    })

    it('estimates distinct counts and frequent values from a sample above the exact bound', async () => {
      const t = await setup({ 'service.datastore.profile.exact_rows': '1000' }, { portableDatastore: portable })
      const admin = await t.make.sysadmin()
      const id = await table(t, admin, 6000)
      await runJobs(t)
      const p = await profileOf(t, id, admin)
      const note = p.columns.find((c: Dict) => c.id === 'note')
      const [exact] = await one(t, `SELECT count(DISTINCT note) FROM "${id}"`)
      expect(note.distinct_estimated).toBe(true)
      expect(note.top_estimated).toBe(true)
      // 6,000 rows are under the sample size: the sample is every row, and GEE is exact
      expect(note.distinct).toBe(Number(exact))
      // a real sample (1 row in 6): GEE within its error ratio sqrt(n/r) of the truth, counts scaled
      const dsTable = (await findTable(t.deps.datastore!, id))!
      const sampled = await computeProfile(t.deps.datastore!, dsTable, { exactRows: 1000, sampleRows: 1000 })
      for (const name of ['note', 'cat', 'n', 'price']) {
        const c = sampled.columns.find((x) => x.id === name)!
        const [truth] = await one(t, `SELECT count(DISTINCT "${name}") FROM "${id}"`)
        const ratio = Math.sqrt(6)
        expect(c.distinct, name).toBeGreaterThanOrEqual(Number(truth) / ratio)
        expect(c.distinct, name).toBeLessThanOrEqual(Number(truth) * ratio)
      }
      const cat = sampled.columns.find((x) => x.id === 'cat')!
      expect(cat.top_estimated).toBe(true)
      for (const { count } of cat.top) expect(count % 6).toBe(0)
      const [alpha] = await one(t, `SELECT count(*) FROM "${id}" WHERE cat = 'alpha'`)
      const est = cat.top.find((x) => x.value === 'alpha')!.count
      expect(Math.abs(est - Number(alpha)) / Number(alpha)).toBeLessThan(0.2)
      const n = p.columns.find((c: Dict) => c.id === 'n')
      expect(n.distinct).toBe(6000)
      // counts and nulls stay exact
      expect(n.count).toBe(6000)
    })

    it('goes with its table, and a new table under the same id starts without one', async () => {
      const t = await setup({}, { portableDatastore: portable })
      const admin = await t.make.sysadmin()
      const id = await table(t, admin, 50)
      await runJobs(t)
      expect((await profileOf(t, id, admin)).status).toBe('current')
      await t.ok('datastore_delete', { resource_id: id, force: true }, admin)
      expect(await sql(t, 'SELECT count(*) FROM _ds_profile WHERE table_id = ?', [id])).toEqual([[0]])
      await t.ok('datastore_create', { resource_id: id, force: true, fields: [{ id: 'x', type: 'int' }], records: [{ x: 1 }] }, admin)
      expect((await profileOf(t, id, admin)).status).toBe('pending')
    })
  })
}

describe('who may see a profile', () => {
  it('refuses a private table to an anonymous caller and to another organization, and a job profiles only what exists', async () => {
    const t = await setup()
    const admin = await t.make.sysadmin()
    const org = await t.make.organization(admin)
    const outsider = await t.make.user()
    const id = await table(t, admin, 100, { owner_org: org.id, private: true })
    await runJobs(t)
    for (const as of [null, outsider]) {
      const r = await t.call('datastore_info', { id, include_profile: true }, as)
      expect(r.status, JSON.stringify(r.body)).toBe(403)
      expect(JSON.stringify(r.body)).not.toContain('columns')
    }
    expect((await profileOf(t, id, admin)).status).toBe('current')
  })

  it('moves the ETag when a profile is stored, though neither the log nor the table moved', async () => {
    const t = await setup()
    const admin = await t.make.sysadmin()
    const id = await table(t, admin, 100)
    const get = () => t.app.request(`/api/3/action/datastore_info?id=${id}&include_profile=true`)
    const first = await get()
    expect(((await first.json()) as Dict).result.profile.status).toBe('pending')
    const tag = first.headers.get('etag')!
    expect((await t.app.request(`/api/3/action/datastore_info?id=${id}&include_profile=true`, { headers: { 'if-none-match': tag } })).status).toBe(304)
    await runJobs(t)
    const again = await t.app.request(`/api/3/action/datastore_info?id=${id}&include_profile=true`, { headers: { 'if-none-match': tag } })
    expect(again.status).toBe(200)
    expect(((await again.json()) as Dict).result.profile.status).toBe('current')
  })
})
