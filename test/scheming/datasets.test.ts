// Dataset types from ckanext-scheming schema files (test/fixtures/scheming/): every preset through
// package_create / show / update / patch, CKAN's error dicts (subfields included), search and
// facets on schema fields, the schema actions, and datasets stored before a schema applied.
import { beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../src/app'
import { setup } from '../helpers/setup'
import { makers } from '../helpers/make'
import { SCHEMING } from './config'


type T = Awaited<ReturnType<typeof setup>>
let t: T
let admin: { apikey: string }
let n = 0
const uniq = (p: string) => `${p}-${++n}`

beforeAll(async () => {
  t = await setup(SCHEMING)
  t.make = makers(t)
  admin = await t.make.sysadmin()
})

const create = (d: Record<string, unknown>) => t.call('package_create', d, admin)
const errorOf = (r: { status: number; body: any }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(409)
  expect(r.body.error.__type).toBe('Validation Error')
  return r.body.error
}
const photo = (extra: Record<string, unknown> = {}) => ({
  type: 'river-photos',
  name: uniq('photo'),
  title: 'Weir in flood',
  river_section: 'middle',
  conditions: ['flood'],
  observed_on: '2024-04-02',
  is_public_domain: 'true',
  ...extra,
})

describe('the core dataset schema with extra fields (dataset.yaml)', () => {
  it('stores schema fields as top-level keys, not extras, and checks them', async () => {
    const r = await create({ name: uniq('rain'), title: 'Rainfall', contact_email: ' desk@example.org ', frequency: 'weekly', spatial_resolution: '1 km', extras: [{ key: 'legacy', value: 'x' }] })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const d = r.body.result
    expect(d.contact_email).toBe('desk@example.org')
    expect(d.frequency).toBe('weekly')
    expect(d.spatial_resolution).toBe('1 km')
    expect(d.extras).toEqual([{ key: 'legacy', value: 'x' }])
    const shown = await t.ok('package_show', { id: d.id })
    expect(shown.frequency).toBe('weekly')
    expect(shown.extras.map((e: any) => e.key)).toEqual(['legacy'])
  })

  it("answers CKAN's error dict for each failing field", async () => {
    const e = errorOf(await create({ name: uniq('bad'), frequency: 'hourly', contact_email: 'not-an-address', author_email: 'nope' }))
    expect(e.contact_email).toEqual(['Email not-an-address is not a valid format'])
    expect(e.frequency).toEqual(["Value must be one of ['continuous', 'daily', 'weekly', 'monthly', 'annual', 'irregular', 'never']"])
    expect(e.author_email).toEqual(['Email nope is not a valid format'])
    const missing = errorOf(await create({ name: uniq('bad') }))
    expect(missing.contact_email).toEqual(['Missing value'])
    const noName = errorOf(await create({ contact_email: 'a@example.org' }))
    expect(noName.name).toEqual(['Missing value'])
  })

  it('accepts an empty choice (not required) and drops keys no schema names', async () => {
    const d = (await create({ name: uniq('rain'), contact_email: 'a@example.org', frequency: '', made_up: 'gone' })).body.result
    expect(d.frequency).toBe('')
    expect(d.made_up).toBeUndefined()
  })

  it('package_update replaces, package_patch keeps the fields it is not given', async () => {
    const d = (await create({ name: uniq('rain'), contact_email: 'a@example.org', frequency: 'daily', spatial_resolution: 'district' })).body.result
    const patched = (await t.call('package_patch', { id: d.id, frequency: 'monthly' }, admin)).body.result
    expect(patched.frequency).toBe('monthly')
    expect(patched.spatial_resolution).toBe('district')
    expect(patched.contact_email).toBe('a@example.org')
    const e = errorOf(await t.call('package_update', { id: d.id, name: d.name }, admin))
    expect(e.contact_email).toEqual(['Missing value'])
    const updated = (await t.call('package_update', { id: d.id, name: d.name, contact_email: 'b@example.org' }, admin)).body.result
    expect(updated.contact_email).toBe('b@example.org')
    expect(updated.spatial_resolution).toBeUndefined()
    expect(updated.frequency).toBeUndefined()
  })
})

describe('every preset of a photo-style type (river-photos.yaml)', () => {
  it('stores choices, dates, datetimes, JSON, repeating text and helper choices', async () => {
    const r = await create(
      photo({
        water_clarity: 'muddy',
        conditions: ['ice', 'flood', 'flood'],
        equipment: ['tripod', 'drone'],
        observed_on: '2024-04-02T10:20:00',
        captured_at: '2024-04-02T10:20:30',
        captured_at_tz: '2024-04-02T12:35:00-05:00',
        camera_settings: { iso: 200, lens: '35mm' },
        observers: ['Ada', '', 'Grace'],
        fish_count: '3',
      }),
    )
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const d = await t.ok('package_show', { id: r.body.result.id })
    expect(d.water_clarity).toBe('muddy')
    // scheming: in the order of the choices, each once
    expect(d.conditions).toEqual(['flood', 'ice'])
    expect(d.observed_on).toBe('2024-04-02')
    expect(d.captured_at).toBe('2024-04-02T10:20:30')
    expect(d.captured_at_tz).toBe('2024-04-02T17:35:00')
    expect(d.camera_settings).toEqual({ iso: 200, lens: '35mm' })
    expect(d.observers).toEqual(['Ada', 'Grace'])
    // an extra is text: an int_validator field without an output validator comes back as text
    expect(d.fish_count).toBe('3')
    expect(d.extras.find((e: any) => e.key === 'conditions')).toBeUndefined()
  })

  it('refuses each preset with its own message', async () => {
    const e = errorOf(
      await create(
        photo({
          river_section: 'delta',
          water_clarity: 'green',
          conditions: ['flood', 'drought'],
          equipment: ['boat'],
          observed_on: '02/04/2024',
          captured_at_tz: '2024-04-02 12:35',
          camera_settings: '[1, 2]',
          fish_count: 'many',
        }),
      ),
    )
    expect(e.river_section).toEqual(["Value must be one of ['source', 'upper', 'middle', 'lower', 'estuary']"])
    expect(e.water_clarity).toEqual(["Value must be one of ['clear', 'cloudy', 'muddy']"])
    expect(e.conditions).toEqual(['unexpected choice "drought"'])
    expect(e.equipment).toEqual(['unexpected choice "boat"'])
    expect(e.observed_on).toEqual(['Date format incorrect'])
    expect(e.captured_at_tz).toEqual(['Date format incorrect'])
    expect(e.camera_settings).toEqual(['Unsupported value for JSON field: [1, 2]'])
    expect(e.fish_count).toEqual(['Invalid integer'])
  })

  it('requires what the schema marks required', async () => {
    const e = errorOf(await create({ type: 'river-photos', name: uniq('photo'), conditions: [] }))
    expect(e.river_section).toEqual(['Missing value'])
    expect(e.conditions).toEqual(['Select at least one'])
    expect(e.observed_on).toEqual(['Missing value'])
  })

  it('takes the form inputs of a datetime (<field>_date, <field>_time) and reports them by key', async () => {
    const ok = await create(photo({ captured_at_date: '2024-05-01', captured_at_time: '08:15' }))
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.result.captured_at).toBe('2024-05-01T08:15:00')
    const e = errorOf(await create(photo({ captured_at_date: '2024-13-01' })))
    expect(e.captured_at_date).toEqual(['Date format incorrect'])
  })
})

