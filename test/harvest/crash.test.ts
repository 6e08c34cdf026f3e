// A harvest run whose worker process is killed (kill -9) during import: restarted, it finishes with
// every remote dataset imported exactly once.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { useListHarvester } from '../helpers/harvest'

useListHarvester()

const N = 300
let t: TestEnv
let server: { url: string; close: () => Promise<void> }
const children: ChildProcess[] = []

beforeAll(async () => {
  const datasets = Array.from({ length: N }, (_, i) => ({
    guid: `remote-${i}`,
    dataset: {
      name: `crash-${i}`,
      title: `Dataset ${i}`,
      resources: [{ url: `http://example.com/${i}.csv`, format: 'CSV' }],
      tags: [{ name: `tag-${i % 7}` }],
    },
  }))
  server = await listen(new Hono().get('/all.json', (c) => c.json({ datasets })) as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
})

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await server.close()
})

function startWorker(): { child: ChildProcess; output: () => string; exited: Promise<unknown> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/harvest-worker.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: `file:${t.file}`,
      SERVICE__JOBS__LEASE_SECONDS: '2',
      SERVICE__JOBS__POLL_MS: '50',
      SERVICE__LOADER__ALLOW_PRIVATE_URLS: 'true',
      SERVICE__STORAGE_PATH: join(t.file, '..', 'uploads'),
      HARVEST_TEST_DELAY_MS: '15',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()))
  return { child, output: () => out, exited: new Promise((r) => child.once('exit', r)) }
}

const count = async (sql: string, args: (string | number)[] = []) =>
  Number((await t.client.execute({ sql, args })).rows[0]![0])

async function waitFor(check: () => Promise<boolean>, ms: number, what: () => string) {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out: ${what()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('a harvest worker killed during import', () => {
  it('is finished by the next worker, each remote dataset imported once', async () => {
    const sys = await t.make.sysadmin()
    const source = await t.ok('harvest_source_create', { name: 'crash-src', url: `${server.url}/all.json`, source_type: 'test_list' }, sys)
    const job = await t.ok('harvest_job_create', { source_id: source.id }, sys)

    const first = startWorker()
    const settled = () => count(`SELECT count(*) FROM harvest_object WHERE harvest_job_id = ? AND state = 'COMPLETE'`, [job.id])
    await waitFor(async () => (await settled()) >= 20, 60_000, first.output)
    first.child.kill('SIGKILL')
    await first.exited
    const before = await settled()
    expect(before).toBeGreaterThanOrEqual(20)
    expect(before).toBeLessThan(N)
    expect((await t.ok('harvest_job_show', { id: job.id }, sys)).status).toBe('Running')

    const second = startWorker()
    await waitFor(
      async () => (await t.ok('harvest_job_show', { id: job.id }, sys)).status === 'Finished',
      60_000,
      second.output,
    )
    const shown = await t.ok('harvest_job_show', { id: job.id }, sys)
    expect(shown.stats).toEqual({ added: N, updated: 0, 'not modified': 0, errored: 0, deleted: 0 })
    // one local dataset per remote one: no copies under other names, every object current once
    expect(await count(`SELECT count(*) FROM package WHERE type = 'dataset' AND state = 'active'`)).toBe(N)
    expect(await count(`SELECT count(*) FROM package WHERE name LIKE 'crash-%-%'`)).toBe(0)
    expect(await count(`SELECT count(DISTINCT package_id) FROM harvest_object WHERE current = 1`)).toBe(N)
    expect(await count(`SELECT count(*) FROM harvest_object WHERE harvest_job_id = ?`, [job.id])).toBe(N)
    const search = await t.ok('package_search', { q: 'name:crash-*', rows: 0 })
    expect(search.count).toBe(N)
    second.child.kill('SIGTERM')
    await second.exited
  }, 150_000)
})
