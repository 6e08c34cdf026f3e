// Issue 28 item 6: DCAT-AP 3 from the fields of a ckanext-scheming schema that uses ckanext-dcat's
// field names (test/fixtures/scheming/dcat-ap.yaml): contact points, publisher, creator, temporal
// and spatial coverage, frequency, lists, statements and resource fields, as ckanext-dcat's
// euro_dcat_ap_scheming and euro_dcat_ap_3 profiles write them; a dataset without those fields
// gives the very document it gave before.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DataFactory, Parser, Store, type Quad, type Term } from 'n3'
// @ts-expect-error: the package ships no types
import datasetFactory from '@rdfjs/dataset'
import SHACLValidator from 'rdf-validate-shacl'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { datasetGraph } from '../../src/lib/dcat/profiles'
import { serialize } from '../../src/lib/dcat/serialize'
import { geoJsonToWkt } from '../../src/lib/dcat/scheming'

const { namedNode } = DataFactory
const F = 'test/fixtures/scheming/'
const SCHEMING = {
  'scheming.dataset_schemas': `${F}dataset.yaml ${F}dcat-ap.yaml`,
  'scheming.presets': 'ckanext.scheming:presets.json',
}
const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  adms: 'http://www.w3.org/ns/adms#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  locn: 'http://www.w3.org/ns/locn#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
  spdx: 'http://spdx.org/rdf/terms#',
  dcatap: 'http://data.europa.eu/r5r/',
}
const p = (curie: string) => {
  const [prefix, local] = curie.split(':') as [keyof typeof NS, string]
  return namedNode(NS[prefix] + local)
}
const FREQ = 'http://publications.europa.eu/resource/authority/frequency/MONTHLY'
const POLYGON = { type: 'Polygon', coordinates: [[[11.9936, 54.0486], [11.9936, 54.2466], [12.3045, 54.2466], [12.3045, 54.0486], [11.9936, 54.0486]]] }

let t: TestEnv
let sys: { apikey: string }
let full: Record<string, any>

beforeAll(async () => {
  t = await setup(SCHEMING)
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys, { name: 'dcat2-org', title: 'Coastal Office' })
  full = await t.ok(
    'package_create',
    {
      type: 'dcat-dataset',
      name: 'dcat2-full',
      title: 'Coastal water quality',
      notes: 'Samples along the coast.',
      owner_org: org.id,
      maintainer: 'Not used when contact is set',
      identifier: 'https://example.org/id/water',
      issued: '2024-05-01',
      modified: '2024-05-05',
      frequency: FREQ,
      dcat_type: 'http://purl.org/dc/dcmitype/Dataset',
      version: '1.0',
      version_notes: 'First release',
      provenance: 'Collected by boat',
      access_rights: 'http://publications.europa.eu/resource/authority/access-right/PUBLIC',
      temporal_resolution: 'P1D',
      spatial_resolution_in_meters: '1.5',
      alternate_identifier: ['alt-1', 'alt-2'],
      theme: ['http://publications.europa.eu/resource/authority/data-theme/ENVI'],
      language: ['http://publications.europa.eu/resource/authority/language/ENG', 'http://publications.europa.eu/resource/authority/language/CAT'],
      documentation: ['https://example.org/doc.html'],
      conforms_to: ['https://example.org/standard-1', 'https://example.org/standard-2'],
      is_referenced_by: ['https://doi.org/10.1038/sdata.2018.22'],
      contact: [
        { name: 'Water desk', email: 'water@example.org', identifier: '123', url: 'https://example.org/desk' },
        { uri: 'https://example.org/contact/lab', name: 'Lab', email: 'mailto:lab@example.org' },
      ],
      publisher: [{ uri: 'https://example.org/publisher', name: 'Coastal Agency', email: 'agency@example.org', url: 'https://example.org', type: 'http://purl.org/adms/publishertype/NationalAuthority', identifier: 'AG-1' }],
      creator: [{ name: 'Survey Team', email: 'survey@example.org' }],
      temporal_coverage: [
        { start: '1905-03-01', end: '2013-01-05' },
        { start: '2024-04-10', end: '2024-05-29' },
      ],
      spatial_coverage: [
        { uri: 'https://sws.geonames.org/6361390/', text: 'Tarragona', geom: POLYGON, centroid: { type: 'Point', coordinates: [1.2, 41.1] } },
        { text: 'Bay', bbox: JSON.stringify(POLYGON) },
      ],
      qualified_relation: [{ relation: 'https://example.org/other', role: 'http://www.iana.org/assignments/relation/related' }],
      resources: [
        {
          name: 'Samples CSV',
          url: 'https://example.org/samples.csv',
          format: 'CSV',
          access_url: 'https://example.org/samples',
          download_url: 'https://example.org/samples.csv',
          license: 'http://publications.europa.eu/resource/authority/licence/CC_BY_4_0',
          rights: 'Some rights statement',
          status: 'http://purl.org/adms/status/Completed',
          availability: 'http://publications.europa.eu/resource/authority/planned-availability/STABLE',
          compress_format: 'http://www.iana.org/assignments/media-types/application/gzip',
          hash: '4304cf2e751e6053c90b1804c89c0ebb758f395a',
          hash_algorithm: 'http://spdx.org/rdf/terms#checksumAlgorithm_sha1',
          issued: '2024-05-01',
          modified: '2024-05-02',
          language: ['http://publications.europa.eu/resource/authority/language/ENG'],
          access_services: [{ title: 'Samples API', endpoint_url: ['https://example.org/api'], serves_dataset: ['https://example.org/id/water'] }],
        },
      ],
    },
    sys,
  )
  await t.ok('package_create', { type: 'dcat-dataset', name: 'dcat2-bare', title: 'Bare', notes: 'No DCAT fields.', owner_org: org.id, maintainer: 'Desk', maintainer_email: 'desk@example.org' }, sys)
})