describe('resource fields (river-photos.yaml)', () => {
  it('checks and shows them through package_create, resource_create and resource_patch', async () => {
    const d = (await create(photo({ resources: [{ url: 'http://example.org/a.jpg', lens: 'tele', taken_on: '2024-01-01T10:00', exif: { iso: 100 }, fish_in_photo: '2' }] }))).body.result
    const r = d.resources[0]
    expect(r).toMatchObject({ lens: 'tele', taken_on: '2024-01-01', exif: { iso: 100 }, fish_in_photo: 2 })
    const bad = errorOf(await create(photo({ resources: [{ url: 'http://example.org/a.jpg' }, { url: 'http://example.org/b.jpg', lens: 'fisheye' }] })))
    expect(bad.resources).toEqual([{}, { lens: ["Value must be one of ['wide', 'standard', 'tele']"] }])
    const refused = errorOf(await t.call('resource_create', { package_id: d.id, url: 'http://example.org/c.jpg', taken_on: 'yesterday' }, admin))
    expect(refused.taken_on).toEqual(['Date format incorrect'])
    const added = await t.call('resource_create', { package_id: d.id, url: 'http://example.org/c.jpg', lens: 'wide', exif: '{"f": 2.8}' }, admin)
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.result).toMatchObject({ lens: 'wide', exif: { f: 2.8 } })
    const patched = (await t.call('resource_patch', { id: r.id, lens: 'wide' }, admin)).body.result
    expect(patched).toMatchObject({ lens: 'wide', exif: { iso: 100 }, taken_on: '2024-01-01' })
    expect((await t.ok('resource_show', { id: r.id })).exif).toEqual({ iso: 100 })
  })
})

