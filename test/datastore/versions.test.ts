// Table versions (beyond CKAN) over the action API on both DataStore adapters: each write batch
// makes a version; datastore_search as_of answers every version exactly as it was seen then,
// datastore_diff the difference of two, datastore_versions_list the list; retention and refusals.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { startReplacement } from '../../src/datastore/replace'
import { parseType } from '../../src/datastore/column-types'
import { CURRENT, parseRetention, pruneVersions, upgradeHistoryTables } from '../../src/datastore/versions'

type Rec = Record<string, unknown>
interface Snapshot {
  version: number
  timestamp: string
  fields: { id: string; type: string }[]
  records: Rec[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

for (const portable of [false, true]) {
  describe(`table versions (${portable ? 'portable adapter' : 'Node adapter'})`, () => {
    let t: TestEnv
    let sys: Caller
    let id: string
    const snaps: Snapshot[] = []

    async function snapshot() {
      const r = await t.ok('datastore_search', { resource_id: id, limit: 1000 }, sys)
      const list = await t.ok('datastore_versions_list', { resource_id: id, limit: 1 }, sys)
      const v = list.versions[0]
      expect(v.version).toBe(list.current_version)
      expect(snaps.every((s) => s.version < v.version)).toBe(true)
      snaps.push({ version: v.version, timestamp: v.timestamp, fields: r.fields, records: r.records })
      await sleep(3) // distinct timestamps per version
    }

    const upsert = (records: Rec[], method = 'upsert') =>
      t.ok('datastore_upsert', { resource_id: id, records, method }, sys)

    beforeAll(async () => {
      t = await setup({}, { portableDatastore: portable })
      sys = await t.make.sysadmin()
      const pkg = await t.make.dataset(sys)
      const created = await t.ok(
        'datastore_create',
        {
          resource: { package_id: pkg.id },
          versioned: true,
          fields: [
            { id: 'k', type: 'int' },
            { id: 'name', type: 'text' },
            { id: 'n', type: 'float' },
          ],
          primary_key: ['k'],
          records: [1, 2, 3, 4, 5].map((k) => ({ k, name: `row ${k}`, n: k * 1.5 })),
        },
        sys,
      )
      id = created.resource_id
      await snapshot() // 1: created with rows
      await upsert([{ k: 2, name: 'two' }, { k: 3, n: 30.25 }, { k: 6, name: 'six', n: 6 }])
      await snapshot() // 2: two rows changed, one added
      await t.ok('datastore_delete', { resource_id: id, filters: { k: 4 } }, sys)
      await snapshot() // 3: one removed
      await t.ok(
        'datastore_create',
        {
          resource_id: id,
          fields: [{ id: 'k' }, { id: 'name' }, { id: 'n' }, { id: 'extra', type: 'text' }],
          records: [{ k: 7, name: 'seven', n: 7, extra: 'x' }],
        },
        sys,
      )
      await snapshot() // 4: a column added, a row added
      await upsert([{ k: 1, name: 'one', extra: 'e1' }, { k: 2, name: 'two' }, { k: 8, name: 'eight' }])
      await upsert([{ k: 8, name: 'EIGHT' }, { k: 9, name: 'nine', n: 9 }], 'upsert')
      await snapshot() // 6 (5 is not snapshot: checked through diff and the list only)
      await t.ok(
        'datastore_create',
        { resource_id: id, fields: [{ id: 'k' }, { id: 'name' }, { id: 'extra' }], delete_fields: true },
        sys,
      )
      await snapshot() // 7: column n dropped
      await t.ok('datastore_delete', { resource_id: id, filters: { k: [1, 9] } }, sys)
      await upsert([{ k: 3, name: 'three', extra: 'e3' }])
      await snapshot() // 9
      // a reload by the loader: every row superseded, new _ids after the old ones
      const db = t.deps.datastore!
      const rep = await startReplacement(
        db,
        id,
        [{ id: 'k', type: 'int4' }, { id: 'name', type: 'text' }, { id: 'score', type: 'numeric' }],
        [parseType('int4')!, parseType('text')!, parseType('numeric')!],
        t.deps.now,
      )
      await rep.insert([{ k: 1, name: 'reloaded one', score: 1 }, { k: 2, name: 'reloaded two', score: 2.5 }])
      await rep.commit()
      await snapshot() // 10: loaded
      await upsert([{ k: 2, score: 3 }, { k: 5, name: 'five again', score: 5 }])
      await snapshot() // 11
    })

    it('answers datastore_search as_of every version as it was (by number and by timestamp)', async () => {
      expect(snaps.map((s) => s.version)).toEqual([1, 2, 3, 4, 6, 7, 9, 10, 11])
      for (const s of snaps) {
        for (const asOf of [s.version, String(s.version), s.timestamp]) {
          const r = await t.ok('datastore_search', { resource_id: id, limit: 1000, as_of: asOf }, sys)
          expect({ v: s.version, fields: r.fields, records: r.records }).toEqual({ v: s.version, fields: s.fields, records: s.records })
          expect(r.version).toBe(s.version)
        }
      }
    })

    it('keeps a dropped column at the earlier versions and leaves a later one out of them', async () => {
      const v3 = snaps.find((s) => s.version === 3)!
      expect(v3.fields.map((f) => f.id)).toEqual(['_id', 'k', 'name', 'n'])
      const v9 = snaps.find((s) => s.version === 9)!
      expect(v9.fields.map((f) => f.id)).toEqual(['_id', 'k', 'name', 'extra'])
      // _ids keep growing across the load
      const v11 = snaps.at(-1)!
      const maxBefore = Math.max(...v9.records.map((r) => Number(r._id)))
      expect(v11.records.every((r) => Number(r._id) > maxBefore)).toBe(true)
    })

    it('applies filters, sort, fields, limit and offset to the version', async () => {
      const s = snaps.find((x) => x.version === 4)!
      const r = await t.ok(
        'datastore_search',
        { resource_id: id, as_of: 4, filters: { n: { gte: 3 } }, sort: 'n desc', fields: 'k,n', limit: 2, offset: 1, include_total: true },
        sys,
      )
      const want = s.records
        .filter((x) => Number(x.n) >= 3)
        .sort((a, b) => Number(b.n) - Number(a.n))
      expect(r.records).toEqual(want.slice(1, 3).map((x) => ({ k: x.k, n: x.n })))
      expect(r.total).toBe(want.length)
      const g = await t.ok('datastore_search', { resource_id: id, as_of: 2, aggregates: [{ function: 'count' }] }, sys)
      expect(g.records).toEqual([{ count: snaps[1]!.records.length }])
      const f = await t.ok('datastore_search', { resource_id: id, as_of: 2, filters: { k: { gte: 2 } }, group_by: 'name', aggregates: [{ function: 'count' }], include_total: true }, sys)
      const names = snaps[1]!.records.filter((r) => Number(r.k) >= 2).map((r) => r.name)
      expect(f.total).toBe(new Set(names).size)
      expect(f.records.reduce((a: number, r: Rec) => a + Number(r.count), 0)).toBe(names.length)
    })

    /** The diff of two kept snapshots: rows by _id, changed on the columns both have. */
    function expectedDiff(x: Snapshot, y: Snapshot) {
      const ids = (s: Snapshot) => s.fields.map((f) => f.id).filter((c) => c !== '_id')
      const common = ids(x).filter((c) => ids(y).includes(c))
      const was = new Map(x.records.map((r) => [Number(r._id), r]))
      const now = new Map(y.records.map((r) => [Number(r._id), r]))
      const all = [...new Set([...was.keys(), ...now.keys()])].sort((p, q) => p - q)
      const out = { added: [] as Rec[], changed: [] as Rec[], removed: [] as Rec[] }
      for (const i of all) {
        const r = was.get(i)
        const n = now.get(i)
        if (r && !n) out.removed.push(r)
        else if (!r && n) out.added.push(n)
        else if (common.some((c) => JSON.stringify(r![c]) !== JSON.stringify(n![c])))
          out.changed.push({ _id: i, before: r, after: n })
      }
      return out
    }

    it('counts filtered rows as_of every version as the snapshot holds them', async () => {
      // the count of a filter on columns the table still has is arithmetic over the history (see
      // versions.ts); one on a dropped column reads the rows: both against the snapshots
      const filters: [Rec, (r: Rec) => boolean][] = [
        [{ k: { gte: 3 } }, (r) => Number(r.k) >= 3],
        [{ name: 'two' }, (r) => r.name === 'two'],
        [{ k: [1, 2, 3, 8] }, (r) => [1, 2, 3, 8].includes(Number(r.k))],
        [{ _id: { gt: 2 } }, (r) => Number(r._id) > 2],
        [{ k: { lt: 3 }, name: { gte: 'r' } }, (r) => Number(r.k) < 3 && String(r.name ?? '') >= 'r'],
      ]
      for (const s of snaps) {
        const has = new Set(s.fields.map((f) => f.id))
        const cases = [...filters]
        if (has.has('n')) cases.push([{ n: { gt: 4 } }, (r) => r.n !== null && Number(r.n) > 4])
        for (const [filter, keep] of cases) {
          const want = s.records.filter(keep)
          const r = await t.ok('datastore_search', { resource_id: id, as_of: s.version, filters: filter, limit: 1, include_total: true }, sys)
          expect({ v: s.version, filter, total: r.total, first: r.records[0] }).toEqual({ v: s.version, filter, total: want.length, first: want[0] })
        }
      }
    })

    it('answers datastore_diff between any two versions as the difference of what was seen', async () => {
      for (const x of snaps)
        for (const y of snaps) {
          if (y.version < x.version) continue
          const d = await t.ok('datastore_diff', { resource_id: id, from: x.version, to: y.version, limit: 1000 }, sys)
          const label = `${x.version}→${y.version}`
          expect({ label, added: d.added, changed: d.changed, removed: d.removed }).toEqual({ label, ...expectedDiff(x, y) })
          expect(d.next_after).toBeNull()
        }
      const d = await t.ok('datastore_diff', { resource_id: id, from: snaps[2]!.timestamp, to: 9 }, sys)
      expect([d.from, d.to, d.fields_added, d.fields_removed]).toEqual([3, 9, [{ id: 'extra', type: 'text' }], [{ id: 'n', type: 'float8' }]])
    })

    it('pages datastore_diff by _id, every change once', async () => {
      for (const [from, to] of [[1, 11], [1, 9], [2, 6]] as const) {
        const want = expectedDiff(snaps.find((s) => s.version === from)!, snaps.find((s) => s.version === to)!)
        for (const limit of [1, 2, 3]) {
          const got = { added: [] as Rec[], changed: [] as Rec[], removed: [] as Rec[] }
          let after = 0
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThan(50)
            const d = await t.ok('datastore_diff', { resource_id: id, from, to, limit, after }, sys)
            expect(d.added.length + d.changed.length + d.removed.length).toBeLessThanOrEqual(limit)
            got.added.push(...d.added)
            got.changed.push(...d.changed)
            got.removed.push(...d.removed)
            if (d.next_after === null) break
            after = d.next_after
          }
          expect(got).toEqual(want)
        }
      }
    })

    it('refuses datastore_diff from a later version than to, and unknown versions', async () => {
      const r = await t.call('datastore_diff', { resource_id: id, from: 5, to: 2 }, sys)
      expect(r.body.error).toMatchObject({ __type: 'Validation Error', to: [expect.stringMatching(/before version 5/)] })
      const u = await t.call('datastore_diff', { resource_id: id, from: 1, to: 99 }, sys)
      expect(u.body.error.to[0]).toMatch(/does not exist yet/)
      const m = await t.call('datastore_diff', { resource_id: id, to: 2 }, sys)
      expect(m.body.error.from).toEqual(['Missing value'])
    })

    it('dumps a version with as_of (/datastore/dump) as datastore_search answers it', async () => {
      for (const s of snaps) {
        const r = await t.get(`/datastore/dump/${id}?format=jsonl&as_of=${s.version}`, sys)
        expect(r.status).toBe(200)
        const rows = r.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Rec)
        expect({ v: s.version, rows }).toEqual({ v: s.version, rows: s.records })
      }
      const csv = await t.get(`/datastore/dump/${id}?as_of=${encodeURIComponent(snaps[0]!.timestamp)}`, sys)
      expect(csv.text.split(/\r?\n/)[0]).toBe('_id,k,name,n')
      const bad = await t.get(`/datastore/dump/${id}?as_of=99`, sys)
      expect([bad.status, bad.text]).toEqual([400, expect.stringMatching(/^as_of: Version 99 does not exist yet/)])
    })

    it('lists the versions newest first with their kind and row counts', async () => {
      const list = await t.ok('datastore_versions_list', { resource_id: id }, sys)
      expect(list.current_version).toBe(11)
      expect(list.total).toBe(11)
      expect(list.versions.map((v: Rec) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
      const byV = new Map(list.versions.map((v: Rec) => [v.version, v]))
      expect(byV.get(1)).toMatchObject({ kind: 'create', total: 5, added: 5, changed: 0, removed: 0 })
      expect(byV.get(2)).toMatchObject({ kind: 'upsert', total: 6, added: 1, changed: 2, removed: 0 })
      expect(byV.get(3)).toMatchObject({ kind: 'delete', total: 5, added: 0, changed: 0, removed: 1 })
      expect(byV.get(10)).toMatchObject({ kind: 'load', total: 2, added: 2, removed: 6 })
      for (const s of snaps) expect((byV.get(s.version) as Rec).total).toBe(s.records.length)
      const page = await t.ok('datastore_versions_list', { resource_id: id, limit: 3, offset: 2 }, sys)
      expect(page.versions.map((v: Rec) => v.version)).toEqual([9, 8, 7])
    })

    it('refuses unknown and future versions, timestamps and unversioned tables', async () => {
      const bad = async (params: Rec, field = 'as_of') => {
        const r = await t.call('datastore_search', { resource_id: id, ...params }, sys)
        expect(r.status).toBe(409)
        expect(r.body.error.__type).toBe('Validation Error')
        expect(r.body.error[field]?.[0]).toBeTruthy()
        return r.body.error[field][0] as string
      }
      expect(await bad({ as_of: 12 })).toMatch(/does not exist yet/)
      expect(await bad({ as_of: '2999-01-01T00:00:00' })).toMatch(/future/)
      expect(await bad({ as_of: 'yesterday' })).toMatch(/neither/)
      expect(await bad({ as_of: '2000-01-01' })).toMatch(/No version/)
      expect(await bad({ as_of: 2, q: 'two' })).toMatch(/q and full_text/)
      const plain = await t.ok('datastore_create', { resource: { package_id: (await t.make.dataset(sys)).id }, records: [{ a: 1 }] }, sys)
      const r = await t.call('datastore_search', { resource_id: plain.resource_id, as_of: 1 }, sys)
      expect(r.body.error.as_of[0]).toMatch(/not versioned/)
    })

    it('refuses the versions of a private table to strangers', async () => {
      const org = await t.make.organization(sys)
      const member = await t.make.user()
      const stranger = await t.make.user()
      await t.make.organization(stranger)
      await t.ok('organization_member_create', { id: org.id, username: member.name, role: 'member' }, sys)
      const pkg = await t.make.dataset(sys, { owner_org: org.id, private: true })
      const created = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, records: [{ a: 1 }] }, sys)
      await t.ok('datastore_upsert', { resource_id: created.resource_id, method: 'insert', records: [{ a: 2 }] }, sys)
      const calls: [string, Rec][] = [
        ['datastore_versions_list', { resource_id: created.resource_id }],
        ['datastore_search', { resource_id: created.resource_id, as_of: 1 }],
        ['datastore_diff', { resource_id: created.resource_id, from: 1, to: 2 }],
      ]
      for (const [name, params] of calls) {
        for (const who of [null, stranger]) {
          const r = await t.call(name, params, who)
          expect(r.status).toBe(403)
          expect(r.body.error.__type).toBe('Authorization Error')
        }
        expect((await t.call(name, params, member)).body.success).toBe(true)
      }
    })
  })
}

