// Issue 28: with metadata schemas (ckanext-scheming) the OpenAPI document describes each dataset,
// resource, organization and group type's fields as a component schema, and the actions that take
// or return those dicts point at them; the document still validates, and a JSON Schema validator
// reading it accepts and refuses bodies as the actions do.
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { SCHEMING } from '../scheming/config'

let t: TestEnv
let doc: any

beforeAll(async () => {
  t = await setup(SCHEMING)
  const res = await t.app.request('/api/3/openapi.json')
  expect(res.status).toBe(200)
  doc = await res.json()
})

const schemas = () => doc.components.schemas
const post = (action: string) => doc.paths[`/api/3/action/${action}`].post
const body = (action: string) => post(action).requestBody.content['application/json'].schema

/** A validator of one schema of the document, its $refs resolved against the document. */
function checker(schema: object) {
  const ajv = new Ajv2020({ allErrors: true, strict: false })
  addFormats(ajv)
  return ajv.compile({ ...schema, components: doc.components })
}

describe('GET /api/3/openapi.json with dataset schemas', () => {
  it('validates as OpenAPI 3.1, and every $ref resolves', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? []
    for (const r of new Set(refs)) {
      const path = r.slice(8, -1).replace(/^#\//, '').split('/')
      let at: any = doc
      for (const p of path) at = at?.[p]
      expect([r, at !== undefined]).toEqual([r, true])
    }
    // each component is a JSON Schema (2020-12) a validator compiles
    for (const name of Object.keys(schemas())) expect(() => checker({ $ref: `#/components/schemas/${name}` })).not.toThrow()
  })

  it('has a component per dataset, resource, organization and group type', () => {
    expect(Object.keys(schemas())).toEqual(
      expect.arrayContaining([
        'dataset.dataset',
        'dataset.river-photos',
        'dataset.monitoring-stations',
        'dataset.dcat-dataset',
        'dataset.bilingual-report',
        'resource.river-photos',
        'resource.monitoring-stations',
        'organization.agency',
        'group.basin',
      ]),
    )
  })

  it('types each field by its preset and validators, with titles, choices and the required list', () => {
    const photo = schemas()['dataset.river-photos']
    const p = photo.properties
    expect(p.type).toMatchObject({ const: 'river-photos' })
    expect(p.river_section).toMatchObject({ title: 'River section', enum: ['source', 'upper', 'middle', 'lower', 'estuary'] })
    expect(p.river_section.description).toMatch(/^Which part of the river the photo shows\. Choices: source \(Source \/ headwater\)/)
    expect(p.water_clarity.enum).toEqual(['clear', 'cloudy', 'muddy'])
    expect(p.conditions).toMatchObject({ type: 'array', items: { enum: ['flood', 'ice', 'low', 'algae'] } })
    // choices_helper: the helper's list
    expect(p.equipment.items.enum).toEqual(['camera', 'drone', 'phone', 'tripod'])
    expect(p.observed_on).toMatchObject({ type: 'string', format: 'date' })
    expect(p.captured_at).toMatchObject({ type: 'string', format: 'date-time' })
    expect(p.captured_at_tz).toMatchObject({ type: 'string', format: 'date-time' })
    expect(p.camera_settings).toMatchObject({ type: 'object' })
    expect(p.observers).toMatchObject({ type: 'array', items: { type: 'string' } })
    expect(p.fish_count.type).toEqual(['integer', 'string'])
    expect(p.is_public_domain.type).toEqual(['boolean', 'string'])
    expect(p.source_page).toMatchObject({ type: 'string', format: 'uri' })
    // a label in several languages: the English one
    expect(p.field_notes).toMatchObject({ title: 'Field notes', description: 'Anything else worth recording.', type: 'string' })
    expect(photo.required).toEqual(['name', 'river_section', 'conditions', 'observed_on', 'is_public_domain'])
    expect(p.resources.items).toEqual({ $ref: '#/components/schemas/resource.river-photos' })
    expect(schemas()['resource.river-photos'].properties.lens.enum).toEqual(['wide', 'standard', 'tele'])

    const dataset = schemas()['dataset.dataset']
    expect(dataset.required).toEqual(['name', 'contact_email'])
    expect(dataset.properties.frequency.enum).toEqual(['continuous', 'daily', 'weekly', 'monthly', 'annual', 'irregular', 'never'])
    expect(dataset.properties.contact_email).toMatchObject({ type: 'string', format: 'email', title: 'Contact email' })
    expect(dataset.description).toContain('Default dataset schema of the edge catalogue')

    // repeating subfields: a list of objects with their own required fields
    const stations = schemas()['dataset.monitoring-stations'].properties.stations
    expect(stations.type).toBe('array')
    expect(stations.items.required).toEqual(['station_id', 'status', 'sensors'])
    expect(stations.items.properties.status.enum).toEqual(['active', 'suspended', 'closed'])
    expect(stations.items.properties.elevation_m.type).toEqual(['integer', 'string'])
    expect(schemas()['dataset.monitoring-stations'].properties.station_count.type).toEqual(['integer', 'string'])
    // required: true without a validator that honours it (title's preset) is not required, as in scheming
    expect(schemas()['dataset.monitoring-stations'].required).toEqual(['name', 'notes'])
    expect(schemas()['resource.monitoring-stations'].properties.sampling_schedule.items.required).toEqual(['parameter'])

    // fluent: one text (or tag list) per language
    const report = schemas()['dataset.bilingual-report']
    expect(report.properties.methodology).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } })
    expect(report.properties.keywords.additionalProperties).toEqual({ type: 'array', items: { type: 'string' } })
    expect(report.required).toEqual(['title_translated', 'name', 'methodology', 'keywords'])
  })

  it('describes organization and group types', () => {
    const agency = schemas()['organization.agency']
    expect(agency.properties.type).toMatchObject({ const: 'agency' })
    expect(agency.required).toEqual(['name', 'agency_code'])
    expect(agency.properties.postal_address.title).toBe('Postal address')
    const basin = schemas()['group.basin']
    expect(basin.properties.catchment_kind.enum).toEqual(['natural', 'managed'])
    // choices without a validator that checks them are not enforced: any text
    expect(basin.properties.review_status).toMatchObject({ type: 'string' })
    expect(basin.properties.review_status.enum).toBeUndefined()
    expect(body('organization_create').oneOf[0]).toEqual({ $ref: '#/components/schemas/organization.agency', required: ['type'] })
    expect(body('group_create').oneOf[0]).toEqual({ $ref: '#/components/schemas/group.basin', required: ['type'] })
  })

  it('points package_create, _update, _patch and _show at the types', () => {
    const create = body('package_create')
    expect(create.oneOf.map((v: any) => v.$ref).filter(Boolean)).toEqual([
      '#/components/schemas/dataset.dataset',
      '#/components/schemas/dataset.river-photos',
      '#/components/schemas/dataset.monitoring-stations',
      '#/components/schemas/dataset.dcat-dataset',
      '#/components/schemas/dataset.bilingual-report',
      '#/components/schemas/dataset.survey',
    ])
    // the form and multipart bodies are the same
    expect(post('package_create').requestBody.content['application/x-www-form-urlencoded'].schema.oneOf).toEqual(create.oneOf)
    expect(post('package_create').description).toContain('river-photos (requires name, river_section, conditions, observed_on, is_public_domain)')
    expect(post('package_create').description).toMatch(/\*\*Authorization:\*\*[^*]+$/)
    expect(body('package_update').anyOf.map((v: any) => v.$ref)).toContain('#/components/schemas/dataset.river-photos')
    // a patch names every type's fields, none required
    const patch = body('package_patch')
    expect(Object.keys(patch.properties)).toEqual(expect.arrayContaining(['id', 'river_section', 'stations', 'contact_email']))
    expect(patch.properties.river_section.enum).toEqual(['source', 'upper', 'middle', 'lower', 'estuary'])
    expect(patch.properties.contact_email.description).toMatch(/required for dataset/)
    expect(patch.required ?? []).toEqual([])
    const shown = doc.paths['/api/3/action/package_show'].get.responses['200'].content['application/json'].schema.properties.result
    expect(shown.anyOf.map((v: any) => v.$ref)).toContain('#/components/schemas/dataset.river-photos')
    expect(post('resource_create').description).toContain('river-photos → `resource.river-photos`')
    expect(post('package_search').description).toMatch(/fixed choices: .*`river_section`.*`conditions`/)
  })

  it('lists the scheming_* actions', () => {
    for (const kind of ['dataset', 'organization', 'group'])
      for (const what of ['list', 'show']) {
        const item = doc.paths[`/api/3/action/scheming_${kind}_schema_${what}`]
        expect(item?.get).toBeDefined()
        expect(item.post).toBeDefined()
      }
    expect(body('scheming_dataset_schema_show').properties.type).toBeDefined()
  })

  it('accepts and refuses package_create bodies as the types say', async () => {
    const valid = checker(body('package_create'))
    const photo = { type: 'river-photos', name: 'weir', river_section: 'middle', conditions: ['flood'], observed_on: '2024-04-02', is_public_domain: 'true' }
    expect(valid(photo), JSON.stringify(valid.errors)).toBe(true)
    expect(valid({ ...photo, river_section: 'delta' })).toBe(false)
    expect(valid({ ...photo, conditions: ['snow'] })).toBe(false)
    const { river_section: _, ...withoutSection } = photo
    expect(valid(withoutSection)).toBe(false)
    // without a type: the default type's schema
    expect(valid({ name: 'rain', contact_email: 'a@example.org' })).toBe(true)
    expect(valid({ name: 'rain' })).toBe(false)
    expect(valid({ name: 'rain', contact_email: 'a@example.org', frequency: 'hourly' })).toBe(false)
    // a type without a schema (no dataset_fallback): CKAN's core fields
    expect(valid({ type: 'harvest', name: 'harvested' })).toBe(true)
    // and the action agrees with those verdicts
    const admin = await t.make.sysadmin()
    expect((await t.call('package_create', photo, admin)).status).toBe(200)
    expect((await t.call('package_create', { ...photo, name: 'weir-2', river_section: 'delta' }, admin)).status).toBe(409)
    expect((await t.call('package_create', { name: 'rain' }, admin)).status).toBe(409)
    expect((await t.call('package_create', { type: 'harvest', name: 'harvested' }, admin)).status).toBe(200)
  })
})