describe('repeating subfields (monitoring-stations.yaml)', () => {
  const station = (s: Record<string, unknown>) => ({ station_id: 'S1', status: 'active', sensors: ['stage'], ...s })

  it('stores and shows lists of dicts', async () => {
    const r = await create({
      type: 'monitoring-stations',
      name: uniq('net'),
      title: 'Upper Avon',
      notes: 'Gauges',
      station_count: '2',
      stations: [station({ installed_on: '2019-03-04', elevation_m: '120' }), station({ station_id: 'S2', status: 'closed' })],
      contacts: [{ contact_name: 'Desk', email: 'desk@example.org' }],
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const d = await t.ok('package_show', { id: r.body.result.id })
    expect(d.stations).toEqual([
      { station_id: 'S1', status: 'active', sensors: ['stage'], installed_on: '2019-03-04', elevation_m: 120 },
      { station_id: 'S2', status: 'closed', sensors: ['stage'] },
    ])
    expect(d.contacts).toEqual([{ contact_name: 'Desk', email: 'desk@example.org' }])
    expect(d.station_count).toBe(2)
  })

  it('reports errors item by item, {} for the good ones', async () => {
    const e = errorOf(
      await create({
        type: 'monitoring-stations',
        name: uniq('net'),
        title: 'T',
        notes: 'N',
        stations: [station({}), station({ status: 'gone', sensors: [] })],
        contacts: [{ contact_name: 'A', email: 'a@example.org' }, { contact_name: 'B' }],
      }),
    )
    expect(e.contacts).toEqual([{}, { email: ['Missing value'] }])
    expect(e.stations).toEqual([{}, { status: ["Value must be one of ['active', 'suspended', 'closed']"], sensors: ['Missing value'] }])
  })

  it('reads form posts of subfields (contacts-0-email)', async () => {
    const r = await create({ type: 'monitoring-stations', name: uniq('net'), title: 'T', notes: 'N', 'contacts-0-email': 'x@example.org', 'contacts-1-email': '' , 'contacts-1-contact_name': '' })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.result.contacts).toEqual([{ email: 'x@example.org' }])
  })

  it('refuses a positive_integer (a preset of the site) below 1', async () => {
    const e = errorOf(await create({ type: 'monitoring-stations', name: uniq('net'), title: 'T', notes: 'N', station_count: '0' }))
    expect(e.station_count).toEqual(['Must be a postive integer'])
  })
})

describe('multilingual fields (fluent.yaml)', () => {
  const report = (extra: Record<string, unknown>) =>
    create({ type: 'bilingual-report', name: uniq('report'), title_translated: { en: 'Rivers', fr: 'Rivières' }, methodology: { en: 'Counted', fr: 'Compté', de: 'Gezählt' }, ...extra })

  it('stores language dicts and shows the core field in the default language', async () => {
    const r = await report({ summary: '{"en": "Short", "fr": "Court"}' })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const d = await t.ok('package_show', { id: r.body.result.id })
    expect(d.title_translated).toEqual({ en: 'Rivers', fr: 'Rivières' })
    // fluent_core_translated_output: title is the default language's text
    expect(d.title).toBe('Rivers')
    expect(d.methodology).toEqual({ en: 'Counted', fr: 'Compté', de: 'Gezählt' })
    expect(d.summary).toEqual({ en: 'Short', fr: 'Court' })
  })

  it('requires every form language of a required field, and refuses odd language codes', async () => {
    expect(errorOf(await report({ title_translated: { en: 'Only English' } })).title_translated).toEqual(['Required language "fr" missing'])
    expect(errorOf(await report({ methodology: { EN: 'x' } })).methodology).toContain('invalid language code: "EN"')
    expect(errorOf(await report({ methodology: 'not json' })).methodology).toEqual(['Failed to decode JSON string'])
    expect(errorOf(await report({ methodology: ['a'] })).methodology).toEqual(['expecting JSON object'])
  })

  it('reads the form inputs <field>-<lang> and names the missing one', async () => {
    const e = errorOf(await create({ type: 'bilingual-report', name: uniq('report'), title_translated: { en: 'T', fr: 'T' }, 'methodology-en': 'Counted' }))
    expect(e['methodology-fr']).toEqual(['Missing value'])
    const ok = await create({ type: 'bilingual-report', name: uniq('report'), title_translated: { en: 'T', fr: 'T' }, 'methodology-en': 'Counted', 'methodology-fr': 'Compté', 'methodology-de': 'Gezählt' })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.result.methodology).toEqual({ en: 'Counted', fr: 'Compté', de: 'Gezählt' })
  })

  it('finds a dataset by a word of any language', async () => {
    const d = (await report({ methodology: { en: 'Counted', fr: 'Dénombrement hydrographique', de: 'Gezählt' } })).body.result
    const found = await t.ok('package_search', { q: 'hydrographique' })
    expect(found.results.map((x: any) => x.id)).toEqual([d.id])
  })
})