describe('service.datastore.versions.retention', () => {
  it('keeps the last N versions and refuses as_of a pruned one', async () => {
    const t = await setup({ 'service.datastore.versions.retention': '3' })
    const sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const { resource_id } = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, primary_key: 'k', records: [{ k: 1, v: 'a' }, { k: 2, v: 'b' }] }, sys)
    const seen: Rec[][] = []
    for (const v of ['c', 'd', 'e', 'f']) {
      seen.push((await t.ok('datastore_search', { resource_id }, sys)).records)
      await t.ok('datastore_upsert', { resource_id, records: [{ k: 1, v }] }, sys)
    }
    const list = await t.ok('datastore_versions_list', { resource_id }, sys)
    expect(list.versions.map((v: Rec) => v.version)).toEqual([5, 4, 3])
    const r = await t.call('datastore_search', { resource_id, as_of: 2 }, sys)
    expect(r.body.error.as_of[0]).toMatch(/not kept: the oldest version kept is 3/)
    expect((await t.ok('datastore_search', { resource_id, as_of: 3 }, sys)).records).toEqual(seen[2])
    // the row images only the pruned versions needed are gone: the images current at versions 3
    // and 4 stay, with the row's current one
    const { rows } = await t.deps.datastore!.query(`SELECT _v_from, _v_to, v FROM "_hist_${resource_id}" ORDER BY _v_to`)
    expect(rows.map((r) => [...r])).toEqual([[3, 3, 'd'], [4, 4, 'e'], [5, CURRENT, 'f']])
  })

  it('reads "N" as versions and "Nd" as days, and keeps the version current at the cutoff', async () => {
    expect([parseRetention(''), parseRetention('30'), parseRetention('30d'), parseRetention('x')]).toEqual([{}, { versions: 30 }, { days: 30 }, {}])
    const t = await setup()
    const sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const { resource_id } = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, primary_key: 'k', records: [{ k: 1, v: 'a' }] }, sys)
    for (const v of ['b', 'c']) await t.ok('datastore_upsert', { resource_id, records: [{ k: 1, v }] }, sys)
    const list = await t.ok('datastore_versions_list', { resource_id }, sys)
    const last = String(list.versions[0].timestamp)
    // 30 days after the last write: only the version current then is kept
    const later = new Date(Date.parse(last + 'Z') + 31 * 86400_000).toISOString().slice(0, 23) + '000'
    await pruneVersions(t.deps.datastore!, resource_id, '30d', later)
    const kept = await t.ok('datastore_versions_list', { resource_id }, sys)
    expect(kept.versions.map((v: Rec) => v.version)).toEqual([3])
    expect((await t.ok('datastore_search', { resource_id, as_of: 3 }, sys)).records).toEqual([{ _id: 1, k: 1, v: 'c' }])
  })

  it('stops versioning and drops the history with versioned: false', async () => {
    const t = await setup({}, { portableDatastore: true })
    const sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const { resource_id } = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, primary_key: 'k', records: [{ k: 1, v: 'a' }] }, sys)
    await t.ok('datastore_upsert', { resource_id, records: [{ k: 1, v: 'b' }] }, sys)
    expect((await t.ok('datastore_info', { id: resource_id }, sys)).meta).toEqual({ count: 1, versioned: true, version: 2 })
    await t.ok('datastore_create', { resource_id, versioned: false }, sys)
    expect((await t.ok('datastore_info', { id: resource_id }, sys)).meta).toEqual({ count: 1 })
    await t.ok('datastore_upsert', { resource_id, records: [{ k: 1, v: 'c' }] }, sys)
    const r = await t.call('datastore_versions_list', { resource_id }, sys)
    expect(r.body.error.resource_id[0]).toMatch(/not versioned/)
    const { rows } = await t.deps.datastore!.query(
      'SELECT count(*) FROM sqlite_schema WHERE name IN (?, ?, ?, ?)',
      [`_hist_${resource_id}`, `_hidx_${resource_id}`, `_trg_${resource_id}_hupd`, `_trg_${resource_id}_hdel`],
    )
    expect(Number(rows[0]![0])).toBe(0)
    expect((await t.ok('datastore_search', { resource_id }, sys)).records).toEqual([{ _id: 1, k: 1, v: 'c' }])
  })

  it('rewrites a history kept in the first form (JSON images) when the DataStore opens', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const { resource_id: id } = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, primary_key: 'k', indexes: 'v', records: [{ k: 1, v: 'a' }, { k: 2, v: 'b' }, { k: 3, v: 'c' }] }, sys)
    await t.ok('datastore_upsert', { resource_id: id, records: [{ k: 1, v: 'a2' }, { k: 4, v: 'd' }] }, sys)
    await t.ok('datastore_delete', { resource_id: id, filters: { k: 2 } }, sys)
    await t.ok('datastore_upsert', { resource_id: id, records: [{ k: 1, v: 'a3' }, { k: 3, v: 'c2' }] }, sys)
    const seen = async () => {
      const out: unknown[] = []
      for (const v of [1, 2, 3, 4])
        for (const filters of [{}, { v: 'a2' }, { k: { gte: 2 } }])
          out.push(await t.ok('datastore_search', { resource_id: id, as_of: v, filters, limit: 1, include_total: true }, sys))
      return out
    }
    const before = await seen()
    // the first form: superseded images only, as JSON, closed at the last version they were current in
    const db = t.deps.datastore!
    const h = `"_hist_${id}"`
    await db.write(
      [
        `DROP TRIGGER "_trg_${id}_hupd"`,
        `DROP TRIGGER "_trg_${id}_hdel"`,
        `CREATE TABLE "_old" AS SELECT _id, _v_to, json_object('k', k, 'v', v) AS _row FROM ${h} WHERE _v_to < ${CURRENT}`,
        `DROP TABLE ${h}`,
        `CREATE TABLE ${h} (_id INTEGER NOT NULL, _v_to INTEGER NOT NULL, _row TEXT NOT NULL, PRIMARY KEY (_id, _v_to)) WITHOUT ROWID`,
        `CREATE INDEX "_hidx_${id}" ON ${h} (_v_to)`,
        `INSERT INTO ${h} SELECT * FROM "_old"`,
        'DROP TABLE "_old"',
      ].map((sql) => ({ sql, args: [] })),
    )
    await upgradeHistoryTables(db)
    const { rows } = await db.query('SELECT _id, _v_from, _v_to, k, v FROM ' + h + ' ORDER BY _id, _v_to')
    expect(rows.map((r) => [...r])).toEqual([
      [1, 0, 1, 1, 'a'],
      [1, 2, 3, 1, 'a2'],
      [1, 4, CURRENT, 1, 'a3'],
      [2, 0, 2, 2, 'b'],
      [3, 0, 3, 3, 'c'],
      [3, 4, CURRENT, 3, 'c2'],
    ])
    expect(await seen()).toEqual(before)
    // the triggers are back: a later change is kept
    await t.ok('datastore_upsert', { resource_id: id, records: [{ k: 4, v: 'd2' }] }, sys)
    expect((await t.ok('datastore_search', { resource_id: id, as_of: 4, filters: { k: 4 } }, sys)).records).toEqual([{ _id: 4, k: 4, v: 'd' }])
    expect((await db.query('SELECT count(*) FROM sqlite_schema WHERE name LIKE ?', [`_hist_old_%`])).rows[0]![0]).toBe(0)
  })

  it('seeks deep pages as_of a version through the table and gives the rows a walk would', async () => {
    const t = await setup()
    const sys = await t.make.sysadmin()
    const pkg = await t.make.dataset(sys)
    const records = Array.from({ length: 1500 }, (_, i) => ({ k: i + 1, odd: (i + 1) % 2, v: `v${i + 1}` }))
    const { resource_id } = await t.ok('datastore_create', { resource: { package_id: pkg.id }, versioned: true, primary_key: 'k', indexes: 'odd', records }, sys)
    const seen: { version: number; records: Rec[] }[] = []
    const snap = async () => {
      const r = await t.ok('datastore_search', { resource_id, limit: 5000 }, sys)
      const list = await t.ok('datastore_versions_list', { resource_id, limit: 1 }, sys)
      seen.push({ version: list.current_version, records: r.records })
    }
    await snap()
    // changes spread over the table: updates, deletes (rows the table no longer has), inserts
    await t.ok('datastore_upsert', { resource_id, records: Array.from({ length: 60 }, (_, i) => ({ k: i * 23 + 5, v: 'changed', odd: 0 })) }, sys)
    await t.ok('datastore_delete', { resource_id, filters: { k: Array.from({ length: 80 }, (_, i) => i * 17 + 3) } }, sys)
    await snap()
    await t.ok('datastore_upsert', { resource_id, records: Array.from({ length: 40 }, (_, i) => ({ k: 2000 + i, odd: 1, v: 'new' })) }, sys)
    await t.ok('datastore_delete', { resource_id, filters: { odd: 1, k: { lt: 700 } } }, sys)
    await snap()
    for (const s of seen)
      for (const [filters, keep] of [[{}, () => true], [{ odd: 1 }, (r: Rec) => r.odd === 1], [{ k: { gt: 200 } }, (r: Rec) => Number(r.k) > 200]] as [Rec, (r: Rec) => boolean][]) {
        const want = s.records.filter(keep)
        for (const offset of [500, 640, 900, 1300]) {
          const r = await t.ok('datastore_search', { resource_id, as_of: s.version, filters, offset, limit: 30, include_total: true }, sys)
          expect({ v: s.version, filters, offset, total: r.total, records: r.records }).toEqual({ v: s.version, filters, offset, total: want.length, records: want.slice(offset, offset + 30) })
        }
      }
  })
})
