// The `ckan_changes` harvester against a second instance of this app: a first full listing, then
// runs that follow the remote's change feed (updates, deletions, datasets made private), and the
// fall back to a full listing when the remote no longer takes the cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest } from '../helpers/harvest'

type Caller = { apikey: string; id: string; name: string }
let remote: TestEnv
let rsys: Caller
let srv: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: Caller

beforeAll(async () => {
  remote = await setup()
  rsys = await remote.make.sysadmin()
  srv = await listen(remote.app)
  t = await setup({ 'service.loader.allow_private_urls': 'true', 'service.harvest.page_size': '2' })
  sys = await t.make.sysadmin()
})
afterAll(() => srv.close())

/** The guids (as remote names) and report statuses of a job's objects. */
async function objectsOf(jobId: string) {
  const rows = await t.deps.read('SELECT guid, report_status FROM harvest_object WHERE harvest_job_id = ?', [jobId])
  const names = new Map<string, string>()
  for (const r of await remote.deps.read('SELECT id, name FROM package')) names.set(String(r.id), String(r.name))
  return rows.map((r) => `${names.get(String(r.guid)) ?? r.guid}:${r.report_status}`).sort()
}

const live = async (id: string) => {
  const r = await t.call('package_show', { id }, sys)
  return r.status === 200 && r.body.result.state === 'active'
}

describe('the ckan_changes harvester', () => {
  it('lists everything first, then follows the change feed', async () => {
    const org = await remote.ok('organization_create', { name: 'feed-org' }, rsys)
    const make = (name: string, more: object = {}) => remote.ok('package_create', { name, owner_org: org.id, ...more }, rsys)
    for (const name of ['c-1', 'c-2', 'c-3', 'c-4', 'c-5']) await make(name)
    await make('c-hidden', { private: true })

    const local = await t.ok('organization_create', { name: 'mirror' }, sys)
    await t.ok('harvest_source_create', { name: 'feed', url: srv.url, source_type: 'ckan_changes', owner_org: local.id }, sys)
    let job = await runHarvest(t, 'feed', sys)
    expect(job.stats).toMatchObject({ added: 5, errored: 0 })
    expect(await live('c-hidden')).toBe(false)
    const [first] = await t.deps.read('SELECT cursor FROM harvest_job WHERE id = ?', [job.id])
    expect(first!.cursor).toBeTruthy()

    // nothing changed: nothing gathered
    job = await runHarvest(t, 'feed', sys)
    expect(await objectsOf(job.id)).toEqual([])

    await remote.ok('package_patch', { id: 'c-1', title: 'Changed' }, rsys)
    await remote.ok('resource_create', { package_id: 'c-2', url: 'http://example.com/new.csv', name: 'New' }, rsys)
    await remote.ok('package_delete', { id: 'c-3' }, rsys)
    await remote.ok('package_patch', { id: 'c-4', private: true }, rsys)
    await remote.ok('package_patch', { id: 'c-hidden', notes: 'still private' }, rsys)
    await make('c-6')
    job = await runHarvest(t, 'feed', sys)
    expect(await objectsOf(job.id)).toEqual(['c-1:updated', 'c-2:updated', 'c-3:deleted', 'c-4:deleted', 'c-6:added'])
    expect((await t.ok('package_show', { id: 'c-1' })).title).toBe('Changed')
    expect((await t.ok('package_show', { id: 'c-2' })).resources.map((r: { name: string }) => r.name)).toEqual(['New'])
    expect(await live('c-3')).toBe(false)
    expect(await live('c-4')).toBe(false)
    expect(await live('c-hidden')).toBe(false)
    expect((await t.ok('package_show', { id: 'c-6' })).owner_org).toBe(local.id)

    // public again, then purged on the remote
    await remote.ok('package_patch', { id: 'c-4', private: false }, rsys)
    const purged = (await remote.ok('package_show', { id: 'c-5' })).id
    await remote.ok('dataset_purge', { id: 'c-5' }, rsys)
    job = await runHarvest(t, 'feed', sys)
    expect(await objectsOf(job.id)).toEqual([`${purged}:deleted`, 'c-4:updated'].sort())
    expect(await live('c-4')).toBe(true)
    expect(await live('c-5')).toBe(false)
  })

  it('lists everything again when the remote refuses the cursor', async () => {
    await remote.ok('package_patch', { id: 'c-1', title: 'Changed again' }, rsys)
    // the last run's cursor is not one the remote knows
    await t.deps.writer.write([
      { sql: `UPDATE harvest_job SET cursor = 'bm90LWEtY3Vyc29y' WHERE source_id = (SELECT id FROM package WHERE name = 'feed')`, args: [] },
    ])
    let job = await runHarvest(t, 'feed', sys)
    // c-1 changed; c-2, c-4 and c-6 listed unchanged
    expect(job.stats).toMatchObject({ updated: 1, 'not modified': 3, errored: 0, deleted: 0 })
    const logs = await t.ok('harvest_log_list', { limit: 50, offset: 0 }, sys)
    expect(JSON.stringify(logs)).toMatch(/refused the change feed cursor.*listing every dataset again/)
    const [row] = await t.deps.read('SELECT cursor FROM harvest_job WHERE id = ?', [job.id])
    expect(row!.cursor).not.toBe('bm90LWEtY3Vyc29y')

    // a cursor older than what the remote keeps: its log pruned past it
    await remote.ok('package_patch', { id: 'c-2', title: 'Two' }, rsys)
    await remote.ok('package_patch', { id: 'c-6', title: 'Six' }, rsys)
    await remote.deps.writer.write([{ sql: 'DELETE FROM change_log WHERE seq < (SELECT max(seq) FROM change_log)', args: [] }])
    job = await runHarvest(t, 'feed', sys)
    expect(job.stats).toMatchObject({ updated: 2, 'not modified': 2, errored: 0 })
    expect(JSON.stringify(await t.ok('harvest_log_list', { limit: 50, offset: 0 }, sys))).toMatch(/older than the 90 days/)
    // and the next run follows the feed again
    await remote.ok('package_patch', { id: 'c-4', title: 'Four' }, rsys)
    job = await runHarvest(t, 'feed', sys)
    expect(await objectsOf(job.id)).toEqual(['c-4:updated'])
  })

  it('reports a remote without a change feed as a gather error', async () => {
    await t.ok('harvest_source_create', { name: 'nofeed', url: `${srv.url}/nowhere`, source_type: 'ckan_changes' }, sys)
    const job = await runHarvest(t, 'nofeed', sys)
    expect(job.status).toBe('Finished')
    const report = await t.ok('harvest_job_report', { id: job.id }, sys)
    expect(report.gather_errors[0].message).toMatch(/changes_list.* answered HTTP 404/)
  })
})