const fetchText = async (path: string) => {
  const res = await t.app.request(path)
  expect(res.status, path).toBe(200)
  return res.text()
}
const graphOf = async (path: string) => new Store(new Parser().parse(await fetchText(path)))
const values = (g: Store, s: Term, curie: string) => g.getObjects(s, p(curie), null)
const one = (g: Store, s: Term, curie: string) => {
  const os = values(g, s, curie)
  expect(os, curie).toHaveLength(1)
  return os[0]!
}
const typed = (o: Term) => (o.termType === 'Literal' ? `${o.value}^^${(o as any).datatype.value.replace(NS.xsd, 'xsd:').replace(NS.gsp, 'gsp:')}` : o.value)

describe('DCAT-AP 3 from the schema fields', () => {
  it('stores the fields top-level, as package_show returns them', () => {
    expect(full.contact).toHaveLength(2)
    expect(full.temporal_coverage[0]).toEqual({ start: '1905-03-01', end: '2013-01-05' })
    expect(full.frequency).toBe(FREQ)
    expect(full.extras).toEqual([])
  })

  it('writes contact points, publisher and creator from the lists', async () => {
    const g = await graphOf('/dataset/dcat2-full.ttl')
    const ds = namedNode(`http://test.ckan.net/dataset/${full.id}`)
    const contacts = values(g, ds, 'dcat:contactPoint')
    expect(contacts).toHaveLength(2)
    const [desk, lab] = [contacts.find((c) => c.termType === 'BlankNode')!, contacts.find((c) => c.termType === 'NamedNode')!]
    expect(lab.value).toBe('https://example.org/contact/lab')
    for (const c of contacts) expect(values(g, c, 'rdf:type').map((o) => o.value)).toEqual([NS.vcard + 'Kind'])
    expect(one(g, desk, 'vcard:fn').value).toBe('Water desk')
    expect(one(g, desk, 'vcard:hasEmail')).toEqual(namedNode('mailto:water@example.org'))
    expect(typed(one(g, desk, 'vcard:hasUID'))).toBe('123^^xsd:string')
    expect(one(g, desk, 'vcard:hasURL')).toEqual(namedNode('https://example.org/desk'))
    expect(one(g, lab, 'vcard:hasEmail')).toEqual(namedNode('mailto:lab@example.org'))
    // the maintainer does not make a contact point of its own when the list is there
    expect(g.getSubjects(p('vcard:fn'), null, null)).toHaveLength(2)

    const pub = one(g, ds, 'dct:publisher')
    expect(pub).toEqual(namedNode('https://example.org/publisher'))
    expect(values(g, pub, 'rdf:type')).toEqual([p('foaf:Agent')])
    expect(one(g, pub, 'foaf:name').value).toBe('Coastal Agency')
    expect(one(g, pub, 'foaf:homepage')).toEqual(namedNode('https://example.org'))
    expect(one(g, pub, 'dct:type')).toEqual(namedNode('http://purl.org/adms/publishertype/NationalAuthority'))
    expect(one(g, pub, 'vcard:hasEmail')).toEqual(namedNode('mailto:agency@example.org'))
    expect(one(g, pub, 'dct:identifier').value).toBe('AG-1')
    // not the organization: the schema's publisher replaces it
    expect(g.getSubjects(p('foaf:name'), null, null).map((s) => s.value)).not.toContain('Coastal Office')
    expect(g.getObjects(null, p('foaf:name'), null).map((o) => o.value)).not.toContain('Coastal Office')

    const creator = one(g, ds, 'dct:creator')
    expect(one(g, creator, 'foaf:name').value).toBe('Survey Team')
    expect(one(g, creator, 'vcard:hasEmail')).toEqual(namedNode('mailto:survey@example.org'))
  })

  it('writes temporal and spatial coverage with dates and WKT geometries', async () => {
    const g = await graphOf('/dataset/dcat2-full.ttl')
    const ds = namedNode(`http://test.ckan.net/dataset/${full.id}`)
    const periods = values(g, ds, 'dct:temporal')
    expect(periods).toHaveLength(2)
    const spans = periods.map((t) => {
      expect(values(g, t, 'rdf:type')).toEqual([p('dct:PeriodOfTime')])
      return `${typed(one(g, t, 'dcat:startDate'))} ${typed(one(g, t, 'dcat:endDate'))}`
    })
    expect(spans.sort()).toEqual(['1905-03-01^^xsd:date 2013-01-05^^xsd:date', '2024-04-10^^xsd:date 2024-05-29^^xsd:date'])

    const places = values(g, ds, 'dct:spatial')
    expect(places).toHaveLength(2)
    const tarragona = places.find((s) => s.termType === 'NamedNode')!
    expect(tarragona.value).toBe('https://sws.geonames.org/6361390/')
    expect(values(g, tarragona, 'rdf:type')).toEqual([p('dct:Location')])
    expect(one(g, tarragona, 'skos:prefLabel').value).toBe('Tarragona')
    const wkt = 'POLYGON ((11.9936 54.0486, 11.9936 54.2466, 12.3045 54.2466, 12.3045 54.0486, 11.9936 54.0486))'
    expect(typed(one(g, tarragona, 'locn:Geometry'))).toBe(`${wkt}^^gsp:wktLiteral`)
    expect(typed(one(g, tarragona, 'dcat:centroid'))).toBe('POINT (1.2000 41.1000)^^gsp:wktLiteral')
    const bay = places.find((s) => s.termType === 'BlankNode')!
    expect(one(g, bay, 'skos:prefLabel').value).toBe('Bay')
    // GeoJSON given as text is read too
    expect(typed(one(g, bay, 'dcat:bbox'))).toBe(`${wkt}^^gsp:wktLiteral`)
  })

  it('writes frequency, identifier, dates, lists and statements from the schema fields', async () => {
    const g = await graphOf('/dataset/dcat2-full.ttl')
    const ds = namedNode(`http://test.ckan.net/dataset/${full.id}`)
    const freq = one(g, ds, 'dct:accrualPeriodicity')
    expect(freq).toEqual(namedNode(FREQ))
    expect(values(g, freq, 'rdf:type')).toEqual([p('dct:Frequency')])
    // a literal, as DCAT-AP 3 wants it (ckanext-dcat would make an http value an IRI)
    expect(typed(one(g, ds, 'dct:identifier'))).toBe('https://example.org/id/water^^xsd:string')
    expect(typed(one(g, ds, 'dct:issued'))).toBe('2024-05-01^^xsd:date')
    expect(typed(one(g, ds, 'dct:modified'))).toBe('2024-05-05^^xsd:date')
    expect(one(g, ds, 'dct:type')).toEqual(namedNode('http://purl.org/dc/dcmitype/Dataset'))
    expect(one(g, ds, 'adms:versionNotes').value).toBe('First release')
    expect(typed(one(g, ds, 'dcat:temporalResolution'))).toBe('P1D^^xsd:duration')
    expect(typed(one(g, ds, 'dcat:spatialResolutionInMeters'))).toBe('1.5^^xsd:decimal')
    expect(values(g, ds, 'dcat:theme')).toEqual([namedNode('http://publications.europa.eu/resource/authority/data-theme/ENVI')])
    expect(values(g, ds, 'dct:language').map(typed).sort()).toEqual(['http://publications.europa.eu/resource/authority/language/CAT', 'http://publications.europa.eu/resource/authority/language/ENG'])
    expect(values(g, ds, 'foaf:page')).toEqual([namedNode('https://example.org/doc.html')])
    expect(values(g, ds, 'dct:conformsTo').map(typed).sort()).toEqual(['https://example.org/standard-1', 'https://example.org/standard-2'])
    for (const s of values(g, ds, 'dct:conformsTo')) expect(values(g, s, 'rdf:type')).toEqual([p('dct:Standard')])
    expect(values(g, ds, 'dct:isReferencedBy')).toEqual([namedNode('https://doi.org/10.1038/sdata.2018.22')])
    // other identifiers as DCAT-AP 3 writes them: an adms:Identifier with a skos:notation
    const alt = values(g, ds, 'adms:identifier')
    expect(alt.flatMap((i) => values(g, i, 'skos:notation').map((n) => n.value)).sort()).toEqual(['alt-1', 'alt-2'])
    for (const i of alt) expect(values(g, i, 'rdf:type')).toEqual([p('adms:Identifier')])
    // a URI statement is the node itself, a text one a labelled node
    const rights = one(g, ds, 'dct:accessRights')
    expect(rights).toEqual(namedNode('http://publications.europa.eu/resource/authority/access-right/PUBLIC'))
    expect(values(g, rights, 'rdf:type')).toEqual([p('dct:RightsStatement')])
    const prov = one(g, ds, 'dct:provenance')
    expect(values(g, prov, 'rdf:type')).toEqual([p('dct:ProvenanceStatement')])
    expect(one(g, prov, 'rdfs:label').value).toBe('Collected by boat')
    const rel = one(g, ds, 'dcat:qualifiedRelation')
    expect(values(g, rel, 'rdf:type')).toEqual([p('dcat:Relationship')])
    expect(one(g, rel, 'dct:relation')).toEqual(namedNode('https://example.org/other'))
    expect(one(g, rel, 'dcat:hadRole')).toEqual(namedNode('http://www.iana.org/assignments/relation/related'))
  })

  it('writes the resource fields: URLs, licence, rights, status, checksum, dates, access services', async () => {
    const g = await graphOf('/dataset/dcat2-full.ttl')
    const ds = namedNode(`http://test.ckan.net/dataset/${full.id}`)
    const dist = one(g, ds, 'dcat:distribution')
    expect(one(g, dist, 'dcat:accessURL')).toEqual(namedNode('https://example.org/samples'))
    expect(one(g, dist, 'dcat:downloadURL')).toEqual(namedNode('https://example.org/samples.csv'))
    const lic = one(g, dist, 'dct:license')
    expect(lic).toEqual(namedNode('http://publications.europa.eu/resource/authority/licence/CC_BY_4_0'))
    expect(values(g, lic, 'rdf:type')).toEqual([p('dct:LicenseDocument')])
    expect(one(g, one(g, dist, 'dct:rights'), 'rdfs:label').value).toBe('Some rights statement')
    expect(one(g, dist, 'adms:status')).toEqual(namedNode('http://purl.org/adms/status/Completed'))
    expect(one(g, dist, 'dcatap:availability')).toEqual(namedNode('http://publications.europa.eu/resource/authority/planned-availability/STABLE'))
    expect(one(g, dist, 'dcat:compressFormat')).toEqual(namedNode('http://www.iana.org/assignments/media-types/application/gzip'))
    expect(typed(one(g, dist, 'dct:issued'))).toBe('2024-05-01^^xsd:date')
    expect(typed(one(g, dist, 'dct:modified'))).toBe('2024-05-02^^xsd:date')
    expect(values(g, dist, 'dct:language')).toEqual([namedNode('http://publications.europa.eu/resource/authority/language/ENG')])
    const sum = one(g, dist, 'spdx:checksum')
    expect(values(g, sum, 'rdf:type')).toEqual([p('spdx:Checksum')])
    expect(typed(one(g, sum, 'spdx:checksumValue'))).toBe('4304cf2e751e6053c90b1804c89c0ebb758f395a^^xsd:hexBinary')
    expect(one(g, sum, 'spdx:algorithm')).toEqual(namedNode('http://spdx.org/rdf/terms#checksumAlgorithm_sha1'))
    const service = one(g, dist, 'dcat:accessService')
    expect(values(g, service, 'rdf:type')).toEqual([p('dcat:DataService')])
    expect(one(g, service, 'dct:title').value).toBe('Samples API')
    expect(one(g, service, 'dcat:endpointURL')).toEqual(namedNode('https://example.org/api'))
    expect(one(g, service, 'dcat:servesDataset')).toEqual(namedNode('https://example.org/id/water'))
  })

  it('passes the DCAT-AP 3.0.1 shapes and serialises in every format, through the action too', async () => {
    const ttl = await fetchText('/dataset/dcat2-full.ttl')
    expect(await shaclProblems(ttl)).toEqual([])
    const doc = JSON.parse(await fetchText('/dataset/dcat2-full.jsonld'))
    const node = doc['@graph'].find((n: any) => n['@id'] === `http://test.ckan.net/dataset/${full.id}`)
    expect(node['dct:accrualPeriodicity']).toEqual({ '@id': FREQ })
    expect(node['dcat:contactPoint']).toHaveLength(2)
    expect(node['dct:temporal']).toHaveLength(2)
    expect(doc['@context'].locn).toBe(NS.locn)
    const xml = await fetchText('/dataset/dcat2-full.rdf')
    expect(xml).toContain('<locn:Geometry rdf:datatype="http://www.opengis.net/ont/geosparql#wktLiteral">POLYGON')
    expect(xml).toContain('xmlns:spdx="http://spdx.org/rdf/terms#"')
    const shown = await t.ok('dcat_dataset_show', { id: 'dcat2-full', format: 'ttl', profiles: 'euro_dcat_ap_scheming' }, sys)
    expect(new Parser().parse(shown).filter((q: Quad) => q.predicate.value === NS.dcat + 'contactPoint')).toHaveLength(2)
    // the catalogue reads the same fields from the search results
    const cat = new Store(new Parser().parse(await fetchText('/catalog.ttl')))
    expect(cat.getObjects(namedNode(`http://test.ckan.net/dataset/${full.id}`), p('dct:accrualPeriodicity'), null)).toEqual([namedNode(FREQ)])
  })

  it('keeps the organization and maintainer mapping for a dataset of the type without those fields', async () => {
    const g = await graphOf('/dataset/dcat2-bare.ttl')
    const [ds] = g.getSubjects(p('rdf:type'), p('dcat:Dataset'), null)
    const pub = one(g, ds!, 'dct:publisher')
    expect(one(g, pub, 'foaf:name').value).toBe('Coastal Office')
    const kind = one(g, ds!, 'dcat:contactPoint')
    expect(one(g, kind, 'vcard:fn').value).toBe('Desk')
    for (const absent of ['dct:temporal', 'dct:spatial', 'dct:accrualPeriodicity', 'dct:creator']) expect(values(g, ds!, absent), absent).toEqual([])
    expect(typed(one(g, ds!, 'dct:issued'))).toMatch(/\^\^xsd:dateTime$/)
  })
})

