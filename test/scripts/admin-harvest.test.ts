// `npm run admin -- harvest …` as a process: the sources, a run against a local server in the CLI's
// own process (progress on stderr, the report on stdout, exit 1 when the job had errors), a
// waiting job taken over from the queue, clearing a source, stopping a job, and the help text.
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { useListHarvester } from '../helpers/harvest'

useListHarvester() // for the actions this file calls; the CLI preloads it (test/fixtures/harvest)

let feed: { datasets: { guid: string; dataset: Record<string, unknown> }[] } = { datasets: [] }
let remote: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: Caller
let org: { id: string }

beforeAll(async () => {
  remote = await listen(new Hono().get('/list.json', (c) => c.json(feed)).get('/private.json', (c) => c.json({ datasets: [] })) as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
  org = await t.ok('organization_create', { name: 'cli-harvest-org' }, sys)
})
afterAll(() => remote.close())

function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/fixtures/harvest/list-harvester.ts', 'scripts/admin.ts', ...args], {
    env: { ...process.env, DATABASE_URL: `file:${t.file}`, SERVICE__LOADER__ALLOW_PRIVATE_URLS: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr.on('data', (b: Buffer) => (err += b.toString()))
  return new Promise((r) => child.once('exit', (code) => r({ code, out, err })))
}

describe('admin harvest', () => {
  it('lists the sources, private ones included', async () => {
    expect((await cli('harvest', 'sources')).out).toContain('No harvest sources.')
    await t.ok('harvest_source_create', { name: 'cli-feed', url: `${remote.url}/list.json`, source_type: 'test_list', frequency: 'DAILY', owner_org: org.id }, sys)
    await t.ok('harvest_source_create', { name: 'cli-private', url: `${remote.url}/private.json`, source_type: 'test_list', owner_org: org.id, private: true }, sys)
    const r = await cli('harvest', 'sources')
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n')
    expect(lines[0]).toMatch(/^NAME\s+TYPE\s+FREQUENCY\s+LAST JOB\s+URL$/)
    expect(lines.find((l) => l.startsWith('cli-feed'))).toMatch(/^cli-feed\s+test_list\s+DAILY\s+-\s+http:\/\/127\.0\.0\.1:\d+\/list\.json$/)
    expect(r.out).toContain('cli-private')
  }, 60_000)

  it('runs a source in the process: progress, the report, exit 1 with errors', async () => {
    feed = {
      datasets: [
        { guid: 'c-1', dataset: { name: 'cli-one', title: 'One' } },
        { guid: 'c-2', dataset: { name: 'cli-two', title: 'Two' } },
        { guid: 'c-bad', dataset: { name: 'cli-bad', fail: 'cannot read this record' } },
      ],
    }
    const r = await cli('harvest', 'run', 'cli-feed')
    expect(r.err).toMatch(/Importing cli-feed: 3\/3 objects/)
    expect(r.out).toMatch(/Job \S+ of cli-feed: Finished in [\d.]+ s/)
    expect(r.out).toContain('2 added, 0 updated, 0 not modified, 0 deleted, 1 errored')
    expect(r.out).toContain('Object errors:\n  c-bad: cannot read this record (Import)')
    expect(r.code).toBe(1)
    expect((await t.ok('package_show', { id: 'cli-one' })).title).toBe('One')
    // no queued stage is left behind for the runners
    const jobs = await t.ok('harvest_job_list', { source_id: 'cli-feed' }, sys)
    expect(jobs).toHaveLength(1)
    expect(await t.deps.read(`SELECT id FROM job WHERE status = 'queued'`)).toEqual([])
    expect((await cli('harvest', 'sources')).out).toMatch(/cli-feed\s+test_list\s+DAILY\s+Finished/)
  }, 60_000)

  it('takes over the waiting job of the queue, and exits 0 without errors', async () => {
    feed.datasets = feed.datasets.filter((d) => d.guid !== 'c-bad')
    feed.datasets[0]!.dataset.title = 'One again'
    const waiting = await t.ok('harvest_job_create', { source_id: 'cli-feed' }, sys)
    const r = await cli('harvest', 'run', 'cli-feed')
    expect(r.out).toContain(`Job ${waiting.id} of cli-feed: Finished`)
    expect(r.out).toContain('0 added, 1 updated, 1 not modified, 0 deleted, 0 errored')
    expect(r.out).not.toContain('errors:')
    expect(r.code).toBe(0)
    expect(await t.deps.read(`SELECT id FROM job WHERE status = 'queued'`)).toEqual([])
    expect((await t.ok('package_show', { id: 'cli-one' })).title).toBe('One again')
  }, 60_000)

  it('stops a waiting job, and clears a source', async () => {
    const waiting = await t.ok('harvest_job_create', { source_id: 'cli-feed', run: false }, sys)
    const stopped = await cli('harvest', 'job-abort', 'cli-feed')
    expect(stopped.code).toBe(0)
    expect(stopped.out).toContain(`Stopped job ${waiting.id}`)
    expect((await t.ok('harvest_job_show', { id: waiting.id }, sys)).status).toBe('Aborted')
    expect((await cli('harvest', 'job-abort', 'cli-feed')).code).toBe(1)

    const cleared = await cli('harvest', 'clear', 'cli-feed')
    expect(cleared.code).toBe(0)
    expect(cleared.out).toContain('Cleared cli-feed')
    expect(await t.ok('harvest_source_show_status', { id: 'cli-feed' })).toMatchObject({ job_count: 0, total_datasets: 0 })
    expect((await t.call('package_show', { id: 'cli-one' })).status).toBe(404)
  }, 60_000)

  it('says what is wrong: an unknown source, a missing argument, and the help', async () => {
    const unknown = await cli('harvest', 'run', 'no-such-source')
    expect(unknown.code).toBe(1)
    expect(unknown.err).toContain('Harvest source not found')
    const bare = await cli('harvest', 'run')
    expect(bare.code).toBe(2)
    expect(bare.err).toContain('npm run admin -- harvest run SOURCE')
    const help = await cli('help')
    expect(help.code).toBe(0)
    expect(help.out).toContain('npm run admin -- harvest sources')
    expect(help.out).toMatch(/exits 1 if the job recorded any\s+error/)
  }, 60_000)
})
