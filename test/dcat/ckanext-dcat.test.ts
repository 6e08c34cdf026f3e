// Issue 28 (item 6): ckanext-dcat's own API as ckanext-dcat serves it: the dcat_* actions, the
// dataset and catalogue endpoints in every format with its Content-Types, profiles=, its 409s,
// pagination by ckanext.dcat.datasets_per_page, content negotiation on / and /dataset/<id>,
// Croissant and the structured data of dataset pages; private datasets never shown.
import { Parser } from 'n3'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let member: { apikey: string; name: string }
let tides: Record<string, any>

const HYDRA = 'http://www.w3.org/ns/hydra/core#'
const DCAT_DATASET = 'http://www.w3.org/ns/dcat#Dataset'
const TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type'

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await t.app.request(path, { headers })
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() }
}
const quadsOf = (body: string, format = 'text/turtle') => new Parser({ format }).parse(body)
const datasetsIn = (body: string, format?: string) => quadsOf(body, format).filter((q) => q.predicate.value === TYPE && q.object.value === DCAT_DATASET)
/** The subjects of rdf:type dcat:Dataset in a flat RDF/XML document of ours. */
const xmlDatasets = (xml: string) => [...xml.matchAll(/<rdf:Description rdf:about="([^"]+)">\n(?: {4}.*\n)*? {4}<rdf:type rdf:resource="http:\/\/www.w3.org\/ns\/dcat#Dataset"\/>/g)].map((m) => m[1])

beforeAll(async () => {
  t = await setup({
    'ckanext.dcat.datasets_per_page': '10',
    'ckanext.dcat.enable_content_negotiation': 'true',
    'ckan.plugins': 'datastore structured_data croissant',
  })
  sys = await t.make.sysadmin()
  member = (await t.make.user()) as any
  const org = await t.make.organization(sys, { name: 'ext-org', title: 'Lighthouse Board' })
  await t.ok('organization_member_create', { id: 'ext-org', username: member.name, role: 'member' }, sys)
  tides = await t.ok(
    'package_create',
    {
      name: 'ext-tides',
      title: 'Fïrst tides',
      notes: 'Test dataset',
      owner_org: org.id,
      tags: [{ name: 'economy' }, { name: 'statistics' }],
      license_id: 'cc-by',
      version: '1.0',
      resources: [{ name: 'Tides CSV', url: 'https://example.org/tides.csv', format: 'CSV', mimetype: 'text/csv', size: 1234 }],
    },
    sys,
  )
  for (let i = 0; i < 11; i++) await t.ok('package_create', { name: `ext-bulk-${i}`, owner_org: org.id, tags: i < 2 ? [{ name: 'economy' }] : [] }, sys)
  await t.ok('package_create', { name: 'ext-secret', title: 'Secret soundings', notes: 'Hidden', owner_org: org.id, private: true }, sys)
})