describe('draft_fields_required: false (survey-formpages.yaml)', () => {
  it('lets a draft (or a dataset with no state) leave required fields out, and holds an active one to them', async () => {
    // scheming's multiple_text checks `required` whatever the state
    expect(errorOf(await create({ type: 'survey', name: uniq('survey'), state: 'draft' })).surveyors).toEqual(['Missing value'])
    const draft = await create({ type: 'survey', name: uniq('survey'), state: 'draft', surveyors: ['Ada'] })
    expect(draft.status, JSON.stringify(draft.body)).toBe(200)
    const e = errorOf(await create({ type: 'survey', name: uniq('survey'), state: 'active' }))
    expect(e.notes).toEqual(['Missing value'])
    expect(e.survey_method).toEqual(['Missing value'])
    expect(e.habitats).toEqual(['Select at least one'])
  })
})

describe('search on schema fields', () => {
  it('filters by fq on a choice field and by type, and facets on schema fields', async () => {
    const a = (await create({ name: uniq('s'), contact_email: 'a@example.org', frequency: 'annual' })).body.result
    await create({ name: uniq('s'), contact_email: 'a@example.org', frequency: 'never' })
    const p = (await create(photo({ conditions: ['algae', 'low'] }))).body.result
    const byFreq = await t.ok('package_search', { fq: 'frequency:annual' })
    expect(byFreq.results.map((d: any) => d.id)).toEqual([a.id])
    const facets = await t.ok('package_search', { 'facet.field': ['frequency', 'conditions'], rows: 0 })
    expect(facets.search_facets.frequency.items.map((i: any) => i.name)).toContain('annual')
    expect(facets.search_facets.conditions.items.map((i: any) => i.name)).toEqual(expect.arrayContaining(['algae', 'low']))
    const photos = await t.ok('package_search', { fq: 'type:river-photos', rows: 1000 })
    expect(photos.results.map((d: any) => d.id)).toContain(p.id)
    expect(photos.results.every((d: any) => d.type === 'river-photos')).toBe(true)
    const byCondition = await t.ok('package_search', { fq: 'conditions:algae' })
    expect(byCondition.results.map((d: any) => d.id)).toEqual([p.id])
    // search results carry the schema's top-level fields, as package_show does
    expect(byCondition.results[0].conditions).toEqual(['low', 'algae'])
  })

  it('finds words of schema text fields with q', async () => {
    const d = (await create({ name: uniq('s'), contact_email: 'a@example.org', spatial_resolution: 'hectometre raster' })).body.result
    const found = await t.ok('package_search', { q: 'hectometre' })
    expect(found.results.map((x: any) => x.id)).toEqual([d.id])
  })
})

