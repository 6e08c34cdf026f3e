// The dcat_json source type against a local server: a DCAT-US 1.1 data.json (non-public entries
// left out), a second run with one change, an entry gone, a plain list, ckanext-dcat's ?page=
// paging; malformed JSON, HTTP errors and refused datasets end in the job report.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest } from '../helpers/harvest'

const F = 'test/fixtures/harvest/'
const fixture = () => JSON.parse(readFileSync(F + 'data.json', 'utf8')) as { dataset: Record<string, any>[] }

/** Path → answer; a function gets the page parameter. */
const served = new Map<string, { body: string | ((page: string | undefined) => string); status?: number }>()
const requests: string[] = []

let server: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: { apikey: string }
let org: { id: string }
let n = 0

beforeAll(async () => {
  const remote = new Hono().get('*', (c) => {
    const u = new URL(c.req.url)
    requests.push(u.pathname + u.search)
    const s = served.get(u.pathname)
    if (!s) return c.text('not here', 404)
    const body = typeof s.body === 'function' ? s.body(u.searchParams.get('page') ?? undefined) : s.body
    return c.body(body, (s.status ?? 200) as 200, { 'content-type': 'application/json' })
  })
  server = await listen(remote as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
  org = await t.ok('organization_create', { name: 'json-harv-org' }, sys)
})
afterAll(() => server.close())

const source = async (path: string) =>
  t.ok('harvest_source_create', { name: `json-src-${++n}`, url: `${server.url}${path}`, source_type: 'dcat_json', owner_org: org.id }, sys)
const extrasOf = (d: { extras: { key: string; value: string }[] }) => Object.fromEntries(d.extras.map((e) => [e.key, e.value]))
const gatherErrors = async (jobId: string) =>
  ((await t.ok('harvest_job_report', { id: jobId }, sys)).gather_errors as { message: string }[]).map((e) => e.message)

describe('dcat_json', () => {
  it('harvests a data.json: public datasets with their fields, the non-public one left out; then an update and a deletion', async () => {
    const doc = fixture()
    served.set('/data.json', { body: () => JSON.stringify(doc) })
    const src = await source('/data.json')
    requests.length = 0
    let job = await runHarvest(t, src.id, sys)
    expect(job.status).toBe('Finished')
    expect(job.stats).toMatchObject({ added: 2, errored: 0 })
    // ckanext-dcat asks for page 2, which answers the same: the listing ends there
    expect(requests).toEqual(['/data.json', '/data.json?page=2'])

    const bridges = await t.ok('package_show', { id: 'bridge-inspections' })
    expect(bridges).toMatchObject({
      title: 'Bridge inspections',
      notes: 'Condition ratings of county bridges.',
      url: 'https://county.example.gov/bridges',
      license_id: 'cc-by',
      owner_org: org.id,
    })
    expect(bridges.tags.map((x: { name: string }) => x.name).sort()).toEqual(['bridges', 'infrastructure'])
    expect(extrasOf(bridges)).toMatchObject({
      guid: 'county-roads-bridges',
      identifier: 'county-roads-bridges',
      dcat_issued: '2019-01-15',
      dcat_modified: '2024-05-02',
      dcat_publisher_name: 'County Roads Department',
      contact_name: 'Roads data team',
      contact_email: 'roads@county.example.gov',
      accessLevel: 'public',
      bureauCode: '015:11',
      programCode: '015:001',
      // data.json's box as the GeoJSON polygon the spatial extra holds
      spatial: JSON.stringify({ type: 'Polygon', coordinates: [[[-77.2, 38.8], [-76.9, 38.8], [-76.9, 39], [-77.2, 39], [-77.2, 38.8]]] }),
      temporal: '2015-01-01/2023-12-31',
      theme: 'Transportation',
    })
    expect(bridges.resources).toHaveLength(2)
    expect(bridges.resources[0]).toMatchObject({ name: 'Inspections CSV', description: 'One row per inspection.', url: 'https://county.example.gov/files/bridges.csv', format: 'CSV', mimetype: 'text/csv' })
    expect(bridges.resources[1]).toMatchObject({ name: 'Map viewer', url: 'https://county.example.gov/bridges/map', format: 'HTML' })
    expect((await t.call('package_show', { id: 'staff-injury-claims' }, sys)).status).toBe(404)
    const logs = await t.ok('harvest_log_list', { level: 'info', limit: 1000, offset: 0 }, sys)
    expect(JSON.stringify(logs)).toContain('county-roads-claims is left out: its accessLevel is non-public')

    // one entry changes: 1 updated, the other not modified; the name and the resource ids stay
    doc.dataset[0]!.title = 'Bridge inspections (all counties)'
    job = await runHarvest(t, src.id, sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 1, 'not modified': 1, errored: 0 })
    const after = await t.ok('package_show', { id: 'bridge-inspections' })
    expect(after.title).toBe('Bridge inspections (all counties)')
    expect(after.resources.map((r: { id: string }) => r.id)).toEqual(bridges.resources.map((r: { id: string }) => r.id))

    // the plough routes become non-public: gone from the listing, so deleted
    doc.dataset[1]!.accessLevel = 'restricted public'
    job = await runHarvest(t, src.id, sys)
    expect(job.stats).toMatchObject({ deleted: 1, 'not modified': 1 })
    expect((await t.call('package_show', { id: 'snow-plough-routes' }, sys)).body.result?.state ?? 'gone').not.toBe('active')
  })

  it('reads a plain list of entries, page after page (?page=2...) until a page brings nothing new', async () => {
    const entries = fixture().dataset.slice(0, 2)
    served.set('/list.json', { body: (page) => JSON.stringify(page === '2' ? [entries[1]] : page === '3' ? [] : [entries[0]]) })
    requests.length = 0
    const job = await runHarvest(t, (await source('/list.json')).id, sys)
    expect(job.stats).toMatchObject({ added: 2, errored: 0 })
    expect(requests).toEqual(['/list.json', '/list.json?page=2', '/list.json?page=3'])
  })

  it('ends HTTP errors, malformed JSON, a document of another shape and refused datasets in the job report', async () => {
    served.set('/down.json', { body: 'down', status: 500 })
    let job = await runHarvest(t, (await source('/down.json')).id, sys)
    expect(job.status).toBe('Finished')
    expect((await gatherErrors(job.id)).join()).toMatch(/answered HTTP 500/)

    served.set('/broken.json', { body: '{"dataset": [{"title": "x"' })
    job = await runHarvest(t, (await source('/broken.json')).id, sys)
    expect(job.status).toBe('Finished')
    expect((await gatherErrors(job.id))[0]).toMatch(/^Error parsing file .*broken\.json/)

    served.set('/other.json', { body: '{"dataset": "none"}' })
    job = await runHarvest(t, (await source('/other.json')).id, sys)
    expect((await gatherErrors(job.id))[0]).toMatch(/is not a DCAT JSON catalogue/)

    const doc = fixture()
    doc.dataset[0]!.keyword = ['bridges & tunnels!']
    delete doc.dataset[1]!.title
    served.set('/invalid.json', { body: JSON.stringify(doc) })
    job = await runHarvest(t, (await source('/invalid.json')).id, sys)
    expect(job.stats).toMatchObject({ added: 0, errored: 2 })
    const report = await t.ok('harvest_job_report', { id: job.id }, sys)
    const errs = Object.values(report.object_errors) as { guid: string; errors: { message: string }[] }[]
    expect(Object.fromEntries(errs.map((e) => [e.guid, e.errors[0]!.message]))).toMatchObject({
      'county-roads-bridges': expect.stringMatching(/^Validation error: tags/),
      'county-roads-plough': 'The dataset has no title',
    })
  })

  it('fills a DCAT schema\'s fields when the site has one for datasets', async () => {
    const s = await setup({
      'service.loader.allow_private_urls': 'true',
      'scheming.dataset_schemas': `${F}dcat-ap-dataset.yaml`,
      'scheming.presets': 'ckanext.scheming:presets.json ckanext.dcat.schemas:presets.yaml',
    })
    const admin = await s.make.sysadmin()
    const o = await s.ok('organization_create', { name: 'json-schema-org' }, admin)
    served.set('/data.json', { body: JSON.stringify(fixture()) })
    const src = await s.ok('harvest_source_create', { name: 'json-schema-src', url: `${server.url}/data.json`, source_type: 'dcat_json', owner_org: o.id }, admin)
    const job = await runHarvest(s, src.id, admin)
    expect(job.stats, JSON.stringify(await s.ok('harvest_job_report', { id: job.id }, admin))).toMatchObject({ added: 2, errored: 0 })
    const d = await s.ok('package_show', { id: 'bridge-inspections' })
    expect(d).toMatchObject({
      identifier: 'county-roads-bridges',
      issued: '2019-01-15',
      modified: '2024-05-02',
      theme: ['Transportation'],
      temporal_coverage: [{ start: '2015-01-01', end: '2023-12-31' }],
    })
    expect(d.publisher[0]).toMatchObject({ name: 'County Roads Department' })
    expect(d.contact[0]).toMatchObject({ name: 'Roads data team', email: 'roads@county.example.gov' })
    expect(JSON.parse(d.spatial_coverage[0].bbox).type).toBe('Polygon')
    expect(extrasOf(d)).toMatchObject({ accessLevel: 'public', bureauCode: '015:11' })
  })
})
