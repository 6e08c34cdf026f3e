// Two server processes on one catalogue file (issue 35): rate limits shared (the counters live in
// ratelimit.db beside it, so a caller's requests count once whichever process answers), and usage
// figures each process counts flushed by its own timer into the one catalogue.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/temp-dirs'
import { untilListening } from '../helpers/server'

const dir = tempDir('ckan-edge-limits-')
const dbFile = join(dir, 'catalogue.db')
const basePort = 20000 + Math.floor(Math.random() * 10000)
const children: ReturnType<typeof spawn>[] = []

function start(port: number): Promise<void> {
  const env = {
    ...process.env,
    DATABASE_URL: `file:${dbFile}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    SERVICE__RATELIMIT__ENABLED: 'true',
    SERVICE__RATELIMIT__WINDOW_SECONDS: '3600',
    SERVICE__RATELIMIT__ANONYMOUS__READS: '6',
    SERVICE__JOBS__CONCURRENCY: '0',
    SERVICE__TRACKING_ENABLED: 'true',
    SERVICE__TRACKING__FLUSH_SECONDS: '1',
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/node.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return untilListening(child).then(() => undefined)
}

const a = `http://127.0.0.1:${basePort}`
const b = `http://127.0.0.1:${basePort + 1}`

let key = ''

beforeAll(async () => {
  await start(basePort) // migrates the new file first
  await start(basePort + 1)
  const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'boss'], {
    env: { ...process.env, DATABASE_URL: `file:${dbFile}` },
    encoding: 'utf8',
  })
  key = /API key: (\S+)/.exec(cli.stdout)?.[1] ?? ''
}, 90000)

afterAll(() => {
  for (const c of children) c.kill('SIGTERM')
})

describe('two Node processes, one limit', () => {
  it('counts an address once across both processes, and refuses it on either past the limit', async () => {
    const remaining: string[] = []
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${i % 2 ? b : a}/api/3/action/site_read`)
      statuses.push(res.status)
      remaining.push(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1] ?? '')
      await res.arrayBuffer()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0', '0', '0'])
    expect(existsSync(join(dir, 'ratelimit.db'))).toBe(true)
  })

  it('holds under concurrent requests to both: exactly the limit gets through', async () => {
    // a new class (searches: 120 by default) so the count starts at zero
    const all = await Promise.all(
      Array.from({ length: 160 }, (_, i) => fetch(`${i % 2 ? b : a}/api/3/action/package_search?rows=0`).then(async (r) => (await r.arrayBuffer(), r.status))),
    )
    expect(all.filter((s) => s === 200)).toHaveLength(120)
    expect(all.filter((s) => s === 429)).toHaveLength(40)
  })
})

describe('usage figures from two processes', () => {
  it('adds up what each process counted, flushed by its own timer', async () => {
    const post = async (base: string, name: string, body: object) => {
      const res = await fetch(`${base}/api/3/action/${name}`, {
        method: 'POST',
        // a sysadmin (not rate limited) with a robot's user agent: not counted
        headers: { 'content-type': 'application/json', authorization: key, 'user-agent': 'test-bot' },
        body: JSON.stringify(body),
      })
      const json = await res.json()
      expect(json.success, JSON.stringify(json)).toBe(true)
      return json.result
    }
    const ds = await post(a, 'package_create', { name: 'used-by-two' })
    // three visitors (one address, three browsers) on each process; the rate limit allows them
    for (const base of [a, b])
      for (const agent of ['Firefox/140', 'Chrome/140', 'Safari/18']) {
        const res = await fetch(`${base}/dataset/used-by-two`, { headers: { 'user-agent': `Mozilla/5.0 ${agent}`, authorization: key } })
        expect(res.status).toBe(200)
        await res.arrayBuffer()
      }
    let figures: { total: number; page_views: { total: number } } | undefined
    for (let i = 0; i < 40 && figures?.total !== 6; i++) {
      await new Promise((r) => setTimeout(r, 250))
      figures = (await post(b, 'package_show', { id: ds.id, include_tracking: true })).tracking_summary
    }
    expect(figures).toMatchObject({ total: 6, page_views: { total: 6 } })
  })
})
