// Snapshots: a cold process loads the stored index and replays only the change log after it.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { createApp } from '../../src/app'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { decodeSnapshot, encodeSnapshot } from '../../src/search/snapshot'
import { MemoryIndex } from '../../src/search/minisearch'
import { indexDocument } from '../../src/search/document'
import { parseQ } from '../../src/search/query'
import { setup, TEST_PROFILE } from '../helpers/setup'

async function secondProcess(file: string) {
  const { db, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${file}`)
  const deps = buildDeps(loadConfig(TEST_PROFILE), db, { headProbe, writeExecutor, readExecutor })
  await warmUp(deps)
  const app = createApp(deps)
  const search = async (params: object) => {
    const res = await app.request('/api/3/action/package_search', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    })
    return (await res.json()).result
  }
  return { deps, search }
}

describe('search snapshots', () => {
  it('round-trips an index through the binary form', async () => {
    const opts = { siteId: 's', vocabularyName: () => undefined, extraResourceFields: [] }
    const idx = new MemoryIndex()
    for (let i = 0; i < 50; i++) {
      idx.put(
        indexDocument(
          { id: `id-${i}`, name: `n-${i}`, title: `Title ${i} water`, notes: `notes ${i}`, state: 'active', private: i % 7 === 0, tags: [{ name: `t${i % 3}` }], metadata_modified: `2020-01-0${(i % 9) + 1}T00:00:00.000000` },
          opts,
        ),
      )
    }
    idx.remove('id-3')
    const back = MemoryIndex.restore(decodeSnapshot(encodeSnapshot(idx.snapshot())))
    expect(back.size).toBe(49)
    expect(back.has('id-3')).toBe(false)
    const vis = { states: ['active'], includePrivate: true, labels: null }
    const sort = [{ field: 'score', direction: 'desc' as const }, { field: 'metadata_modified', direction: 'desc' as const }]
    // exact values come back sorted under new ids: lookups, ranges, wildcards and facets agree
    for (const q of ['water', 'title:5', 'tags:t1', '*:*', 'metadata_modified:[2020-01-03T00:00:00Z TO *]', 'name:n-17', 'name:[n-2 TO n-4]', 'name:n-4*', 'id:id-49']) {
      const req = { q: parseQ(q), filters: [], visibility: vis, sort, start: 0, rows: 100, facet: { fields: ['tags'], limit: -1, mincount: 1 } }
      expect(await back.search(req)).toEqual(await idx.search(req))
    }
    expect(() => decodeSnapshot(new Uint8Array(16))).toThrow()
  })

  it('a cold process loads the snapshot and applies the writes made after it', async () => {
    const t = await setup()
    const admin = await t.make.sysadmin()
    for (const n of ['alpha', 'bravo', 'charlie']) await t.ok('package_create', { name: n, title: `${n} river` }, admin)
    expect((await t.ok('package_search', { q: 'river' })).count).toBe(3)
    await t.deps.search.writeSnapshot()
    const [row] = await t.deps.read('SELECT COUNT(*) AS n, MAX(seq) AS seq FROM search_snapshot')
    expect(Number(row!.n)).toBeGreaterThan(0)

    // after the snapshot: one more, one changed, one deleted
    await t.ok('package_create', { name: 'delta', title: 'delta river' }, admin)
    await t.ok('package_patch', { id: 'alpha', title: 'alpha lake' }, admin)
    await t.ok('package_delete', { id: 'bravo' }, admin)

    const cold = await secondProcess(t.file)
    const r = await cold.search({ q: 'river', sort: 'name asc' })
    expect(r.results.map((d: { name: string }) => d.name)).toEqual(['charlie', 'delta'])
    expect((await cold.search({ q: 'lake' })).results.map((d: { name: string }) => d.name)).toEqual(['alpha'])
  })

  it('is written once the process has had no change for a while, catching up first', async () => {
    const t = await setup()
    const admin = await t.make.sysadmin()
    const { db, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${t.file}`)
    let bulk = 0
    const search = { idleSnapshotMs: 150, afterBulkWork: () => bulk++ }
    const deps = buildDeps(loadConfig(TEST_PROFILE), db, { headProbe, writeExecutor, readExecutor, search })
    await warmUp(deps)
    const app = createApp(deps)
    const call = (name: string, params: object) =>
      app.request(`/api/3/action/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: admin.apikey },
        body: JSON.stringify(params),
      })
    await call('package_search', {}) // the index is loaded
    await call('package_search', {})
    expect(bulk).toBe(1) // once the load is done, not on every search
    await call('package_create', { name: 'foxtrot', title: 'foxtrot river' })
    await call('package_create', { name: 'golf', title: 'golf river' })
    const snapshotSeq = async () => Number((await deps.read('SELECT MAX(seq) AS seq FROM search_snapshot'))[0]!.seq ?? 0)
    expect(await snapshotSeq()).toBe(0) // nothing written while changes keep coming
    await new Promise((r) => setTimeout(r, 600))
    const [head] = await deps.read("SELECT MAX(seq) AS seq FROM change_log WHERE entity_type = 'package'")
    expect(await snapshotSeq()).toBeGreaterThanOrEqual(Number(head!.seq)) // caught up without a search, then written
    expect(bulk).toBe(2) // and after the idle snapshot
    const cold = await secondProcess(t.file)
    expect((await cold.search({ q: 'river', sort: 'name asc' })).results.map((d: { name: string }) => d.name)).toEqual(['foxtrot', 'golf'])
  })

  it('a snapshot that cannot be read is ignored: the index is rebuilt from the datasets', async () => {
    const t = await setup()
    const admin = await t.make.sysadmin()
    await t.ok('package_create', { name: 'echo', title: 'echo river' }, admin)
    await t.client.execute({ sql: 'INSERT INTO search_snapshot (chunk, seq, created, data) VALUES (0, 1, ?, ?)', args: ['x', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])] })
    const cold = await secondProcess(t.file)
    expect((await cold.search({ q: 'echo' })).count).toBe(1)
  })
})
