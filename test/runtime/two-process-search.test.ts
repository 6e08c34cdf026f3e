// Two server processes on one database file: a write through one is searchable through the other.
import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/temp-dirs'
import { untilListening } from '../helpers/server'

const dir = tempDir('ckan-edge-two-')
const dbFile = join(dir, 'catalogue.db')
// Above the ports fetch refuses as unsafe (6000, 6665-6669, ...), below the ephemeral range.
const basePort = 20000 + Math.floor(Math.random() * 10000)
const children: ReturnType<typeof spawn>[] = []

function start(port: number): Promise<void> {
  const env = { ...process.env, DATABASE_URL: `file:${dbFile}`, PORT: String(port), HOST: '127.0.0.1' }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/runtime/node.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  return untilListening(child).then(() => undefined)
}

const a = `http://127.0.0.1:${basePort}`
const b = `http://127.0.0.1:${basePort + 1}`
let key = ''

async function action(base: string, name: string, body: object) {
  const res = await fetch(`${base}/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: key },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  expect(json.success, JSON.stringify(json)).toBe(true)
  return json.result
}

const names = async (base: string, params: object) =>
  (await action(base, 'package_search', params)).results.map((d: { name: string }) => d.name)

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

describe('package_search across processes', () => {
  it('finds on B, on the next request, a dataset created through A', async () => {
    expect(await names(b, { q: 'estuary' })).toEqual([])
    await action(a, 'package_create', { name: 'estuary-salinity', title: 'Estuary salinity' })
    expect(await names(b, { q: 'estuary' })).toEqual(['estuary-salinity'])
  })

  it('sees on A an update made through B, and a deletion made through A on B', async () => {
    await action(b, 'package_patch', { id: 'estuary-salinity', title: 'Tidal salinity' })
    expect(await names(a, { q: 'tidal' })).toEqual(['estuary-salinity'])
    expect(await names(a, { q: 'estuary' })).toEqual(['estuary-salinity']) // still in the name
    expect(await names(a, { q: 'title:estuary' })).toEqual([])
    await action(a, 'package_delete', { id: 'estuary-salinity' })
    expect(await names(b, { q: 'tidal' })).toEqual([])
  })
})
