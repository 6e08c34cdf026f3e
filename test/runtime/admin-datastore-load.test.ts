// `npm run admin -- datastore load` as a process: a resource's upload or a local file into its table.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

let t: TestEnv
let admin: Caller
const dir = tempDir('ds-load-')
const enc = (s: string) => new TextEncoder().encode(s)

beforeAll(async () => {
  // the loads that resource writes queue are never run here: the CLI does the loading
  t = await setup()
  admin = await t.make.sysadmin()
})

function cli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'datastore', ...args], {
    env: {
      ...process.env,
      DATABASE_URL: `file:${t.file}`,
      SERVICE__STORAGE_PATH: join(dirname(t.file), 'uploads'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  child.stderr.on('data', (b: Buffer) => (err += b.toString()))
  return new Promise((r) => child.once('exit', (code) => r({ code, out, err })))
}

async function uploadedResource(name: string, body: string) {
  const ds = await t.make.dataset(admin)
  const id = crypto.randomUUID()
  await t.deps.blobs.put(`resources/${id}/${name}`, enc(body), { contentType: 'text/csv' })
  return t.ok(
    'resource_create',
    {
      package_id: ds.id,
      id,
      url: `http://test.ckan.net/dataset/${ds.id}/resource/${id}/download/${name}`,
      url_type: 'upload',
      format: 'CSV',
    },
    admin,
  )
}

const rows = async (id: string) =>
  (await t.ok('datastore_search', { resource_id: id, sort: '_id' })).records.map(
    ({ _id, ...r }: Record<string, unknown>) => r,
  )

describe('admin datastore load', () => {
  it("loads a resource's uploaded file in the process, with progress on stderr", async () => {
    const lines = ['n,name']
    for (let i = 1; i <= 12000; i++) lines.push(`${i},row ${i}`)
    const res = await uploadedResource('big.csv', lines.join('\n') + '\n')
    const r = await cli('load', res.id)
    expect(r.err).toMatch(/Loading .*: 10,000 rows \([\d,]+ rows\/s\)/)
    expect(r.out).toContain(`Loaded 12000 rows into ${res.id}`)
    expect(r.code).toBe(0)
    const found = await t.ok('datastore_search', { resource_id: res.id, filters: { n: 11999 } })
    expect(found.total).toBe(1)
    expect(found.records[0].name).toBe('row 11999')
    expect((await t.ok('datastore_search', { resource_id: res.id, limit: 0 })).total).toBe(12000)
    const st = await t.ok('xloader_status', { resource_id: res.id }, admin)
    expect(st).toMatchObject({ status: 'complete', rows_loaded: 12000, job_id: null })
    expect((await t.ok('resource_show', { id: res.id })).datastore_active).toBe(true)
  }, 60_000)

  it("loads a local TSV into a resource's table without uploading it", async () => {
    const res = await uploadedResource('orig.csv', 'a\n1\n')
    const file = join(dir, 'local.tsv')
    writeFileSync(file, 'city\tpop\nParis\t2100000\nLyon\t520000\n')
    const r = await cli('load', file, '--resource', res.id)
    expect(r.code).toBe(0)
    expect(await rows(res.id)).toEqual([
      { city: 'Paris', pop: 2100000 },
      { city: 'Lyon', pop: 520000 },
    ])
    expect(await t.deps.blobs.head(`resources/${res.id}/local.tsv`)).toBeUndefined()
  }, 60_000)

  it('exits non-zero with the message for an unknown resource', async () => {
    const r = await cli('load', 'no-such-resource')
    expect(r.code).toBe(1)
    expect(r.err).toContain('No resource no-such-resource')
  }, 60_000)

  it('exits non-zero with the error for a bad file, leaving the table as it was', async () => {
    const res = await uploadedResource('keep.csv', 'a\n1\n')
    expect((await cli('load', res.id)).code).toBe(0)
    const file = join(dir, 'dup.csv')
    writeFileSync(file, 'x,x\n1,2\n')
    const r = await cli('load', file, '--resource', res.id)
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/Load failed: .*"x"/)
    expect(await rows(res.id)).toEqual([{ a: 1 }])
    expect((await t.ok('xloader_status', { resource_id: res.id }, admin)).status).toBe('error')
    const missing = await cli('load', join(dir, 'nope.csv'), '--resource', res.id)
    expect(missing.code).toBe(1)
    expect(missing.err).toContain('nope.csv')
  }, 60_000)
})
