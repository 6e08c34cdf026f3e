// The dcat_rdf source type against a local server: RDF/XML, Turtle over two Hydra pages, JSON-LD
// and N-Triples catalogues; a second run with one change; a dataset gone from the catalogue; what
// fails (HTTP 500, malformed RDF, a dataset the validation refuses) ends in the job report.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Hono } from 'hono'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'
import { runHarvest } from '../helpers/harvest'

const F = 'test/fixtures/harvest/'
const fixture = (name: string) => readFileSync(F + name, 'utf8')

/** What the server answers per path: a body and a content type (or a status). */
const served = new Map<string, { body: string; type: string; status?: number }>()
const serve = (path: string, name: string, type: string) => served.set(path, { body: fixture(name), type })

let server: { url: string; close: () => Promise<void> }
let t: TestEnv
let sys: { apikey: string }
let org: { id: string }
let n = 0

beforeAll(async () => {
  const remote = new Hono().get('*', (c) => {
    const s = served.get(new URL(c.req.url).pathname)
    if (!s) return c.text('not here', 404)
    return c.body(s.body, (s.status ?? 200) as 200, { 'content-type': s.type })
  })
  server = await listen(remote as never)
  t = await setup({ 'service.loader.allow_private_urls': 'true' })
  sys = await t.make.sysadmin()
  org = await t.ok('organization_create', { name: 'rdf-harv-org' }, sys)
})
afterAll(() => server.close())

async function source(path: string, config?: Record<string, unknown>) {
  return t.ok(
    'harvest_source_create',
    { name: `rdf-src-${++n}`, url: `${server.url}${path}`, source_type: 'dcat_rdf', owner_org: org.id, ...(config ? { config: JSON.stringify(config) } : {}) },
    sys,
  )
}