describe('dataset endpoint /dataset/<id>.<format>', () => {
  it('serves each format with ckanext-dcat Content-Type (no charset), parseable', async () => {
    const cases: [string, string, string][] = [
      ['rdf', 'application/rdf+xml', ''],
      ['xml', 'application/rdf+xml', ''],
      ['ttl', 'text/turtle', 'text/turtle'],
      ['n3', 'text/n3', 'text/n3'],
      ['jsonld', 'application/ld+json', ''],
    ]
    for (const [ext, type, parse] of cases) {
      const res = await get(`/dataset/ext-tides.${ext}`)
      expect(res.status, ext).toBe(200)
      expect(res.type, ext).toBe(type)
      if (parse) expect(datasetsIn(res.body, parse), ext).toHaveLength(1)
      expect(res.body).toContain('Test dataset')
    }
    expect(xmlDatasets((await get('/dataset/ext-tides.rdf')).body)).toEqual([`http://test.ckan.net/dataset/${tides.id}`])
    const doc = JSON.parse((await get('/dataset/ext-tides.jsonld')).body)
    const ds = (doc['@graph'] as any[]).find((n) => [n['@type']].flat().includes('dcat:Dataset'))
    expect(ds).toMatchObject({ '@id': `http://test.ckan.net/dataset/${tides.id}`, 'dct:title': 'Fïrst tides', 'dct:description': 'Test dataset' })
  })

  it('takes profiles=: schemaorg, a combination, and 409 "Unknown RDF profiles" for others', async () => {
    const res = await get('/dataset/ext-tides.jsonld?profiles=schemaorg')
    expect(res.type).toBe('application/ld+json')
    expect(res.body).toContain('"@type":"schema:Dataset"')
    expect(JSON.parse(res.body)['@graph'].find((n: any) => n['@type'] === 'schema:Dataset')['schema:description']).toBe('Test dataset')
    const both = quadsOf((await get('/dataset/ext-tides.ttl?profiles=euro_dcat_ap_2,schemaorg')).body)
    const types = both.filter((q) => q.predicate.value === TYPE).map((q) => q.object.value)
    expect(types).toContain(DCAT_DATASET)
    expect(types).toContain('http://schema.org/Dataset')
    for (const name of ['euro_dcat_ap', 'euro_dcat_ap_3', 'dcat_us_3', 'euro_health_dcat_ap']) expect((await get(`/dataset/ext-tides.ttl?profiles=${name}`)).status, name).toBe(200)
    const nope = await get('/dataset/ext-tides.jsonld?profiles=nope')
    expect(nope.status).toBe(409)
    expect(nope.body).toContain('Unknown RDF profiles: nope')
    expect((await get('/dataset/ext-tides.ttl?profiles=zz,euro_dcat_ap,aa')).body).toContain('Unknown RDF profiles: aa, zz')
  })

  it('answers 404 for an unknown dataset, 409 for an unknown format', async () => {
    expect((await get('/dataset/6a1f1a4e-0000-4000-8000-000000000000.n3')).status).toBe(404)
    const bad = await get('/dataset/ext-tides.pdf')
    expect(bad.status).toBe(409)
    expect(bad.body).toContain('Unknown RDF format: pdf')
  })

  it('never shows a private dataset to those who may not read it (403), shows it to a member', async () => {
    const anon = await get('/dataset/ext-secret.rdf')
    expect(anon.status).toBe(403)
    expect(anon.body).not.toContain('Secret soundings')
    const mine = await get('/dataset/ext-secret.rdf', { authorization: member.apikey })
    expect(mine.status).toBe(200)
    expect(mine.type).toBe('application/rdf+xml')
    expect(mine.body).toContain('Secret soundings')
    // nor through negotiation, Croissant, or /dataset_series
    expect((await get('/dataset/ext-secret', { accept: 'text/turtle' })).status).toBe(403)
    expect((await get('/dataset/ext-secret/croissant.jsonld')).status).toBe(404)
    expect((await get('/dataset_series/ext-secret.ttl')).status).toBe(403)
    expect((await get('/dataset_series/ext-tides.ttl')).type).toBe('text/turtle')
  })
})

describe('catalogue endpoint /catalog.<format>', () => {
  it('serves each format with its Content-Type, public datasets only, even to a member', async () => {
    for (const [ext, type] of [['rdf', 'application/rdf+xml'], ['xml', 'application/rdf+xml'], ['ttl', 'text/turtle'], ['n3', 'text/n3'], ['jsonld', 'application/ld+json']]) {
      const res = await get(`/catalog.${ext}`, { authorization: member.apikey })
      expect(res.status, ext).toBe(200)
      expect(res.type, ext).toBe(type)
      expect(res.body).not.toContain('Secret soundings')
    }
    expect(xmlDatasets((await get('/catalog.rdf')).body)).toHaveLength(10)
  })

  it('pages by ckanext.dcat.datasets_per_page with hydra:PagedCollection as ckanext-dcat writes it', async () => {
    const quads = quadsOf((await get('/catalog.ttl')).body)
    expect(quads.filter((q) => q.predicate.value === TYPE && q.object.value === DCAT_DATASET)).toHaveLength(10)
    const paged = quads.find((q) => q.object.value === `${HYDRA}PagedCollection`)!.subject.value
    expect(paged).toBe('http://test.ckan.net/catalog.ttl?page=1')
    const v = (p: string) => quads.find((q) => q.subject.value === paged && q.predicate.value === HYDRA + p)?.object.value
    expect([v('totalItems'), v('itemsPerPage')]).toEqual(['12', '10'])
    for (const [p, n] of [['firstPage', 1], ['first', 1], ['lastPage', 2], ['last', 2], ['nextPage', 2], ['next', 2]] as const) expect(v(p), p).toBe(`http://test.ckan.net/catalog.ttl?page=${n}`)
    expect(v('previousPage')).toBeUndefined()
    const second = quadsOf((await get('/catalog.ttl?page=2&modified_since=2018-03-22&extra_param=test')).body)
    expect(second.filter((q) => q.object.value === DCAT_DATASET)).toHaveLength(2)
    const prev = second.find((q) => q.predicate.value === `${HYDRA}previous`)!.object.value
    expect(prev).toBe('http://test.ckan.net/catalog.ttl?modified_since=2018-03-22&page=1')
    expect(second.some((q) => q.predicate.value === `${HYDRA}next`)).toBe(false)
    // past the end: previous is the last page, as ckanext-dcat computes it
    const beyond = quadsOf((await get('/catalog.ttl?page=5')).body)
    expect(beyond.find((q) => q.predicate.value === `${HYDRA}previous`)!.object.value).toMatch(/page=2$/)
    // nothing found: no paging
    expect((await get('/catalog.ttl?q=nothing-matches-this')).body).not.toContain('hydra')
  })

  it('filters with q, fq and modified_since', async () => {
    expect(datasetsIn((await get(`/catalog.ttl?q=${encodeURIComponent('Fïrst')}`)).body)).toHaveLength(1)
    expect(datasetsIn((await get('/catalog.ttl?fq=tags:economy')).body)).toHaveLength(3)
    expect(datasetsIn((await get('/catalog.ttl?modified_since=2999-01-01')).body)).toHaveLength(0)
    expect(datasetsIn((await get(`/catalog.ttl?modified_since=${encodeURIComponent(tides.metadata_modified)}`)).body).length).toBeGreaterThan(0)
  })

  it('answers 409 with ckanext-dcat messages for a bad date, page, profile or format', async () => {
    const date = await get('/catalog.ttl?modified_since=wrong_date')
    expect([date.status, date.body]).toEqual([409, 'Wrong modified date format. Use ISO-8601 format'])
    for (const page of ['0', '-1', 'two', '1.5']) {
      const res = await get(`/catalog.ttl?page=${page}`)
      expect([res.status, res.body], page).toEqual([409, 'Page param must be a positive integer starting in 1'])
    }
    const profile = await get('/catalog.jsonld?profiles=nope')
    expect([profile.status, profile.body]).toEqual([409, 'Unknown RDF profiles: nope'])
    expect((await get('/catalog.csv')).status).toBe(409)
  })
})