describe('the schema actions', () => {
  it('lists the types and shows a schema, expanded unless expanded is false', async () => {
    expect(await t.ok('scheming_dataset_schema_list')).toEqual(['dataset', 'river-photos', 'monitoring-stations', 'dcat-dataset', 'bilingual-report', 'survey'])
    expect(await t.ok('scheming_organization_schema_list')).toEqual(['agency'])
    expect(await t.ok('scheming_group_schema_list')).toEqual(['basin'])
    const expanded = await t.ok('scheming_dataset_schema_show', { type: 'dataset' })
    const freq = expanded.dataset_fields.find((f: any) => f.field_name === 'frequency')
    expect(freq).toMatchObject({ preset: 'select', validators: 'scheming_required scheming_choices', form_snippet: 'select.html' })
    const raw = await t.ok('scheming_dataset_schema_show', { type: 'dataset', expanded: false })
    expect(raw.dataset_fields.find((f: any) => f.field_name === 'frequency').validators).toBeUndefined()
    // ckan reads the value as given: the text "false" of a GET is true
    const viaGet = await t.get('/api/3/action/scheming_dataset_schema_show?type=dataset&expanded=false')
    expect(viaGet.body.result.dataset_fields.find((f: any) => f.field_name === 'frequency').validators).toBeDefined()
    const org = await t.ok('scheming_organization_schema_show', { type: 'agency' })
    expect(Array.isArray(org.fields)).toBe(true)
  })

  it('answers Not Found for an unknown type and a Validation Error without one', async () => {
    const r = await t.call('scheming_dataset_schema_show', { type: 'camels' })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found' })
    expect(errorOf(await t.call('scheming_group_schema_show', {})).type).toEqual(['Missing value'])
  })
})

describe('datasets stored before the schema applied', () => {
  it('still show; their next update must satisfy the schema; nothing stored is lost', async () => {
    // the same database through an app without schemas, as the site was before
    const before = createApp({ ...t.deps, schemas: undefined })
    const res = await before.request('/api/3/action/package_create', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: admin.apikey },
      body: JSON.stringify({ name: uniq('old'), extras: [{ key: 'frequency', value: 'weekly' }, { key: 'legacy_code', value: 'L7' }] }),
    })
    const old = ((await res.json()) as any).result
    const shown = await t.ok('package_show', { id: old.id })
    expect(shown.frequency).toBe('weekly')
    expect(shown.contact_email).toBeUndefined()
    expect(shown.extras).toEqual([{ key: 'legacy_code', value: 'L7' }])
    const e = errorOf(await t.call('package_patch', { id: old.id, title: 'New title' }, admin))
    expect(e.contact_email).toEqual(['Missing value'])
    const fixed = (await t.call('package_patch', { id: old.id, contact_email: 'a@example.org' }, admin)).body.result
    expect(fixed.frequency).toBe('weekly')
    expect(fixed.extras).toEqual([{ key: 'legacy_code', value: 'L7' }])
  })
})

describe('dataset_fallback', () => {
  it('without it, a type no schema declares gets the core schema; with it, a Validation Error', async () => {
    const plain = await create({ type: 'camel-photos', name: uniq('c') })
    expect(plain.status).toBe(200)
    expect(plain.body.result.type).toBe('camel-photos')
    const strict = await setup({ ...SCHEMING, 'scheming.dataset_fallback': 'true' })
    const who = await makers(strict).sysadmin()
    const e = errorOf(await strict.call('package_create', { type: 'camel-photos', name: uniq('c') }, who))
    expect(e).toEqual({ __type: 'Validation Error', type: ['Unsupported dataset type: camel-photos'] })
  })
})
