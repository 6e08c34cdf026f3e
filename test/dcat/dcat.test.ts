// Issue 19, DCAT: the catalogue and each dataset as DCAT-AP 3 (Turtle, JSON-LD, RDF/XML, content
// negotiation, Hydra paging, modified_since) validated with SHACL against the DCAT-AP 3.0.1
// shapes, and data.json validated against the DCAT-US 1.1 JSON schema; private data stays out.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv from 'ajv-draft-04'
import addFormats from 'ajv-formats'
import { Parser, type Quad } from 'n3'
// @ts-expect-error: the package ships no types
import datasetFactory from '@rdfjs/dataset'
import SHACLValidator from 'rdf-validate-shacl'
import { beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { setup, type TestEnv } from '../helpers/setup'

const FIX = join(process.cwd(), 'test/fixtures/dcat')
let t: TestEnv
let sys: { apikey: string }

function shapes(...files: string[]) {
  const ds = datasetFactory.dataset()
  for (const f of files) for (const q of new Parser().parse(readFileSync(join(FIX, f), 'utf8'))) ds.add(q)
  return ds
}

async function shacl(turtle: string, files = ['dcat-ap-3.0.1-SHACL.ttl', 'dcat-ap-3.0.1-ranges.ttl']) {
  const data = datasetFactory.dataset(new Parser().parse(turtle) as Quad[])
  const report = await new SHACLValidator(shapes(...files)).validate(data)
  const problems = report.results
    .filter((r: any) => r.severity?.value?.endsWith('Violation'))
    .map((r: any) => `${r.focusNode?.value} ${r.path?.value}: ${r.message?.map((m: any) => m.value).join('; ')}`)
  return { conforms: problems.length === 0, problems }
}

const text = async (path: string, headers: Record<string, string> = {}) => {
  const res = await t.app.request(path, { headers })
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() }
}

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  const org = await t.make.organization(sys, { name: 'dcat-org', title: 'Harbour Authority' })
  await t.ok(
    'package_create',
    {
      name: 'dcat-tides',
      title: 'Tide heights',
      notes: 'Hourly tide heights & <tags>.',
      owner_org: org.id,
      tags: [{ name: 'tides' }, { name: 'sea level' }],
      license_id: 'cc-by',
      maintainer: 'Harbour Master',
      maintainer_email: 'master@example.org',
      url: 'https://example.org/tides',
      version: '2.1',
      resources: [{ name: 'Tides CSV', url: 'https://example.org/tides.csv', format: 'CSV', description: 'All stations' }, { name: 'No format', url: 'https://example.org/x' }],
    },
    sys,
  )
  for (let i = 0; i < 104; i++) await t.ok('package_create', { name: `dcat-bulk-${i}`, owner_org: org.id }, sys)
  await t.ok('package_create', { name: 'dcat-secret', title: 'Secret soundings', owner_org: org.id, private: true }, sys)
})