const extrasOf = (d: { extras: { key: string; value: string }[] }) => Object.fromEntries(d.extras.map((e) => [e.key, e.value]))
describe('dcat_rdf', () => {
  it('is listed with ckanext-dcat\'s name and title, and checks rdf_format', async () => {
    const infos = await t.ok('harvesters_info_show')
    expect(infos).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'dcat_rdf', title: 'Generic DCAT RDF Harvester' })]))
    const bad = await t.call('harvest_source_create', { name: 'rdf-bad', url: `${server.url}/x.rdf`, source_type: 'dcat_rdf', config: '{"rdf_format": "yaml"}' }, sys)
    expect(bad.status).toBe(409)
    expect(JSON.stringify(bad.body.error)).toContain('rdf_format should be one of')
  })

  it('harvests an RDF/XML catalogue into datasets, then updates one, keeps the rest, deletes what is gone', async () => {
    serve('/catalog.rdf', 'catalog.rdf', 'application/rdf+xml')
    const src = await source('/catalog.rdf')
    let job = await runHarvest(t, src.id, sys)
    expect(job.status).toBe('Finished')
    expect(job.stats).toMatchObject({ added: 2, errored: 0 })

    const tides = await t.ok('package_show', { id: 'tide-gauge-readings' })
    expect(tides.title).toBe('Tide gauge readings')
    expect(tides.notes).toBe("Water levels measured every ten minutes at the harbour's gauges.")
    expect(tides.owner_org).toBe(org.id)
    expect(tides.url).toBe('https://harbour.example.org/tides')
    expect(tides.version).toBe('2.1')
    expect(tides.license_id).toBe('odc-odbl')
    expect(tides.tags.map((x: { name: string }) => x.name).sort()).toEqual(['harbour', 'sea level', 'tides'])
    const ex = extrasOf(tides)
    expect(ex).toMatchObject({
      uri: 'https://harbour.example.org/dataset/tide-gauges',
      guid: 'https://harbour.example.org/dataset/tide-gauges',
      identifier: 'TIDE-001',
      issued: '2023-04-01',
      modified: '2024-02-10T08:30:00',
      frequency: 'http://publications.europa.eu/resource/authority/frequency/DAILY',
      publisher_uri: 'https://harbour.example.org/authority',
      publisher_name: 'Harbour Authority',
      publisher_email: 'data@harbour.example.org',
      publisher_url: 'https://harbour.example.org',
      contact_name: 'Hydrography desk',
      contact_email: 'hydro@harbour.example.org',
      temporal_start: '2020-01-01',
      temporal_end: '2023-12-31',
      spatial_text: 'Inner harbour',
      harvest_source_id: src.id,
    })
    expect(JSON.parse(ex.language!)).toEqual(['http://publications.europa.eu/resource/authority/language/ENG'])
    expect(JSON.parse(ex.theme!)).toEqual(['http://publications.europa.eu/resource/authority/data-theme/ENVI'])
    expect(JSON.parse(ex.spatial!)).toEqual({ type: 'Point', coordinates: [-4.14, 50.36] })
    const csv = tides.resources.find((r: { name: string }) => r.name === 'Readings (CSV)')
    expect(csv).toMatchObject({
      url: 'https://harbour.example.org/files/tides.csv',
      download_url: 'https://harbour.example.org/files/tides.csv',
      access_url: 'https://harbour.example.org/tides/download',
      format: 'CSV',
      mimetype: 'text/csv',
      description: 'All readings, one row per gauge and time.',
      license: 'http://www.opendefinition.org/licenses/odc-odbl',
      size: 24680,
      hash: 'a3f5c2',
      uri: 'https://harbour.example.org/dataset/tide-gauges/csv',
    })
    const api = tides.resources.find((r: { name: string }) => r.name === 'Live API')
    expect(api).toMatchObject({ url: 'https://harbour.example.org/api/tides', format: 'JSON' })

    // the same catalogue again: nothing to do
    job = await runHarvest(t, src.id, sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 0, 'not modified': 2, errored: 0 })

    // one title changed: one update (name and resource ids kept), the other not modified
    const before = await t.ok('package_show', { id: 'tide-gauge-readings' })
    serve('/catalog.rdf', 'catalog.rdf', 'application/rdf+xml')
    served.get('/catalog.rdf')!.body = fixture('catalog.rdf').replace('>Tide gauge readings<', '>Tide gauge readings, corrected<')
    job = await runHarvest(t, src.id, sys)
    expect(job.stats).toMatchObject({ added: 0, updated: 1, 'not modified': 1, errored: 0 })
    const after = await t.ok('package_show', { id: 'tide-gauge-readings' })
    expect(after.title).toBe('Tide gauge readings, corrected')
    const csvBefore = before.resources.find((r: { uri: string }) => r.uri.endsWith('/csv'))
    expect(after.resources.find((r: { uri: string }) => r.uri.endsWith('/csv')).id).toBe(csvBefore.id)

    // the berths dataset leaves the catalogue: deleted
    served.get('/catalog.rdf')!.body = served.get('/catalog.rdf')!.body.replace(/<dcat:dataset>\s*<dcat:Dataset rdf:about="https:\/\/harbour.example.org\/dataset\/berths">[\s\S]*?<\/dcat:dataset>/, '')
    job = await runHarvest(t, src.id, sys)
    expect(job.stats).toMatchObject({ deleted: 1, 'not modified': 1 })
    const berths = await t.call('package_show', { id: 'berth-occupancy' }, sys)
    expect(berths.body.result?.state ?? 'gone').not.toBe('active')
  })

  it('follows Hydra paging over two Turtle pages, and reads JSON-LD and N-Triples', async () => {
    serve('/catalog.ttl', 'catalog-page1.ttl', 'text/turtle')
    serve('/catalog-page2.ttl', 'catalog-page2.ttl', 'text/turtle; charset=utf-8')
    const ttl = await source('/catalog.ttl')
    let job = await runHarvest(t, ttl.id, sys)
    expect(job.stats).toMatchObject({ added: 3, errored: 0 })
    const salinity = await t.ok('package_show', { id: 'salinity-profiles' })
    expect(extrasOf(salinity)).toMatchObject({ publisher_name: 'Fjord Institute', modified: '2024-03-01' })
    expect(salinity.resources[0]).toMatchObject({ name: 'Casts', url: 'https://fjord.example.net/files/casts.nc', mimetype: 'application/x-netcdf' })
    expect((await t.ok('package_show', { id: 'sea-ice-extent' })).resources[0].url).toBe('https://fjord.example.net/ice/')
    // unchanged pages: blank nodes and all, nothing is updated
    job = await runHarvest(t, ttl.id, sys)
    expect(job.stats).toMatchObject({ 'not modified': 3, updated: 0, added: 0 })

    // JSON-LD served as plain JSON: told by a look at the text
    serve('/catalog.jsonld', 'catalog.jsonld', 'application/json')
    job = await runHarvest(t, (await source('/catalog.jsonld')).id, sys)
    expect(job.stats).toMatchObject({ added: 1, errored: 0 })
    const heather = await t.ok('package_show', { id: 'heather-cover' })
    expect(extrasOf(heather)).toMatchObject({ identifier: 'HEATH-2024', contact_name: 'Survey office', contact_email: 'survey@moor.example.com' })
    expect(heather.resources[0]).toMatchObject({ url: 'https://moor.example.com/files/squares.geojson', mimetype: 'application/geo+json' })

    // N-Triples served as text/plain, the format named in the config
    serve('/catalog.nt', 'catalog.nt', 'text/plain')
    job = await runHarvest(t, (await source('/catalog.nt', { rdf_format: 'nt' })).id, sys)
    expect(job.stats).toMatchObject({ added: 1, errored: 0 })
    expect((await t.ok('package_show', { id: 'peat-depth' })).resources[0]).toMatchObject({ url: 'https://bog.example.org/peat.csv', format: 'CSV' })
  })

  it('reports an HTTP error, malformed RDF and a dataset the validation refuses in the job report', async () => {
    served.set('/broken.rdf', { body: 'oops', type: 'text/plain', status: 500 })
    const down = await source('/broken.rdf')
    let job = await runHarvest(t, down.id, sys)
    expect(job.status).toBe('Finished')
    let report = await t.ok('harvest_job_report', { id: job.id }, sys)
    expect(report.gather_errors.map((e: { message: string }) => e.message).join()).toMatch(/answered HTTP 500/)

    served.set('/bad.ttl', { body: '@prefix dcat: <http://www.w3.org/ns/dcat#> .\n<a> a dcat:Dataset ; <b> "unclosed .\n', type: 'text/turtle' })
    job = await runHarvest(t, (await source('/bad.ttl')).id, sys)
    expect(job.status).toBe('Finished')
    report = await t.ok('harvest_job_report', { id: job.id }, sys)
    expect(report.gather_errors[0].message).toMatch(/^Error parsing the RDF file .*\(turtle\)/)

    served.set('/bad.rdf', { body: '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description', type: 'application/rdf+xml' })
    job = await runHarvest(t, (await source('/bad.rdf')).id, sys)
    report = await t.ok('harvest_job_report', { id: job.id }, sys)
    expect(report.gather_errors[0].message).toMatch(/^Error parsing the RDF file .*\(xml\)/)

    served.set('/bad.jsonld', { body: '{"@graph": [', type: 'application/ld+json' })
    job = await runHarvest(t, (await source('/bad.jsonld')).id, sys)
    report = await t.ok('harvest_job_report', { id: job.id }, sys)
    expect(report.gather_errors[0].message).toMatch(/^Error parsing the RDF file .*\(json-ld\)/)

    // a dataset whose keyword CKAN refuses as a tag: that object errors, the other is added
    const body = fixture('catalog.rdf').replace('<dcat:keyword>shipping</dcat:keyword>', '<dcat:keyword>ships &amp; boats!</dcat:keyword>')
    served.set('/invalid.rdf', { body, type: 'application/rdf+xml' })
    job = await runHarvest(t, (await source('/invalid.rdf')).id, sys)
    expect(job.stats).toMatchObject({ added: 1, errored: 1 })
    report = await t.ok('harvest_job_report', { id: job.id }, sys)
    const errs = Object.values(report.object_errors) as { guid: string; original_url?: string; errors: { message: string }[] }[]
    expect(errs).toHaveLength(1)
    expect(errs[0]!.guid).toBe('https://harbour.example.org/dataset/berths')
    expect(errs[0]!.errors[0]!.message).toMatch(/^Validation error: tags/)
  })

  it('fills the fields of a DCAT-AP schema for datasets (repeating subfields, lists)', async () => {
    const s = await setup({
      'service.loader.allow_private_urls': 'true',
      'scheming.dataset_schemas': `${F}dcat-ap-dataset.yaml`,
      'scheming.presets': 'ckanext.scheming:presets.json ckanext.dcat.schemas:presets.yaml',
    })
    const admin = await s.make.sysadmin()
    const o = await s.ok('organization_create', { name: 'rdf-schema-org' }, admin)
    serve('/catalog.rdf', 'catalog.rdf', 'application/rdf+xml')
    const src = await s.ok('harvest_source_create', { name: 'rdf-schema-src', url: `${server.url}/catalog.rdf`, source_type: 'dcat_rdf', owner_org: o.id }, admin)
    const job = await runHarvest(s, src.id, admin)
    const report = await s.ok('harvest_job_report', { id: job.id }, admin)
    expect(job.stats, JSON.stringify(report)).toMatchObject({ added: 2, errored: 0 })
    const d = await s.ok('package_show', { id: 'tide-gauge-readings' })
    expect(d).toMatchObject({
      identifier: 'TIDE-001',
      issued: '2023-04-01',
      modified: '2024-02-10T08:30:00',
      frequency: 'http://publications.europa.eu/resource/authority/frequency/DAILY',
      theme: ['http://publications.europa.eu/resource/authority/data-theme/ENVI'],
      language: ['http://publications.europa.eu/resource/authority/language/ENG'],
      temporal_coverage: [{ start: '2020-01-01', end: '2023-12-31' }],
    })
    expect(d.publisher[0]).toMatchObject({ uri: 'https://harbour.example.org/authority', name: 'Harbour Authority', email: 'data@harbour.example.org' })
    expect(d.contact[0]).toMatchObject({ name: 'Hydrography desk', email: 'hydro@harbour.example.org' })
    expect(d.spatial_coverage[0]).toMatchObject({ text: 'Inner harbour' })
    expect(JSON.parse(d.spatial_coverage[0].geom)).toEqual({ type: 'Point', coordinates: [-4.14, 50.36] })
    const keys = d.extras.map((e: { key: string }) => e.key)
    expect(keys).not.toContain('identifier')
    expect(keys).not.toContain('publisher_name')
    expect(keys).toContain('uri')
  })
})
