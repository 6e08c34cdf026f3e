// export DIR / import DIR between two instances of this project: the directory's format, and every
// object of the first instance in the second after the round trip.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dirSource, exportCatalogue } from '../../src/runtime/node-transfer'
import { importCatalogue, reportText } from '../../src/transfer/importer'
import { ensureSiteUser } from '../../src/model/site-user'
import { setup } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'
import { expectSameCatalogue, populate, servedInstance, type Populated } from './fixture'

let src: Awaited<ReturnType<typeof servedInstance>>
let data: Populated
const dir = join(tempDir('ckan-edge-export-'), 'export')

beforeAll(async () => {
  src = await servedInstance()
  data = await populate(src.t, { rows: 12_000 })
})
afterAll(() => src.close())

const jsonl = (name: string) =>
  readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

describe('export and import', () => {
  it('writes the documented directory', async () => {
    const counts = await exportCatalogue(src.t.deps, dir)
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    expect(manifest).toMatchObject({ format: 'ckan-edge-export', version: 1, source: src.url, counts })
    expect(counts).toMatchObject({ datasets: 5, organizations: 1, groups: 1, vocabularies: 1, files: 1, tables: 2, rows: 12_002 })
    expect(jsonl('datasets.jsonl').map((l) => l.dataset.name).sort()).toEqual([...data.datasets, data.privateDataset].map((d) => d.name).sort())
    const org = jsonl('organizations.jsonl')[0]
    expect(org.organization.users.map((u: any) => u.capacity).sort()).toEqual(['admin', 'editor', 'member'])
    expect(org.activities.length).toBeGreaterThan(0)
    // no secret leaves in a user line
    for (const u of jsonl('users.jsonl')) {
      expect(u).not.toHaveProperty('apikey')
      expect(u).not.toHaveProperty('password_hash')
      expect(u).not.toHaveProperty('reset_key')
    }
    expect(readFileSync(join(dir, 'files', data.upload.resource.id, 'cities.csv'), 'utf8')).toBe(data.upload.bytes)
    const table = JSON.parse(readFileSync(join(dir, 'tables', `${data.table.resource.id}.json`), 'utf8'))
    expect(table).toMatchObject({ primary_key: ['code'], rows: 12_000 })
    const csv = readFileSync(join(dir, 'tables', `${data.table.resource.id}.csv`), 'utf8').split('\n')
    expect(csv[0]).toBe('code,value,day,tags,note')
    // null unquoted and empty, an empty text quoted, a list as JSON
    expect(csv[1]).toBe('c0,,2026-01-01,"[""t0""]",""')
  })

  it('refuses a directory that is not empty, and an incomplete or newer export', async () => {
    await expect(exportCatalogue(src.t.deps, dir)).rejects.toThrow(/not empty/)
    const other = tempDir('ckan-edge-export-')
    expect(() => dirSource(other)).toThrow(/no manifest\.json/)
    writeFileSync(join(other, 'manifest.json'), JSON.stringify({ format: 'ckan-edge-export', version: 99 }))
    expect(() => dirSource(other)).toThrow(/format version 99.*upgrade/)
  })

  it('imports it into a new instance, object by object the same', async () => {
    const dst = await setup()
    const admin = await dst.make.sysadmin()
    const report = await importCatalogue(dst.deps, dirSource(dir))
    expect(report.failed, reportText(report)).toEqual({ users: 0, organizations: 0, groups: 0, vocabularies: 0, datasets: 0, files: 0, tables: 0, views: 0, activities: 0 })
    expect(report.rows).toBe(12_002)
    await expectSameCatalogue(
      { t: src.t, url: src.url, admin: data.admin },
      { t: dst, url: 'http://test.ckan.net', admin },
      { siteUsers: [(await ensureSiteUser(src.t.deps)).user.name, (await ensureSiteUser(dst.deps)).user.name, admin.name] },
    )
    // the key came along: an upsert by it updates the row
    await dst.ok('datastore_upsert', { resource_id: data.table.resource.id, records: [{ code: 'c1', note: 'changed' }] }, admin)
    const r = await dst.ok('datastore_search', { resource_id: data.table.resource.id, filters: { code: 'c1' } }, admin)
    expect(r.records.map((x: any) => x.note)).toEqual(['changed'])
    expect(existsSync(dir)).toBe(true)
  })
})
