// import-ckan from a site with ckanext-scheming schemas: custom dataset and organization fields
// (repeating subfields, an organization type) are copied. A site without schemas of its own copies
// with the source's and is given them as files; loaded from those, it shows every object as the
// source does.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeSchemaFiles } from '../../src/runtime/node-transfer'
import { CkanSource, httpCall, httpDownload } from '../../src/transfer/ckan-source'
import { importCatalogue, reportText } from '../../src/transfer/importer'
import { setup } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'
import { servedInstance } from './fixture'

const F = 'test/fixtures/scheming/'
const SCHEMING = {
  'scheming.dataset_schemas': `${F}monitoring-stations.yaml`,
  'scheming.organization_schemas': `${F}org-with-address.json`,
  'scheming.presets': `ckanext.scheming:presets.json ${F}presets-extra.json`,
}

let src: Awaited<ReturnType<typeof servedInstance>>
let admin: { apikey: string }
let ds: Record<string, any>
let org: Record<string, any>

beforeAll(async () => {
  src = await servedInstance(SCHEMING)
  admin = await src.t.make.sysadmin()
  org = await src.t.ok('organization_create', { type: 'agency', name: 'rivers-agency', title: 'Rivers Agency', agency_code: 'RA-01', postal_address: '1 Weir Lane' }, admin)
  ds = await src.t.ok(
    'package_create',
    {
      type: 'monitoring-stations',
      name: 'river-network',
      title: 'River network',
      notes: 'Stations along the river',
      owner_org: org.id,
      station_count: 2,
      stations: [
        { station_id: 'UA-1', status: 'active', installed_on: '2020-05-01', sensors: ['level', 'flow'], elevation_m: 120 },
        { station_id: 'UA-2', station_name: 'Weir', status: 'closed', sensors: ['level'] },
      ],
      contacts: [{ contact_name: 'Ann', email: 'ann@example.org' }],
    },
    admin,
  )
})
afterAll(() => src.close())

const source = () => new CkanSource({ label: src.url, call: httpCall(src.url, admin.apikey), download: httpDownload(src.url, admin.apikey) })
const strip = (d: Record<string, any>, url: string) => JSON.parse(JSON.stringify(d).split(url).join('SITE'))

describe('import-ckan with metadata schemas', () => {
  it('copies custom fields into a site with the same schemas', async () => {
    const t = await setup(SCHEMING)
    const sys = await t.make.sysadmin()
    const report = await importCatalogue(t.deps, source())
    expect(report.failed.datasets + report.failed.organizations, reportText(report)).toBe(0)
    expect(report.schemas).toBeUndefined() // this site has its own
    expect(strip(await t.ok('package_show', { id: ds.id }, sys), 'http://test.ckan.net')).toEqual(strip(ds, src.url))
    const o = await t.ok('organization_show', { id: org.id }, sys)
    expect(o).toMatchObject({ type: 'agency', agency_code: 'RA-01', postal_address: '1 Weir Lane' })
  })

  it('gives a site without schemas the source\'s, as files that load', async () => {
    const t = await setup()
    const report = await importCatalogue(t.deps, source())
    expect(report.failed.datasets + report.failed.organizations, reportText(report)).toBe(0)
    expect(report.schemas?.dataset.map((s) => s.dataset_type)).toEqual(['monitoring-stations'])
    expect(report.schemas?.organization).toHaveLength(1)
    const options = writeSchemaFiles(join(tempDir(), 'schemas'), report.schemas!)
    expect(Object.keys(options).sort()).toEqual(['scheming.dataset_schemas', 'scheming.organization_schemas'])
    // the server started with them over the copied catalogue shows what the source shows
    const again = await setup(options, { file: t.file })
    const sys = await again.make.sysadmin()
    expect(strip(await again.ok('package_show', { id: ds.id }, sys), 'http://test.ckan.net')).toEqual(strip(ds, src.url))
    expect(await again.ok('organization_show', { id: org.id }, sys)).toMatchObject({ type: 'agency', agency_code: 'RA-01' })
    // and validates as the source did
    const bad = await again.call('package_create', { type: 'monitoring-stations', name: 'bad-network', owner_org: org.id, stations: [{ station_id: 'X' }] }, sys)
    expect(bad.body.error.stations).toBeDefined()
  })

  it('writes them beside the database and names the options when run as the CLI', async () => {
    const dir = tempDir()
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'import-ckan', src.url, '--api-key', admin.apikey], {
        env: { ...process.env, DATABASE_URL: `file:${join(dir, 'catalogue.db')}`, SERVICE__STORAGE_PATH: join(dir, 'uploads') },
      })
      let text = ''
      child.stdout.on('data', (b) => (text += b))
      child.on('close', () => resolve(text))
    })
    expect(out).toContain(`the source's are now in ${join(dir, 'schemas')}`)
    expect(out).toContain(`SCHEMING__DATASET_SCHEMAS="${join(dir, 'schemas', 'dataset-monitoring-stations.json')}"`)
    expect(out).toContain(`SCHEMING__ORGANIZATION_SCHEMAS="${join(dir, 'schemas', 'organization-agency.json')}"`)
    expect(existsSync(join(dir, 'schemas', 'dataset-monitoring-stations.json'))).toBe(true)
  })
})
