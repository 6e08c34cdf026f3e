// The README's promises: `npm start` serves from an embedded file; the admin CLI yields a working key.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCommand } from '../../scripts/start-command'
import { tempDir } from '../helpers/temp-dirs'
import { untilListening } from '../helpers/server'

const dir = tempDir('ckan-edge-entry-')
const dbFile = join(dir, 'catalogue.db')
const port = 5900 + Math.floor(Math.random() * 90)
const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, PORT: String(port), HOST: '127.0.0.1' }
let child: ReturnType<typeof spawn>
let output: () => string = () => ''

beforeAll(async () => {
  // exactly what `npm start` runs: the build (into a dir of its own: test files run in parallel;
  // inside the project, so the bundle finds node_modules), then the bundle
  const out = join(process.cwd(), 'dist', `entry-test-${process.pid}`, 'node.mjs')
  const built = spawnSync(process.execPath, ['scripts/build.mjs', out], { encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`)
  const start = startCommand(out)
  child = spawn(process.execPath, start.args, {
    env: { ...env, ...start.env, MIGRATIONS_DIR: join(process.cwd(), 'drizzle') },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  output = await untilListening(child)
})

afterAll(() => {
  child?.kill('SIGTERM')
  rmSync(join(process.cwd(), 'dist', `entry-test-${process.pid}`), { recursive: true, force: true })
})

const base = () => `http://127.0.0.1:${port}`

describe('node entry (npm start)', () => {
  it('serves site_read from an embedded database file', async () => {
    const res = await fetch(`${base()}/api/3/action/site_read`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ success: true, result: true })
    expect(existsSync(dbFile)).toBe(true)
  })

  it('tells on first start how to get a sysadmin', () => {
    expect(output()).toContain('npm run admin -- sysadmin add')
  })

  it('gives a working sysadmin key through the admin CLI', async () => {
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'boss'], {
      env,
      encoding: 'utf8',
    })
    expect(cli.status).toBe(0)
    const key = /API key: (\S+)/.exec(cli.stdout)?.[1]
    expect(key).toBeTruthy()
    // The running server picks the new user up through the change log.
    const res = await fetch(`${base()}/api/3/action/get_site_user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: key! },
      body: '{}',
    })
    const body = await res.json()
    expect(body.success).toBe(true)
    const anon = await fetch(`${base()}/api/3/action/get_site_user`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    expect(anon.status).toBe(403)
  })

  it('refuses a bad name in the admin CLI', () => {
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'Bad Name'], { env, encoding: 'utf8' })
    expect(cli.status).toBe(1)
    expect(cli.stderr).toContain('invalid user name')
  })

  it('prints one JSON line of memory figures to stderr on SIGUSR2', async () => {
    const line = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no memory line')), 10000)
      child.stderr!.on('data', (b: Buffer) => {
        const m = /^memory (\{.*\})$/m.exec(b.toString())
        if (m) {
          clearTimeout(timer)
          resolve(m[1]!)
        }
      })
    })
    child.kill('SIGUSR2')
    const m = JSON.parse(await line)
    expect(m.rss).toBeGreaterThan(0)
    expect(m.heapUsed).toBeGreaterThan(0)
    expect(m.heapSpaces.old_space).toBeGreaterThan(0)
    expect(typeof m.searchLoaded).toBe('boolean')
    expect(child.exitCode).toBe(null)
  })

  // last: it stops the server
  it('saves the search index at SIGTERM when datasets were re-indexed since the last snapshot', async () => {
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'snapper'], { env, encoding: 'utf8' })
    const key = /API key: (\S+)/.exec(cli.stdout)![1]!
    const post = (name: string, body: object) =>
      fetch(`${base()}/api/3/action/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: key },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ success: boolean; result: { count: number } }>)
    for (let i = 0; i < 3; i++) expect((await post('package_create', { name: `snap-${i}` })).success).toBe(true)
    expect((await post('package_search', { q: 'name:snap-*' })).result.count).toBe(3) // indexed
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    const { createClient } = await import('@libsql/client')
    const db = createClient({ url: `file:${dbFile}` })
    const snap = await db.execute('SELECT seq FROM search_snapshot')
    const head = await db.execute('SELECT max(seq) AS seq FROM change_log')
    db.close()
    expect(snap.rows.length).toBeGreaterThan(0)
    expect(Number(snap.rows[0]!.seq)).toBe(Number(head.rows[0]!.seq))
  })
})