describe('the dcat_* actions', () => {
  it('dcat_dataset_show returns the document as a string (RDF/XML by default); POST only, as in ckanext-dcat', async () => {
    const xml = await t.ok('dcat_dataset_show', { id: 'ext-tides' })
    expect(typeof xml).toBe('string')
    expect(xml).toMatch(/^<\?xml/)
    expect(await t.ok('dcat_dataset_show', { id: tides.id, format: 'ttl' })).toContain('dcat:Dataset')
    expect((await t.call('dcat_dataset_show', { id: 'ext-tides', profiles: ['nope'] })).body.error).toMatchObject({ __type: 'Validation Error', message: 'Unknown RDF profiles: nope' })
    expect((await t.get('/api/3/action/dcat_dataset_show?id=ext-tides')).status).toBe(400)
  })

  it('dcat_dataset_show: a private dataset only for who may read it', async () => {
    expect((await t.call('dcat_dataset_show', { id: 'ext-secret' })).status).toBe(403)
    expect(await t.ok('dcat_dataset_show', { id: 'ext-secret', format: 'jsonld' }, member)).toContain('Secret soundings')
  })

  it('dcat_catalog_show and dcat_catalog_search answer GET with a page of public datasets', async () => {
    for (const name of ['dcat_catalog_show', 'dcat_catalog_search']) {
      const r = await t.get(`/api/3/action/${name}?format=ttl&page=2`, member)
      expect(r.status, name).toBe(200)
      const body = (r.body as any).result as string
      expect(datasetsIn(body)).toHaveLength(2)
      expect(body).not.toContain('Secret soundings')
    }
    expect((await t.call('dcat_catalog_show', { page: 'x' })).status).toBe(409)
  })
})

describe('content negotiation (ckanext.dcat.enable_content_negotiation on)', () => {
  it('answers RDF on /dataset/<id> for the Accept header, as ckanext-dcat ranks it; HTML otherwise', async () => {
    expect((await get('/dataset/ext-tides', { accept: 'application/ld+json' })).type).toBe('application/ld+json')
    expect((await get('/dataset/ext-tides', { accept: 'text/csv; q=1.0, text/turtle; q=0.6, application/ld+json; q=0.3' })).type).toBe('text/turtle')
    expect((await get('/dataset/ext-tides', { accept: 'text/n3' })).type).toBe('text/n3')
    expect((await get('/dataset/ext-tides', { accept: 'application/rdf+xml' })).type).toBe('application/rdf+xml')
    expect((await get('/dataset/ext-tides', { accept: 'image/gif' })).type).toBe('text/html; charset=utf-8')
    expect((await get('/dataset/ext-tides')).type).toBe('text/html; charset=utf-8')
    expect((await get('/dataset/ext-tides', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })).type).toBe('text/html; charset=utf-8')
  })

  it('answers the catalogue on / for the Accept header; HTML otherwise', async () => {
    expect((await get('/', { accept: 'application/ld+json' })).type).toBe('application/ld+json')
    const ttl = await get('/', { accept: 'text/csv; q=1.0, text/turtle; q=0.6, application/ld+json; q=0.3' })
    expect(ttl.type).toBe('text/turtle')
    expect(ttl.body).not.toContain('Secret soundings')
    expect((await get('/', { accept: 'image/gif' })).type).toBe('text/html; charset=utf-8')
    expect((await get('/')).type).toBe('text/html; charset=utf-8')
  })
})