describe('values that are not IRIs', () => {
  const site = { title: 'Site', description: 'About', url: 'http://test.ckan.net', uri: 'http://test.ckan.net' }
  it('are literals where ckanext-dcat writes literals, and lists may be JSON or comma-separated text', () => {
    const d = {
      id: 'x1',
      name: 'x1',
      title: 'X',
      metadata_created: '2024-01-01T00:00:00',
      frequency: 'monthly',
      language: '["en", "ca"]',
      conforms_to: 'Standard 1,Standard 2',
      access_rights: 'Open to all',
      contact: [{ name_translated: { en: 'Desk', fr: 'Bureau' }, email: 'desk@example.org' }, {}],
      publisher: [{ name: 'Agency', type: 'public_body' }],
      temporal_coverage: [{ start: '2020', end: '2021-06' }, { start: '2022-01-01T10:00:00Z' }],
      spatial_coverage: [{ text: 'Nowhere', geom: 'not GeoJSON' }],
      issued: '2024-05-01T08:30:00',
      spatial_resolution_in_meters: [10, 'about 5'],
    }
    const g = new Store(datasetGraph(['dcat_ap'], d, site))
    const ds = namedNode('http://test.ckan.net/dataset/x1')
    expect(values(g, ds, 'dct:accrualPeriodicity').map(typed)).toEqual(['monthly^^xsd:string'])
    expect(values(g, ds, 'dct:language').map(typed).sort()).toEqual(['ca^^xsd:string', 'en^^xsd:string'])
    expect(values(g, ds, 'dct:conformsTo').map(typed).sort()).toEqual(['Standard 1^^xsd:string', 'Standard 2^^xsd:string'])
    const rights = one(g, ds, 'dct:accessRights')
    expect(rights.termType).toBe('BlankNode')
    expect(values(g, rights, 'rdf:type')).toEqual([p('dct:RightsStatement')])
    expect(one(g, rights, 'rdfs:label').value).toBe('Open to all')
    // an empty item of a repeating field makes no node
    const kind = one(g, ds, 'dcat:contactPoint')
    expect(values(g, kind, 'vcard:fn').map((o) => `${o.value}@${(o as any).language}`).sort()).toEqual(['Bureau@fr', 'Desk@en'])
    const pub = one(g, ds, 'dct:publisher')
    expect(typed(one(g, pub, 'dct:type'))).toBe('public_body^^xsd:string')
    const periods = values(g, ds, 'dct:temporal')
    const starts = periods.flatMap((t) => values(g, t, 'dcat:startDate').map(typed)).sort()
    expect(starts).toEqual(['2020^^xsd:gYear', '2022-01-01T10:00:00+00:00^^xsd:dateTime'])
    expect(periods.flatMap((t) => values(g, t, 'dcat:endDate').map(typed))).toEqual(['2021-06^^xsd:gYearMonth'])
    const place = one(g, ds, 'dct:spatial')
    expect(one(g, place, 'skos:prefLabel').value).toBe('Nowhere')
    expect(values(g, place, 'locn:Geometry')).toEqual([])
    expect(typed(one(g, ds, 'dct:issued'))).toBe('2024-05-01T08:30:00^^xsd:dateTime')
    expect(values(g, ds, 'dcat:spatialResolutionInMeters').map(typed).sort()).toEqual(['10^^xsd:decimal', 'about 5^^xsd:string'])
  })
})

