// `npm run admin -- demo` (scripts/demo.ts): the sample catalogue loads through the actions into a
// temp database and file store, every page shows it, and a second run adds nothing.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEMO_DIR, loadDemo, type DemoSummary } from '../../scripts/demo'
import { setup, type TestEnv } from '../helpers/setup'

const catalogue = JSON.parse(readFileSync(join(DEMO_DIR, 'catalogue.json'), 'utf8')) as {
  organizations: unknown[]
  groups: unknown[]
  datasets: { name: string; resources?: { file?: string }[] }[]
}
const csvCount = catalogue.datasets.flatMap((d) => d.resources ?? []).filter((r) => r.file?.endsWith('.csv')).length

let t: TestEnv
let first: DemoSummary

beforeAll(async () => {
  t = await setup()
  first = await loadDemo(t.deps)
}, 60_000)

const resourceOf = async (dataset: string, format: string) => {
  const pkg = await t.ok('package_show', { id: dataset })
  return (pkg.resources as { id: string; format: string; url: string }[]).find((r) => r.format === format)!
}

describe('the demo catalogue', () => {
  it('makes the organizations, groups, datasets and DataStore tables of the manifest', async () => {
    expect(first.organizations.created).toHaveLength(catalogue.organizations.length)
    expect(first.groups.created).toHaveLength(catalogue.groups.length)
    expect(first.datasets.created).toHaveLength(catalogue.datasets.length)
    expect(first.failedLoads).toEqual([])
    expect(first.tables).toHaveLength(csvCount)
    const search = await t.ok('package_search', { rows: 0 })
    expect(search.count).toBe(catalogue.datasets.length)
    expect(await t.ok('organization_list')).toHaveLength(3)
    expect((await t.ok('group_list')).length).toBeGreaterThanOrEqual(3)
    const tagged = await t.ok('package_search', { fq: 'tags:cycling', rows: 10 })
    expect(tagged.count).toBeGreaterThan(0)
  })

  it('creates them as the site user, with activity', async () => {
    const pkg = await t.ok('package_show', { id: 'river-levels-northvale' })
    const site = await t.ok('user_show', { id: 'test.ckan.net' })
    expect(pkg.creator_user_id).toBe(site.id)
    expect(pkg.license_id).toBe('uk-ogl')
    expect(pkg.organization.name).toBe('northvale-environment-agency')
    expect(pkg.extras.length).toBeGreaterThan(0)
    const acts = await t.ok('package_activity_list', { id: 'river-levels-northvale' })
    expect(acts.length).toBeGreaterThan(0)
  })

  it('fills the DataStore from the uploaded CSV files', async () => {
    const csv = await resourceOf('river-levels-northvale', 'CSV')
    const found = await t.ok('datastore_search', { resource_id: csv.id, limit: 2 })
    expect(found.total).toBe(276)
    expect(found.fields.map((f: { id: string }) => f.id)).toContain('level_m')
    expect(found.records).toHaveLength(2)
  })

  it('serves the image and GeoJSON files', async () => {
    const png = await resourceOf('river-levels-northvale', 'PNG')
    const image = await t.app.request(new URL(png.url).pathname)
    expect(image.status).toBe(200)
    const bytes = new Uint8Array(await image.arrayBuffer())
    expect([...bytes.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]) // "PNG"
    const geo = await resourceOf('river-monitoring-stations', 'GeoJSON')
    const file = await t.app.request(new URL(geo.url).pathname)
    expect(file.status).toBe(200)
    expect(JSON.parse(await file.text()).features).toHaveLength(3)
  })

  it('shows every page', async () => {
    const csv = await resourceOf('bike-counts', 'CSV')
    for (const path of ['/', '/dataset', '/dataset/river-levels-northvale', '/organization', '/group', '/organization/riverside-city-council', '/group/transport']) {
      const res = await t.app.request(path)
      expect(res.status, path).toBe(200)
    }
    const page = await t.app.request(`/dataset/bike-counts/resource/${csv.id}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Data preview')
    expect(html).toContain('Quay Street cycle lane')
    const home = await (await t.app.request('/dataset')).text()
    expect(home).not.toContain('No datasets yet')
  })

  it('adds nothing when run again', async () => {
    const again = await loadDemo(t.deps)
    expect(again.datasets.created).toEqual([])
    expect(again.organizations.created).toEqual([])
    expect(again.groups.created).toEqual([])
    expect(again.datasets.existing).toHaveLength(catalogue.datasets.length)
    expect((await t.ok('package_search', { rows: 0 })).count).toBe(catalogue.datasets.length)
    expect(await t.ok('organization_list')).toHaveLength(3)
  })
})
