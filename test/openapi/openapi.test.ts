// Issue 19: the OpenAPI 3.1 document generated from the action registry validates, lists every
// action with its parameters, auth rule and CKAN's envelopes; the docs page reads it.
import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { parseHelp } from '../../src/openapi/document'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let doc: any

beforeAll(async () => {
  t = await setup()
  const res = await t.app.request('/api/3/openapi.json')
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/application\/json/)
  doc = await res.json()
})

describe('GET /api/3/datastore/<resource_id>/openapi.json', () => {
  it('describes one table, validates, and follows the table\'s access rule', async () => {
    const sys = await t.make.sysadmin()
    const org = await t.make.organization(sys)
    const pub = await t.ok('package_create', { name: 'oa-public', owner_org: org.id }, sys)
    const priv = await t.ok('package_create', { name: 'oa-private', owner_org: org.id, private: true }, sys)
    const fields = [{ id: 'city', type: 'text', info: { label: 'City' } }, { id: 'pop', type: 'int' }, { id: 'when', type: 'date' }, { id: 'tags', type: '_text' }]
    const a = await t.ok('datastore_create', { resource: { package_id: pub.id, name: 'Cities' }, fields }, sys)
    const b = await t.ok('datastore_create', { resource: { package_id: priv.id, name: 'Secret' }, fields }, sys)
    const res = await t.app.request(`/api/3/datastore/${a.resource_id}/openapi.json`)
    expect(res.status).toBe(200)
    const table = await res.json()
    expect((await new Validator().validate(structuredClone(table))).valid).toBe(true)
    const body = table.paths['/api/3/action/datastore_search'].post.requestBody.content['application/json'].schema
    expect(body.properties.resource_id).toEqual({ const: a.resource_id })
    expect(Object.keys(body.properties.filters.properties)).toEqual(['city', 'pop', 'when', 'tags'])
    expect(body.properties.filters.properties.pop.anyOf[0]).toEqual({ type: 'integer' })
    expect(body.properties.filters.properties.city.description).toBe('City (text)')
    expect(table.components.schemas.Record.properties.tags.anyOf[0]).toEqual({ type: 'array', items: { type: 'string' } })
    expect(table.info.title).toContain('Cities')
    const hidden = await t.app.request(`/api/3/datastore/${b.resource_id}/openapi.json`)
    expect(hidden.status).toBe(403)
    expect((await hidden.json()).error.__type).toBe('Authorization Error')
    const mine = await t.app.request(`/api/3/datastore/${b.resource_id}/openapi.json`, { headers: { authorization: sys.apikey } })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('cache-control')).toMatch(/^private/)
    expect((await t.app.request('/api/3/datastore/no-such-table/openapi.json')).status).toBe(404)
  })
})

describe('GET /api/3/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(doc.openapi).toBe('3.1.0')
    // and the validator is not vacuous: an operation without responses is refused
    const broken = structuredClone(doc)
    delete broken.paths['/api/3/action/package_show'].get.responses
    broken.paths['/api/3/action/package_show'].get.parameters[0].in = 'nowhere'
    expect((await new Validator().validate(broken)).valid).toBe(false)
  })

  it('lists every registered action: POST for all, GET for the read actions', () => {
    const names = [...registry.keys()]
    expect(names.length).toBeGreaterThan(180)
    for (const name of names) {
      const item = doc.paths[`/api/3/action/${name}`]
      expect([name, !!item?.post]).toEqual([name, true])
      expect([name, !!item.get]).toEqual([name, registry.get(name)!.readOnly])
    }
    expect(Object.keys(doc.paths)).toHaveLength(names.length)
  })

  it('describes parameters from the zod schema and the docstring, the auth rule and the envelopes', () => {
    const search = doc.paths['/api/3/action/package_search']
    const body = search.post.requestBody.content['application/json'].schema
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['q', 'fq', 'rows', 'start', 'sort', 'facet.field', 'include_private']))
    expect(body.properties.q.description).toMatch(/Lucene syntax/)
    expect(search.get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['q', 'rows', 'callback']))
    expect(search.post.description).toContain('**Authorization:** Anyone may call it.')
    expect(doc.paths['/api/3/action/rating_create'].post.description).toMatch(/must be signed in/)
    expect(doc.paths['/api/3/action/datastore_function_create'].post.description).toContain('Sysadmins only.')
    expect(doc.paths['/api/3/action/package_show'].get.description).toMatch(/Checked against the objects named/)
    expect(doc.paths['/api/3/action/package_create'].get).toBeUndefined()
    expect(search.post.responses['200'].content['application/json'].schema.properties.success).toEqual({ const: true })
    expect(search.post.responses['409']).toEqual({ $ref: '#/components/responses/Invalid' })
    expect(doc.components.schemas.Error.properties.error.properties.__type.enum).toContain('Authorization Error')
    expect(doc.paths['/api/3/action/resource_create'].post.requestBody.content['multipart/form-data']).toBeDefined()
  })

  it('has no dataset type components or variants without metadata schemas', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(['Error'])
    const create = doc.paths['/api/3/action/package_create'].post
    expect(create.requestBody.content['application/json'].schema.oneOf).toBeUndefined()
    expect(create.description).not.toContain('Dataset types')
    expect(Object.keys(doc.paths['/api/3/action/package_patch'].post.requestBody.content['application/json'].schema.properties)).toEqual(['id'])
  })

  it('parses CKAN docstrings', () => {
    const p = parseHelp('Does a thing.\n\nMore text.\n\n:param id: the id\n  of it\n:type id: string\n:returns: the thing\n:rtype: dict')
    expect(p.summary).toBe('Does a thing.')
    expect(p.params.get('id')).toEqual({ description: 'the id of it', type: 'string' })
    expect(p.returns).toBe('the thing')
  })

  it('serves a docs page that reads the document', async () => {
    const res = await t.app.request('/api/3/docs')
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('/api/3/openapi.json')
  })
})
