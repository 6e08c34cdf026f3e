// A harvest run end to end with the test harvester: added, unchanged, updated, deleted, errors.
import { describe, expect, it, beforeAll, afterAll } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest, useListHarvester } from '../helpers/harvest'

useListHarvester()

let feed: { datasets: { guid: string; dataset: Record<string, unknown> }[] } = { datasets: [] }
let server: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: { apikey: string }

beforeAll(async () => {
  const remote = new Hono().get('/list.json', (c) => c.json(feed))
  server = await listen(remote as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
})
afterAll(() => server.close())

describe('a harvest run', () => {
  it('adds, keeps, updates and deletes', async () => {
    const org = await t.ok('organization_create', { name: 'harv-org' }, sys)
    const source = await t.ok(
      'harvest_source_create',
      { name: 'list-src', url: `${server.url}/list.json`, source_type: 'test_list', owner_org: org.id },
      sys,
    )
    expect(source.source_type).toBe('test_list')
    feed = {
      datasets: [
        { guid: 'a', dataset: { name: 'h-a', title: 'A' } },
        { guid: 'b', dataset: { name: 'h-b', title: 'B' } },
      ],
    }
    let job = await runHarvest(t, 'list-src', sys)
    expect(job.status).toBe('Finished')
    expect(job.stats).toMatchObject({ added: 2, updated: 0, 'not modified': 0, deleted: 0, errored: 0 })
    const a = await t.ok('package_show', { id: 'h-a' })
    expect(a.owner_org).toBe(org.id)
    expect(a.extras.find((e: { key: string }) => e.key === 'harvest_source_id').value).toBe(source.id)

    feed.datasets[1]!.dataset.title = 'B2'
    feed.datasets.push({ guid: 'c', dataset: { name: 'h-c', fail: 'remote record unreadable' } })
    job = await runHarvest(t, 'list-src', sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 1, 'not modified': 1, errored: 1 })
    expect((await t.ok('package_show', { id: 'h-b' })).title).toBe('B2')
    const report = await t.ok('harvest_job_report', { id: job.id }, sys)
    const errs = Object.values(report.object_errors) as { guid: string; errors: { message: string }[] }[]
    expect(errs.map((e) => [e.guid, e.errors[0]!.message])).toEqual([['c', 'remote record unreadable']])

    feed.datasets = feed.datasets.filter((d) => d.guid !== 'a' && d.guid !== 'c')
    job = await runHarvest(t, 'list-src', sys)
    expect(job.stats).toMatchObject({ deleted: 1, 'not modified': 1 })
    expect((await t.call('package_show', { id: 'h-a' })).body.result?.state ?? 'gone').not.toBe('active')
    const status = await t.ok('harvest_source_show_status', { id: 'list-src' })
    expect(status.total_datasets).toBe(1)
    expect(status.job_count).toBe(3)
  })
})
