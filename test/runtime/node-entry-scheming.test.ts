// `npm start` with scheming options: the schemas load from their files, a dataset of a schema type
// is checked over a real socket, the snapshot Workers read is stored; a broken schema file stops
// the start with the file and field named.
import { spawn, spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCommand } from '../../scripts/start-command'
import { tempDir } from '../helpers/temp-dirs'
import { untilListening } from '../helpers/server'

const dir = tempDir('ckan-edge-entry-scheming-')
const dbFile = join(dir, 'catalogue.db')
const port = 6000 + Math.floor(Math.random() * 90)
const out = join(process.cwd(), 'dist', `entry-scheming-${process.pid}`, 'node.mjs')
const env = {
  ...process.env,
  DATABASE_URL: `file:${dbFile}`,
  PORT: String(port),
  HOST: '127.0.0.1',
  MIGRATIONS_DIR: join(process.cwd(), 'drizzle'),
  SCHEMING__DATASET_SCHEMAS: 'test/fixtures/scheming/dataset.yaml',
}
let child: ReturnType<typeof spawn>
let output: () => string = () => ''

beforeAll(async () => {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', out], { encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`)
  const start = startCommand(out)
  child = spawn(process.execPath, start.args, { env: { ...env, ...start.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  output = await untilListening(child)
}, 60_000)

afterAll(() => {
  child?.kill('SIGTERM')
  rmSync(join(process.cwd(), 'dist', `entry-scheming-${process.pid}`), { recursive: true, force: true })
})

describe('npm start with schemas', () => {
  it('checks a dataset against its schema over a socket and stores the snapshot for Workers', async () => {
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'sysadmin', 'add', 'schemer'], { env, encoding: 'utf8' })
    const key = /API key: (\S+)/.exec(cli.stdout)![1]!
    const post = (body: object) =>
      fetch(`http://127.0.0.1:${port}/api/3/action/package_create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: key },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const bad = await post({ name: 'entry-rain' })
    expect(bad.status).toBe(409)
    expect(bad.body.error.contact_email).toEqual(['Missing value'])
    const ok = await post({ name: 'entry-rain', contact_email: 'desk@example.org', frequency: 'weekly' })
    expect(ok.status).toBe(200)
    expect(ok.body.result.frequency).toBe('weekly')
    const check = spawnSync(
      process.execPath,
      ['-e', `const D=require('libsql');const d=new D(${JSON.stringify(dbFile)});console.log(JSON.parse(d.prepare("SELECT value FROM system_info WHERE key='scheming:snapshot'").get().value).datasetSchemas[0].name)`],
      { encoding: 'utf8' },
    )
    expect(check.stdout.trim()).toBe('test/fixtures/scheming/dataset.yaml')
  })

  it('refuses to start on a schema naming an unknown validator, saying where', () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(bad, 'dataset_type: bad\ndataset_fields:\n- field_name: x\n  validators: ignore_missing no_such_check\n')
    const start = startCommand(out)
    const run = spawnSync(process.execPath, start.args, {
      env: { ...env, ...start.env, DATABASE_URL: `file:${join(dir, 'other.db')}`, SCHEMING__DATASET_SCHEMAS: bad },
      encoding: 'utf8',
      timeout: 30000,
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`Metadata schema error: ${bad} (dataset_fields): field "x": validator/converter not found: 'no_such_check'`)
  })
})
