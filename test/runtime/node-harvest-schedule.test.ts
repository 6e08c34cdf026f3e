// `npm start` runs harvest sources by their frequency: a source set to ALWAYS gets jobs from the
// server's own timer (no harvest_job_create), a MANUAL one none.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { startCommand } from '../../scripts/start-command'
import { tempDir } from '../helpers/temp-dirs'
import { listen, untilListening } from '../helpers/server'

const dir = tempDir('ckan-edge-harvest-schedule-')
const port = 6100 + Math.floor(Math.random() * 90)
const out = join(process.cwd(), 'dist', `harvest-schedule-${process.pid}`, 'node.mjs')
const env = {
  ...process.env,
  DATABASE_URL: `file:${join(dir, 'catalogue.db')}`,
  PORT: String(port),
  HOST: '127.0.0.1',
  MIGRATIONS_DIR: join(process.cwd(), 'drizzle'),
  SERVICE__HARVEST__SCHEDULE_SECONDS: '1',
  SERVICE__JOBS__POLL_MS: '100',
  SERVICE__LOADER__ALLOW_PRIVATE_URLS: 'true',
}
const dataJson = readFileSync('test/fixtures/harvest/data.json', 'utf8')
let child: ReturnType<typeof spawn>
let remote: { url: string; close: () => Promise<void> }

beforeAll(async () => {
  remote = await listen(new Hono().get('/:file{.+\\.json}', (c) => c.body(dataJson, 200, { 'content-type': 'application/json' })) as never)
  const built = spawnSync(process.execPath, ['scripts/build.mjs', out], { encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`)
  const start = startCommand(out)
  child = spawn(process.execPath, start.args, { env: { ...env, ...start.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  await untilListening(child)
}, 60_000)

afterAll(async () => {
  child?.kill('SIGTERM')
  await remote?.close()
  rmSync(join(process.cwd(), 'dist', `harvest-schedule-${process.pid}`), { recursive: true, force: true })
})

describe('the Node server and harvest frequencies', () => {
  it('runs an ALWAYS source by itself, never a MANUAL one', async () => {
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'harvester'], { env, encoding: 'utf8' })
    const key = /API key: (\S+)/.exec(cli.stdout)![1]!
    const call = async (action: string, body: object) => {
      const r = await fetch(`http://127.0.0.1:${port}/api/3/action/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: key },
        body: JSON.stringify(body),
      })
      const json = (await r.json()) as { success: boolean; result: any; error?: unknown }
      if (!json.success) throw new Error(`${action}: ${JSON.stringify(json.error)}`)
      return json.result
    }
    await call('harvest_source_create', { name: 'by-itself', url: `${remote.url}/data.json`, source_type: 'dcat_json', frequency: 'ALWAYS' })
    await call('harvest_source_create', { name: 'by-hand', url: `${remote.url}/manual.json`, source_type: 'dcat_json' })
    const until = Date.now() + 30_000
    let status: any
    for (;;) {
      status = await call('harvest_source_show_status', { id: 'by-itself' })
      if (status.job_count >= 2 && status.last_job?.status === 'Finished') break
      if (Date.now() > until) throw new Error(`no scheduled runs: ${JSON.stringify(status)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(status.total_datasets).toBeGreaterThan(0)
    expect((await call('harvest_source_show_status', { id: 'by-hand' })).job_count).toBe(0)
  }, 60_000)
})