describe('a dataset without the schema fields', () => {
  const FIX = join(process.cwd(), 'test/dcat/fixtures')
  const site = { title: 'Site', description: 'About', url: 'http://test.ckan.net', uri: 'http://test.ckan.net' }
  // blank node labels come from a counter: number them by first appearance
  const canon = (s: string) => {
    const seen = new Map<string, string>()
    return s.replace(/n3-\d+/g, (b) => seen.get(b) ?? (seen.set(b, `b${seen.size}`), `b${seen.size - 1}`))
  }

  it('gives the document the extras-based mapping gave before (Turtle, JSON-LD, RDF/XML)', () => {
    // plain-dataset.* were written by src/lib/dcat/ as it was before the schema fields were read
    const d = JSON.parse(readFileSync(join(FIX, 'plain-dataset.json'), 'utf8'))
    for (const f of ['ttl', 'jsonld', 'xml'] as const) expect(canon(serialize(datasetGraph(['dcat_ap'], d, site), f)), f).toBe(canon(readFileSync(join(FIX, `plain-dataset.${f}`), 'utf8')))
  })
})

describe('GeoJSON to WKT (as geomet writes it with 4 decimals)', () => {
  it('writes every geometry type, and nothing for what is not GeoJSON', () => {
    expect(geoJsonToWkt({ type: 'Point', coordinates: [1, -2.123456] })).toBe('POINT (1.0000 -2.1235)')
    expect(geoJsonToWkt('{"type":"LineString","coordinates":[[0,0],[1,1]]}')).toBe('LINESTRING (0.0000 0.0000, 1.0000 1.0000)')
    expect(geoJsonToWkt({ type: 'MultiPoint', coordinates: [[0, 0], [1, 1]] })).toBe('MULTIPOINT ((0.0000 0.0000), (1.0000 1.0000))')
    expect(geoJsonToWkt({ type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]]] })).toBe('MULTILINESTRING ((0.0000 0.0000, 1.0000 1.0000))')
    expect(geoJsonToWkt({ type: 'MultiPolygon', coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]]] })).toBe('MULTIPOLYGON (((0.0000 0.0000, 1.0000 0.0000, 1.0000 1.0000, 0.0000 0.0000)))')
    expect(geoJsonToWkt({ type: 'Polygon', coordinates: [] })).toBe('POLYGON EMPTY')
    expect(geoJsonToWkt({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [0, 0] }, { type: 'LineString', coordinates: [[0, 0], [1, 1]] }] })).toBe(
      'GEOMETRYCOLLECTION (POINT (0.0000 0.0000),LINESTRING (0.0000 0.0000, 1.0000 1.0000))',
    )
    for (const bad of ['not json', '{"type":"Circle","coordinates":[1,2]}', { type: 'Point' }, { type: 'Point', coordinates: ['a', 'b'] }]) expect(geoJsonToWkt(bad)).toBeUndefined()
  })
})

async function shaclProblems(turtle: string) {
  const ds = datasetFactory.dataset()
  for (const f of ['dcat-ap-3.0.1-SHACL.ttl', 'dcat-ap-3.0.1-ranges.ttl']) for (const q of new Parser().parse(readFileSync(join(process.cwd(), 'test/fixtures/dcat', f), 'utf8'))) ds.add(q)
  const report = await new SHACLValidator(ds).validate(datasetFactory.dataset(new Parser().parse(turtle) as Quad[]))
  // vocabulary IRIs (themes, statuses, …) are typed skos:Concept by their vocabularies, not by
  // the document: their class checks fail here as in ckanext-dcat's own SHACL tests
  return report.results
    .filter((r: any) => r.severity?.value?.endsWith('Violation') && !r.sourceConstraintComponent?.value?.endsWith('#ClassConstraintComponent'))
    .map((r: any) => `${r.focusNode?.value} ${r.path?.value}: ${r.message?.map((m: any) => m.value).join('; ')}`)
}