describe('DCAT', () => {
  it('describes a dataset in DCAT-AP 3 that passes the SHACL shapes, in every serialisation', async () => {
    const ttl = await text('/dataset/dcat-tides.ttl')
    expect(ttl.status).toBe(200)
    expect(ttl.type).toMatch(/^text\/turtle/)
    expect(ttl.body).toContain('dcat:Dataset')
    const report = await shacl(ttl.body)
    expect(report.problems).toEqual([])
    const quads = new Parser().parse(ttl.body)
    const values = (p: string) => quads.filter((q) => q.predicate.value === p).map((q) => q.object.value)
    expect(values('http://purl.org/dc/terms/title')).toContain('Tide heights')
    expect(values('http://www.w3.org/ns/dcat#keyword').sort()).toEqual(['sea level', 'tides'])
    expect(values('http://www.w3.org/ns/dcat#accessURL')).toContain('https://example.org/tides.csv')
    expect(values('http://www.w3.org/2006/vcard/ns#hasEmail')).toEqual(['mailto:master@example.org'])

    const jsonld = await text('/dataset/dcat-tides.jsonld')
    expect(jsonld.type).toMatch(/^application\/ld\+json/)
    // compacted on the prefixes, as rdflib's auto_compact writes it for ckanext-dcat
    const doc = JSON.parse(jsonld.body)
    expect(doc['@context']).toMatchObject({ dcat: 'http://www.w3.org/ns/dcat#', dct: 'http://purl.org/dc/terms/' })
    const graph = doc['@graph'] as any[]
    const ds = graph.find((n) => [n['@type']].flat().includes('dcat:Dataset'))
    expect(ds['dct:title']).toBe('Tide heights')
    // as many statements in each serialisation
    const jsonCount = graph.reduce((n, node) => n + Object.entries(node).filter(([k]) => k !== '@id').reduce((m, [, v]) => m + [v].flat().length, 0), 0)
    expect(jsonCount).toBe(quads.length)
    for (const ext of ['rdf', 'xml']) {
      const xml = await text(`/dataset/dcat-tides.${ext}`)
      expect(xml.type).toMatch(/^application\/rdf\+xml/)
      expect(xml.body.startsWith('<?xml')).toBe(true)
      expect(xml.body).toContain('Hourly tide heights &amp; &lt;tags&gt;.')
      expect((xml.body.match(/^ {4}</gm) ?? []).length).toBe(quads.length)
    }
  })

  it('is linked from the HTML pages', async () => {
    const html = (await text('/dataset/dcat-tides')).body
    expect(html).toContain('<link rel="alternate" type="text/turtle" href="/dataset/dcat-tides.ttl"/>')
    expect((await text('/')).body).toContain('<link rel="alternate" type="application/rdf+xml" href="/catalog.rdf"/>')
  })

  it('negotiates on /catalog; /dataset/<name> only with ckanext.dcat.enable_content_negotiation (test/dcat/ckanext-dcat.test.ts)', async () => {
    expect((await text('/dataset/dcat-tides', { accept: 'text/turtle' })).type).toMatch(/^text\/html/)
    expect((await text('/', { accept: 'application/ld+json' })).type).toMatch(/^text\/html/)
    expect((await text('/catalog', { accept: 'text/turtle' })).type).toMatch(/^text\/turtle/)
    expect((await text('/catalog')).type).toMatch(/^application\/rdf\+xml/)
  })

  it('pages the catalogue with Hydra, filters by modified_since, and passes the shapes', async () => {
    const first = await text('/catalog.ttl')
    const quads = new Parser().parse(first.body)
    const datasets = quads.filter((q) => q.predicate.value === 'http://www.w3.org/ns/dcat#dataset')
    expect(datasets).toHaveLength(100)
    const hydra = (p: string) => quads.find((q) => q.predicate.value === `http://www.w3.org/ns/hydra/core#${p}`)?.object.value
    expect(hydra('totalItems')).toBe('105')
    expect(hydra('nextPage')).toMatch(/\/catalog\.ttl\?page=2$/)
    expect(hydra('previousPage')).toBeUndefined()
    const report = await shacl(first.body)
    expect(report.problems).toEqual([])
    const second = new Parser().parse((await text('/catalog.ttl?page=2')).body)
    expect(second.filter((q) => q.predicate.value === 'http://www.w3.org/ns/dcat#dataset')).toHaveLength(5)
    const future = new Parser().parse((await text('/catalog.ttl?modified_since=2999-01-01')).body)
    expect(future.filter((q) => q.predicate.value === 'http://www.w3.org/ns/dcat#dataset')).toHaveLength(0)
    expect((await text('/catalog.ttl?modified_since=yesterday-ish')).status).toBe(409)
  })

  it('keeps private datasets out of the catalogue and data.json, and answers their RDF only to those who may read them', async () => {
    for (const path of ['/catalog.ttl', '/catalog.ttl?page=2', '/data.json']) expect((await text(path, { authorization: sys.apikey })).body).not.toContain('Secret soundings')
    // ckanext-dcat: package_show's Not Authorized is a 403
    expect((await text('/dataset/dcat-secret.ttl')).status).toBe(403)
    const mine = await text('/dataset/dcat-secret.ttl', { authorization: sys.apikey })
    expect(mine.status).toBe(200)
    expect(mine.body).toContain('Secret soundings')
  })

  it('serves data.json that validates against the DCAT-US 1.1 schema', async () => {
    const res = await text('/data.json')
    expect(res.type).toMatch(/^application\/json/)
    const catalog = JSON.parse(res.body)
    expect(catalog.dataset).toHaveLength(105)
    // the schema's patterns are written for non-unicode regular expressions
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false })
    addFormats(ajv)
    for (const f of ['vcard', 'organization', 'distribution', 'dataset']) ajv.addSchema(JSON.parse(readFileSync(join(FIX, 'dcat-us-1.1', `${f}.json`), 'utf8')))
    const validate = ajv.compile(JSON.parse(readFileSync(join(FIX, 'dcat-us-1.1', 'catalog.json'), 'utf8')))
    const ok = validate(catalog)
    expect(validate.errors ?? []).toEqual([])
    expect(ok).toBe(true)
    const tides = catalog.dataset.find((d: any) => d.title === 'Tide heights')
    expect(tides).toMatchObject({ keyword: ['sea level', 'tides'], contactPoint: { hasEmail: 'mailto:master@example.org' }, accessLevel: 'public' })
    // and the validator is not vacuous
    expect(validate({ conformsTo: 'x', dataset: [{ title: 'no description' }] })).toBe(false)
  })
})

describe('DCAT validators', () => {
  it('the catalogue, a dataset and data.json carry ETags; a current one is a 304 without searching', async () => {
    const member = await t.make.user()
    await t.ok('organization_member_create', { id: 'dcat-org', username: (member as any).name, role: 'member' }, sys)
    const search = registry.get('package_search')!
    const run = search.run
    for (const path of ['/catalog.ttl?page=2', '/dataset/dcat-tides.jsonld', '/data.json']) {
      const first = await t.app.request(path)
      expect(first.status).toBe(200)
      const etag = first.headers.get('etag')!
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
      expect(first.headers.get('cache-control')).toMatch(/^public/)
      let searches = 0
      search.run = (...args) => (searches++, run(...args))
      try {
        const again = await t.app.request(path, { headers: { 'if-none-match': etag } })
        expect(again.status).toBe(304)
        expect(searches).toBe(0)
      } finally {
        search.run = run
      }
    }
    // another format of the same document is another answer
    const ttl = await t.app.request('/dataset/dcat-tides.ttl')
    const rdf = await t.app.request('/dataset/dcat-tides.rdf', { headers: { 'if-none-match': ttl.headers.get('etag')! } })
    expect(rdf.status).toBe(200)
    // a write changes them
    const before = ttl.headers.get('etag')!
    await t.ok('package_patch', { id: 'dcat-tides', notes: 'Changed' }, sys)
    const after = await t.app.request('/dataset/dcat-tides.ttl', { headers: { 'if-none-match': before } })
    expect(after.status).toBe(200)
    expect(await after.text()).toContain('Changed')
    // a private dataset: private to its reader, and its ETag gets nobody else a 304
    const mine = await t.app.request('/dataset/dcat-secret.ttl', { headers: { authorization: (member as any).apikey } })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect((await t.app.request('/dataset/dcat-secret.ttl', { headers: { 'if-none-match': mine.headers.get('etag')! } })).status).toBe(403)
  })
})