describe('Croissant and structured data (croissant and structured_data plugins)', () => {
  it('serves /dataset/<id>/croissant.jsonld framed on the Croissant context', async () => {
    const res = await get('/dataset/ext-tides/croissant.jsonld')
    expect(res.status).toBe(200)
    expect(res.type).toBe('application/ld+json')
    const c = JSON.parse(res.body)
    expect(c['@context']).toMatchObject({ '@vocab': 'https://schema.org/', cr: 'http://mlcommons.org/croissant/', conformsTo: 'dct:conformsTo', recordSet: 'cr:recordSet' })
    expect(c['@type']).toBe('Dataset')
    expect(c.description).toEqual({ '@value': 'Test dataset' })
    expect(c.conformsTo).toEqual({ '@value': 'http://mlcommons.org/croissant/1.0' })
    expect(c.name).toEqual({ '@value': 'Fïrst tides' })
    expect(c.url).toEqual({ '@value': 'http://test.ckan.net/dataset/ext-tides' })
    expect(c.includedInDataCatalog).toMatchObject({ '@type': 'DataCatalog' })
    expect(c.creator).toMatchObject({ '@type': 'Organization', name: { '@value': 'Lighthouse Board' } })
    expect([c.keywords].flat().map((k: any) => k['@value']).sort()).toEqual(['economy', 'statistics'])
    const file = [c.distribution].flat()[0]
    expect(file).toMatchObject({ '@type': 'cr:FileObject', name: { '@value': 'Tides CSV' }, encodingFormat: { '@value': 'text/csv' }, contentUrl: { '@value': 'https://example.org/tides.csv' }, contentSize: { '@value': '1234' } })
    expect((await get('/dataset/ext-nothing/croissant.jsonld')).body).toBe('Dataset not found or you have no permission to view it')
  })

  it('adds record sets for DataStore tables', async () => {
    const pkg = await t.ok('package_create', { name: 'ext-table', owner_org: 'ext-org', resources: [{ name: 'levels', url: 'https://example.org/l.csv' }] }, sys)
    await t.ok('datastore_create', { resource_id: pkg.resources[0].id, fields: [{ id: 'station', type: 'text' }, { id: 'level', type: 'float' }], records: [{ station: "A", level: 1.5 }], force: true }, sys)
    const c = JSON.parse((await get('/dataset/ext-table/croissant.jsonld')).body)
    const rs = c.recordSet
    expect(rs['@type']).toBe('cr:RecordSet')
    const fields = [rs.field].flat()
    expect(fields.map((f: any) => [f.source.extract.column['@value'], f.dataType])).toEqual([['station', 'Text'], ['level', 'Float']])
  })

  it('embeds schema.org structured data and Croissant in the dataset page', async () => {
    const html = (await get('/dataset/ext-tides')).body
    const script = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(html)![1]!
    const [structured, croissant] = JSON.parse(script)
    expect(structured['@graph'].find((n: any) => n['@type'] === 'schema:Dataset')['schema:description']).toBe('Test dataset')
    expect(croissant.conformsTo).toEqual({ '@value': 'http://mlcommons.org/croissant/1.0' })
  })
})

describe('without the plugins and with a custom catalog_endpoint', () => {
  let u: TestEnv
  beforeAll(async () => {
    u = await setup({ 'ckanext.dcat.catalog_endpoint': '/dcat/catalog/{_format}' })
    const admin = await u.make.sysadmin()
    await u.ok('package_create', { name: 'plain', notes: 'test description' }, admin)
  })

  it('serves the catalogue at the configured path, pages linking to it', async () => {
    const res = await u.app.request('/dcat/catalog/ttl')
    expect(res.headers.get('content-type')).toBe('text/turtle')
    const body = await res.text()
    expect(body).toContain('<http://test.ckan.net/dcat/catalog/ttl?page=1>')
    expect((await u.app.request('/catalog.ttl')).status).toBe(404)
  })

  it('has no Croissant endpoint, and the page keeps its own schema.org JSON-LD; negotiation is off', async () => {
    expect((await u.app.request('/dataset/plain/croissant.jsonld')).status).toBe(404)
    const html = await (await u.app.request('/dataset/plain')).text()
    expect(html).toContain('"@context":"https://schema.org/"')
    expect(html).not.toContain('mlcommons')
    expect((await u.app.request('/dataset/plain', { headers: { accept: 'text/turtle' } })).headers.get('content-type')).toBe('text/html; charset=utf-8')
    // the croissant profile itself is always there
    const r = await u.app.request('/dataset/plain.jsonld?profiles=croissant')
    expect(JSON.parse(await r.text()).conformsTo).toEqual({ '@value': 'http://mlcommons.org/croissant/1.0' })
  })
})
