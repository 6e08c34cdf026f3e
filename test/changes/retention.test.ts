// Issue 19, the change log kept service.changes.retention_days: older rows are deleted with the next
// search snapshot (never a row the snapshot does not cover, never the newest), the feed refuses a
// cursor from before them, and a process that was idle while rows it had not read were pruned
// drops everything it derived (RESET) instead of serving what it cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import type { Deps } from '../../src/context'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { cursorOf } from '../../src/actions/changes/changes_list'
import { pruneStatement } from '../../src/model/changes'
import { setup, TEST_PROFILE, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let other: Awaited<ReturnType<typeof openCatalogDb>>
let otherDeps: Deps
let otherApp: ReturnType<typeof createApp>

const seqs = async () => (await t.client.execute('SELECT seq FROM change_log ORDER BY seq')).rows.map((r) => Number(r.seq))
const backdateAll = () => t.client.execute("UPDATE change_log SET at = '2000-01-01T00:00:00.000'")
const json = async (res: Response) => (await res.json()) as { success: boolean; result: any; error: any }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  // a second process on the same database file, with its own caches and index
  other = await openCatalogDb(`file:${t.file}`)
  otherDeps = buildDeps(loadConfig(TEST_PROFILE), other.db, { ...other, search: { snapshots: false } })
  await warmUp(otherDeps)
  otherApp = createApp(otherDeps)
})
afterAll(() => {
  other?.close()
  t?.client.close()
})

describe('change-log retention', () => {
  it('prunes rows older than the retention that the snapshot covers, keeps the newest, refuses cursors from before', async () => {
    await t.ok('package_create', { name: 'kept-a', title: 'Kept A' }, sys)
    await t.ok('package_patch', { id: 'kept-a', notes: 'one' }, sys)
    const before = await seqs()
    expect(before.length).toBeGreaterThan(1)
    await backdateAll()
    await t.deps.search.writeSnapshot()
    expect(await seqs()).toEqual([before.at(-1)])
    // a cursor from before the pruned rows (here: every row is older than 90 days)
    const old = await t.call('changes_list', { since: cursorOf(before[0]! - 1) }, sys)
    expect(old.status).toBe(409)
    expect(JSON.stringify(old.body.error)).toMatch(/older than the 90 days/)
    // the cursor of the newest row still reads on
    await t.ok('package_patch', { id: 'kept-a', notes: 'two' }, sys)
    const on = await t.ok('changes_list', { since: cursorOf(before.at(-1)!) }, sys)
    expect(on.changes.map((c: { name: string; change: string }) => [c.name, c.change])).toEqual([['kept-a', 'updated']])
  })

  it('keeps rows younger than the retention, and rows the snapshot does not cover', async () => {
    await backdateAll()
    const backdated = await seqs()
    await t.ok('package_create', { name: 'kept-b' }, sys)
    await t.ok('package_patch', { id: 'kept-b', notes: 'young' }, sys)
    const young = (await seqs()).filter((s) => !backdated.includes(s))
    await t.deps.search.writeSnapshot()
    expect(await seqs()).toEqual(young)
    // a row written after the snapshot's position, however old, is not the snapshot's to prune
    const covered = Number((await t.client.execute('SELECT max(seq) AS s FROM search_snapshot')).rows[0]!.s)
    await t.ok('package_create', { name: 'kept-c' }, sys)
    await t.ok('package_patch', { id: 'kept-c', notes: 'later' }, sys)
    const later = (await seqs()).filter((s) => s > covered)
    await backdateAll()
    const stmt = pruneStatement(90)
    await t.client.execute({ sql: stmt.sql, args: stmt.args })
    expect(await seqs()).toEqual(later)
    // without a snapshot (a process then builds its index from the datasets): every old row but the newest
    await t.client.execute('DELETE FROM search_snapshot')
    await t.client.execute({ sql: stmt.sql, args: stmt.args })
    expect(await seqs()).toEqual([later.at(-1)])
  })

  it('a process that missed pruned rows drops its caches and index rather than serve stale ones', async () => {
    await t.ok('package_create', { name: 'stale-c', title: 'Original title' }, sys)
    // the other process reads (and caches, and indexes) the dataset
    expect((await json(await otherApp.request('/api/3/action/package_show?id=stale-c'))).result.title).toBe('Original title')
    expect((await json(await otherApp.request('/api/3/action/package_search?q=name:stale-c'))).result.count).toBe(1)
    // while it is idle: the dataset changes, something else is written, and the log is pruned
    await t.ok('package_patch', { id: 'stale-c', title: 'Renamed zebra' }, sys)
    await t.ok('package_create', { name: 'newest-d' }, sys)
    await backdateAll()
    await t.deps.search.writeSnapshot()
    expect((await seqs()).length).toBe(1) // the row of the patch is gone
    const shown = await json(await otherApp.request('/api/3/action/package_show?id=stale-c'))
    expect(shown.result.title).toBe('Renamed zebra')
    const found = await json(await otherApp.request('/api/3/action/package_search?q=zebra'))
    expect(found.result.results.map((d: { name: string }) => d.name)).toEqual(['stale-c'])
  })
})
