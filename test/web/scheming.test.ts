// Issue 28 item 5, pages from a schema (ckanext-scheming): the dataset form of a type renders each
// field by its form_snippet, posts create the dataset (choices, dates, repeating blocks added
// without JavaScript), errors sit by their fields, the dataset page shows each field by its
// display_snippet, /<type>/ lists that type only, and organization/group forms take their custom fields.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

const F = 'test/fixtures/scheming/'
const SCHEMING = {
  'scheming.dataset_schemas': ['river-photos.yaml', 'monitoring-stations.yaml', 'fluent.yaml'].map((f) => F + f).join(' '),
  'scheming.organization_schemas': `${F}org-with-address.json`,
  'scheming.group_schemas': `${F}group-default.json ${F}group-with-status.json`,
  'scheming.presets': `ckanext.scheming:presets.json ckanext.fluent:presets.json ${F}presets-extra.json`,
  'scheming.choices_helpers': `${F}choices-helpers.yaml`,
}

let t: TestEnv
let b: Browser
let org: any
let sys: any

beforeAll(async () => {
  t = await setup(SCHEMING)
  sys = await t.make.sysadmin()
  const editor = await t.make.user({ name: 'schema-editor', password: 'editor password' })
  org = await t.make.organization(sys, { name: 'rivers-org', title: 'Rivers Org' })
  await t.ok('organization_member_create', { id: org.id, username: editor.name, role: 'editor' }, sys)
  b = browser((path, init) => t.app.request(path, init))
  await signIn(b, 'schema-editor', 'editor password')
})

const fields = (html: string) => [...html.matchAll(/\bname="([^"]+)"/g)].map((m) => m[1]!)

describe('the dataset form of a schema type', () => {
  it('renders every preset\'s control for river-photos, in the schema\'s order', async () => {
    const r = await b.get('/river-photos/new')
    expect(r.res.status).toBe(200)
    const h = r.html
    expect(h).toContain('action="/river-photos/new"')
    // select with its labels, radio, checkboxes, multiple select from the choices helper
    expect(h).toMatch(/<select id="field-river_section" name="river_section"[^>]*><option value="source">Source \/ headwater<\/option>/)
    expect(h).toContain('type="radio" name="water_clarity" value="cloudy"')
    expect(h).toContain('type="checkbox" name="conditions" value="algae"')
    expect(h).toMatch(/<select id="field-equipment" name="equipment"[^>]* multiple="" size="4">/)
    expect(h).toContain('<option value="drone">Drone</option>')
    // dates: date, datetime as _date + _time, datetime_tz with its zones
    expect(h).toMatch(/name="observed_on"[^>]* type="date"/)
    expect(h).toMatch(/name="captured_at_date" type="date"/)
    expect(h).toMatch(/name="captured_at_time" type="time"/)
    expect(h).toContain('<label for="field-captured_at_time">Capture time</label>')
    expect(h).toContain('<option value="America/Toronto">America/Toronto</option>')
    expect(h).toMatch(/name="captured_at_tz_tz"/)
    // json and markdown textareas, multiple_text with its form_blanks, text with placeholder
    expect(h).toMatch(/<textarea id="field-camera_settings" name="camera_settings"/)
    expect(h).toMatch(/<textarea id="field-field_notes" name="field_notes"/)
    expect(fields(h).filter((n) => n === 'observers')).toHaveLength(2)
    expect(h).toContain('placeholder="e.g. RP-0042"')
    // dict labels and help texts in the page's language, required markers
    expect(h).toContain('Field notes')
    expect(h).toContain('Anything else worth recording')
    expect(h).toMatch(/Date observed <abbr class="req"/)
    const order = fields(h).filter((n) => !n.startsWith('_'))
    expect(order.indexOf('title')).toBeLessThan(order.indexOf('river_section'))
    expect(order.indexOf('river_section')).toBeLessThan(order.indexOf('observed_on'))
    expect(order.indexOf('observed_on')).toBeLessThan(order.indexOf('source_page'))
    // core controls kept, the organization and visibility asked for
    expect(h).toContain(`<option value="${org.id}"`)
    expect(h).toContain('name="private"')
    const fr = await b.get('/fr/river-photos/new')
    expect(fr.html).toContain('Notes de terrain')
    expect(fr.html).toContain('Toute autre observation utile')
  })

  it('creates a river-photos dataset with choices, dates and lists', async () => {
    const form = await b.get('/river-photos/new')
    const body = new URLSearchParams([
      ['_csrf_token', csrfOf(form.html)],
      ['title', 'Weir in flood'],
      ['name', 'weir-in-flood'],
      ['river_section', 'middle'],
      ['water_clarity', 'muddy'],
      ['conditions', 'flood'],
      ['conditions', 'low'],
      ['equipment', 'drone'],
      ['observed_on', '2024-04-02'],
      ['captured_at_date', '2024-04-02'],
      ['captured_at_time', '12:35'],
      ['captured_at_tz_date', '2024-04-02'],
      ['captured_at_tz_time', '12:35'],
      ['captured_at_tz_tz', 'America/Toronto'],
      ['camera_settings', '{"iso": 200}'],
      ['observers', 'Ana'],
      ['observers', ''],
      ['field_notes', 'Water *over* the weir'],
      ['is_public_domain', 'true'],
      ['internal_note', 'not for the page'],
      ['source_page', 'https://example.org/photo/42'],
      ['owner_org', org.id],
      ['private', 'False'],
    ])
    const r = await t.app.request('/river-photos/new', { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ') }, redirect: 'manual' })
    expect(r.status, await r.clone().text()).toBe(303)
    expect(r.headers.get('location')).toBe('/dataset/weir-in-flood/resource/new')
    const d = await t.ok('package_show', { id: 'weir-in-flood' })
    expect(d).toMatchObject({
      type: 'river-photos',
      river_section: 'middle',
      water_clarity: 'muddy',
      conditions: ['flood', 'low'],
      equipment: ['drone'],
      observed_on: '2024-04-02',
      captured_at: '2024-04-02T12:35:00',
      captured_at_tz: '2024-04-02T16:35:00',
      camera_settings: { iso: 200 },
      observers: ['Ana'],
      is_public_domain: true,
      source_page: 'https://example.org/photo/42',
    })
  })

  it('shows each field on the dataset page by its display_snippet', async () => {
    for (const path of ['/dataset/weir-in-flood', '/river-photos/weir-in-flood']) {
      const r = await b.get(path)
      expect(r.res.status).toBe(200)
      const h = r.html
      expect(h).toContain('<dt>River section</dt><dd>Middle course</dd>')
      expect(h).toContain('<dt>Water clarity</dt><dd>Muddy</dd>')
      expect(h).toMatch(/<dt>Conditions<\/dt><dd><ul class="plain"><li>In flood<\/li><li>Low water<\/li><\/ul>/)
      expect(h).toContain('<li>Drone</li>')
      expect(h).toMatch(/<dt>Date observed<\/dt><dd><time datetime="2024-04-02">Apr 2, 2024<\/time>/)
      expect(h).toMatch(/<pre class="json">\{\n {2}&quot;iso&quot;: 200\n\}<\/pre>/)
      expect(h).toContain('<em>over</em>')
      expect(h).toContain('<a href="https://example.org/photo/42" rel="nofollow">')
      expect(h).toContain('<dt>Released into the public domain?</dt><dd>Yes</dd>')
      expect(h).not.toContain('not for the page') // display_snippet: null
    }
  })

  it('fills the edit form from the dataset and saves a change (an emptied field too)', async () => {
    const form = await b.get('/dataset/edit/weir-in-flood')
    expect(form.res.status).toBe(200)
    expect(form.html).toMatch(/<option value="middle" selected="">/)
    expect(form.html).toMatch(/value="flood" checked=""/)
    expect(form.html).toMatch(/name="captured_at_time" type="time" value="12:35"/)
    expect(form.html).toMatch(/name="observers" type="text" value="Ana"/)
    const body = new URLSearchParams([
      ['_csrf_token', csrfOf(form.html)],
      ['title', 'Weir in flood'],
      ['name', 'weir-in-flood'],
      ['river_section', 'lower'],
      ['conditions', 'ice'],
      ['observed_on', '2024-04-03'],
      ['is_public_domain', 'false'],
      ['water_clarity', 'clear'],
      ['owner_org', org.id],
      ['private', 'False'],
    ])
    const r = await t.app.request('/dataset/edit/weir-in-flood', { method: 'POST', body: body.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ') }, redirect: 'manual' })
    expect(r.status, await r.clone().text()).toBe(303)
    const d = await t.ok('package_show', { id: 'weir-in-flood' })
    expect(d).toMatchObject({ river_section: 'lower', conditions: ['ice'], observed_on: '2024-04-03', is_public_domain: false })
    expect(d.equipment ?? []).toEqual([])
    expect(d.observers ?? []).toEqual([])
  })

  it('shows an error next to its field and keeps what was typed', async () => {
    const form = await b.get('/river-photos/new')
    const r = await b.post('/river-photos/new', {
      _csrf_token: csrfOf(form.html),
      title: 'No date',
      river_section: 'upper',
      conditions: 'ice',
      observed_on: '',
      captured_at_date: '2024-04-02',
      captured_at_time: '99:99',
      is_public_domain: 'true',
      owner_org: org.id,
      field_notes: 'kept notes',
    })
    expect(r.res.status).toBe(409)
    expect(r.html).toMatch(/name="observed_on" aria-describedby="observed_on-error" aria-invalid="true"/)
    expect(r.html).toMatch(/<input id="field-observed_on"[^>]*\/><p class="field-error" id="observed_on-error">Missing value<\/p>/)
    expect(r.html).toContain('id="captured_at_time-error">Time format incorrect</p>')
    expect(r.html).toContain('kept notes')
    expect(r.html).toMatch(/value="ice" checked=""/)
  })
})

describe('repeating subfields (monitoring-stations)', () => {
  it('adds a block without JavaScript, keeping the values, then creates the dataset', async () => {
    const form = await b.get('/monitoring-stations/new')
    expect(form.html).toContain('name="stations-0-station_id"')
    expect(form.html).not.toContain('name="stations-1-station_id"')
    const csrf = csrfOf(form.html)
    const typed = {
      _csrf_token: csrf,
      title: 'Upper Avon gauges',
      name: 'upper-avon-gauges',
      notes: 'Gauging network',
      owner_org: org.id,
      private: 'False',
      'stations-0-station_id': 'UA-1',
      'stations-0-status': 'active',
      'stations-0-installed_on': '2020-05-01',
      'stations-0-sensors': 'level',
      'contacts-0-email': 'desk@example.org',
    }
    const more = await b.post('/monitoring-stations/new', { ...typed, add_stations: '1' })
    expect(more.res.status).toBe(200)
    expect(more.html).toContain('name="stations-1-station_id"')
    expect(more.html).not.toContain('name="stations-2-station_id"')
    expect(more.html).toMatch(/name="stations-0-station_id"[^>]* value="UA-1"/)
    expect(more.html).toMatch(/name="stations-0-installed_on"[^>]* value="2020-05-01"/)
    expect(more.html).toContain('value="desk@example.org"')
    expect(await t.call('package_show', { id: 'upper-avon-gauges' }).then((x) => x.status)).toBe(404)
    // remove the first block: the second becomes block 0
    const removed = await b.post('/monitoring-stations/new', { ...typed, 'stations-1-station_id': 'UA-2', remove_stations: '0' })
    expect(removed.html).toMatch(/name="stations-0-station_id"[^>]* value="UA-2"/)
    expect(removed.html).not.toContain('name="stations-1-station_id"')
    const r = await b.post('/monitoring-stations/new', {
      ...typed,
      'stations-1-station_id': 'UA-2',
      'stations-1-status': 'closed',
      'stations-1-sensors': 'flow',
      'stations-2-station_id': '',
    })
    expect(r.res.status, r.html).toBe(303)
    const d = await t.ok('package_show', { id: 'upper-avon-gauges' }, sys)
    expect(d.type).toBe('monitoring-stations')
    expect(d.stations).toEqual([
      { station_id: 'UA-1', status: 'active', installed_on: '2020-05-01', sensors: ['level'] },
      { station_id: 'UA-2', status: 'closed', sensors: ['flow'] },
    ].map((s) => expect.objectContaining(s)))
    expect(d.contacts).toEqual([expect.objectContaining({ email: 'desk@example.org' })])
    const page = await b.get('/dataset/upper-avon-gauges')
    expect(page.html).toContain('<ol class="blocks">')
    expect(page.html).toContain('<dt>Status</dt><dd>Active</dd>')
    expect(page.html).toContain('<a href="mailto:desk@example.org">desk@example.org</a>')
    const edit = await b.get('/dataset/edit/upper-avon-gauges')
    expect(edit.html).toMatch(/name="stations-1-station_id"[^>]* value="UA-2"/)
  })

  it('shows a block\'s error by its subfield', async () => {
    const form = await b.get('/monitoring-stations/new')
    const r = await b.post('/monitoring-stations/new', {
      _csrf_token: csrfOf(form.html),
      title: 'Bad stations',
      notes: 'x',
      owner_org: org.id,
      'stations-0-station_id': 'S-1',
      'stations-0-status': 'active',
      'stations-0-sensors': 'level',
      'contacts-0-contact_name': 'No address',
    })
    expect(r.res.status).toBe(409)
    expect(r.html).toMatch(/name="contacts-0-email" aria-describedby="contacts-0-email-error" aria-invalid="true"/)
    expect(r.html).toContain('<p class="field-error" id="contacts-0-email-error">Missing value</p>')
    expect(r.html).toMatch(/name="contacts-0-contact_name"[^>]* value="No address"/)
  })
})

describe('resource forms from resource_fields (river-photos)', () => {
  it('asks for the resource fields by preset, creates a resource with a choice, a date and JSON, and shows them', async () => {
    const form = await b.get('/dataset/weir-in-flood/resource/new')
    expect(form.res.status).toBe(200)
    const h = form.html
    // today's controls kept, the schema's own after them
    for (const n of ['upload', 'url', 'name', 'description', 'format']) expect(fields(h)).toContain(n)
    expect(h).toMatch(/<select id="field-lens" name="lens"[^>]*><option value="wide">Wide angle<\/option>/)
    expect(h).toMatch(/name="taken_on"[^>]* type="date"/)
    expect(h).toMatch(/name="taken_at_date" type="date"/)
    expect(h).toMatch(/name="taken_at_tz_tz"/)
    expect(h).toMatch(/<textarea id="field-exif" name="exif"/)
    expect(h).toContain('placeholder="e.g. 2"')
    const r = await b.post('/dataset/weir-in-flood/resource/new', {
      _csrf_token: csrfOf(h),
      url: 'https://example.org/photos/weir.jpg',
      name: 'Weir photo',
      format: 'JPEG',
      fish_in_photo: '2',
      other_subjects: 'a heron',
      taken_on: '2024-04-02',
      taken_at_date: '2024-04-02',
      taken_at_time: '12:35',
      exif: '{"iso": 400}',
      lens: 'tele',
    })
    expect(r.res.status, r.html).toBe(303)
    const d = await t.ok('package_show', { id: 'weir-in-flood' })
    const res = d.resources.find((x: any) => x.name === 'Weir photo')
    expect(res).toMatchObject({ fish_in_photo: 2, other_subjects: 'a heron', taken_on: '2024-04-02', taken_at: '2024-04-02T12:35:00', exif: { iso: 400 }, lens: 'tele' })
    expect(r.res.headers.get('location')).toBe(`/dataset/weir-in-flood/resource/${res.id}`)
    const page = await b.get(`/dataset/weir-in-flood/resource/${res.id}`)
    expect(page.html).toContain('<dt>Lens</dt><dd>Telephoto</dd>')
    expect(page.html).toMatch(/<dt>Date taken<\/dt><dd><time datetime="2024-04-02">Apr 2, 2024<\/time>/)
    expect(page.html).toMatch(/<pre class="json">\{\n {2}&quot;iso&quot;: 400\n\}<\/pre>/)
    expect(page.html).toContain('<dt>Fish in photo</dt><dd>2</dd>')
    // the edit form is filled from the resource and saves a change
    const edit = await b.get(`/dataset/weir-in-flood/resource/${res.id}/edit`)
    expect(edit.html).toMatch(/<option value="tele" selected="">/)
    expect(edit.html).toMatch(/name="taken_at_time" type="time" value="12:35"/)
    const saved = await b.post(`/dataset/weir-in-flood/resource/${res.id}/edit`, {
      _csrf_token: csrfOf(edit.html),
      url: 'https://example.org/photos/weir.jpg',
      name: 'Weir photo',
      format: 'JPEG',
      fish_in_photo: '3',
      lens: 'wide',
      exif: '',
    })
    expect(saved.res.status, saved.html).toBe(303)
    const after = (await t.ok('resource_show', { id: res.id })) as any
    expect(after).toMatchObject({ fish_in_photo: 3, lens: 'wide' })
  })

  it('shows a resource field\'s error by its field, and labels in the summary', async () => {
    const form = await b.get('/dataset/weir-in-flood/resource/new')
    const r = await b.post('/dataset/weir-in-flood/resource/new', {
      _csrf_token: csrfOf(form.html),
      url: 'https://example.org/photos/bad.jpg',
      fish_in_photo: 'many',
      taken_at_date: '2024-04-02',
      taken_at_time: '99:99',
      exif: '{',
    })
    expect(r.res.status).toBe(409)
    expect(r.html).toMatch(/name="fish_in_photo" [^>]*aria-describedby="fish_in_photo-error" aria-invalid="true"/)
    expect(r.html).toContain('<p class="field-error" id="fish_in_photo-error">Invalid integer</p>')
    expect(r.html).toContain('id="taken_at_time-error">Time format incorrect</p>')
    expect(r.html).toMatch(/id="exif-error">Invalid JSON/)
    expect(r.html).toMatch(/value="many"/)
    expect(r.html).toContain('<li>Fish in photo: Invalid integer</li>')
    expect(r.html).toContain('<li>Date taken: Time taken: Time format incorrect</li>')
    expect(r.html).not.toContain('<li>fish_in_photo:')
  })
})

describe('fluent fields (bilingual-report)', () => {
  it('asks for each language by its input, shows a missing one by its input, and creates the dataset', async () => {
    const form = await b.get('/bilingual-report/new')
    expect(form.res.status).toBe(200)
    const h = form.html
    // the field's own languages, else the schema's
    expect(fields(h)).toEqual(expect.arrayContaining(['title_translated-en', 'title_translated-fr', 'methodology-en', 'methodology-fr', 'methodology-de', 'keywords-en', 'keywords-fr', 'landing_page-de']))
    expect(fields(h)).not.toContain('title_translated-de')
    expect(h).toContain('<label for="field-title_translated-fr">Title in French</label>')
    expect(h).toMatch(/<textarea id="field-summary-en" name="summary-en" lang="en"/)
    expect(h).toContain('<label for="field-methodology-de">Methodology (de)</label>')
    const base = {
      _csrf_token: csrfOf(h),
      name: 'flood-report',
      owner_org: org.id,
      private: 'False',
      'title_translated-en': 'Flood report',
      'methodology-en': 'Gauges',
      'methodology-fr': 'Jauges',
      'keywords-en': 'flood, river',
      'keywords-fr': 'crue, rivière',
      'summary-en': 'In *short*',
      'summary-fr': 'En *bref*',
      'landing_page-en': 'https://example.org/report',
    }
    const bad = await b.post('/bilingual-report/new', base)
    expect(bad.res.status).toBe(409)
    expect(bad.html).toMatch(/name="title_translated-fr" lang="fr" aria-describedby="title_translated-fr-error[^"]*" aria-invalid="true"/)
    expect(bad.html).toContain('<p class="field-error" id="title_translated-fr-error">Missing value</p>')
    expect(bad.html).toContain('<p class="field-error" id="methodology-de-error">Missing value</p>')
    expect(bad.html).toContain('<li>Title in French: Missing value</li>')
    expect(bad.html).toContain('<li>Methodology (de): Missing value</li>')
    expect(bad.html).toMatch(/name="methodology-fr"[^>]* value="Jauges"/)
    const ok = await b.post('/bilingual-report/new', { ...base, 'title_translated-fr': 'Rapport de crue', 'methodology-de': 'Pegel' })
    expect(ok.res.status, ok.html).toBe(303)
    const d = await t.ok('package_show', { id: 'flood-report' }, sys)
    expect(d).toMatchObject({
      type: 'bilingual-report',
      title_translated: { en: 'Flood report', fr: 'Rapport de crue' },
      methodology: { en: 'Gauges', fr: 'Jauges', de: 'Pegel' },
      keywords: { en: ['flood', 'river'], fr: ['crue', 'rivière'] },
    })
    // shown in the page's language, else the default
    const en = await b.get('/dataset/flood-report')
    expect(en.html).toContain('<dt>Methodology</dt><dd>Gauges</dd>')
    expect(en.html).toContain('<li>flood</li>')
    expect(en.html).toContain('<a href="https://example.org/report" rel="nofollow">')
    const fr = await b.get('/fr/dataset/flood-report')
    expect(fr.html).toContain('<dt>Méthodologie</dt><dd>Jauges</dd>')
    expect(fr.html).toContain('<li>crue</li>')
    expect(fr.html).toContain('<em>bref</em>')
    // the edit form is filled by language
    const edit = await b.get('/dataset/edit/flood-report')
    expect(edit.html).toMatch(/name="methodology-de"[^>]* value="Pegel"/)
    expect(edit.html).toMatch(/name="keywords-fr"[^>]* value="crue, rivière"/)
  })
})

describe('the error summary', () => {
  it('names fields by their labels, a block\'s subfield as "Stations 2: Station ID"', async () => {
    const form = await b.get('/monitoring-stations/new')
    const r = await b.post('/monitoring-stations/new', {
      _csrf_token: csrfOf(form.html),
      title: 'Bad summary',
      notes: 'x',
      owner_org: org.id,
      'stations-0-station_id': 'S-1',
      'stations-0-status': 'active',
      'stations-0-sensors': 'level',
      'contacts-0-contact_name': 'No address',
    })
    expect(r.res.status).toBe(409)
    expect(r.html).toContain("<li>Contact 1: Email: Missing value</li>")
    expect(r.html).not.toContain('<li>contacts-0-email:')
    const river = await b.post('/river-photos/new', { _csrf_token: csrfOf(form.html), title: 'No date', river_section: 'upper', conditions: 'ice', is_public_domain: 'true', owner_org: org.id })
    expect(river.html).toContain('<li>Date observed: Missing value</li>')
  })
})

describe('/<dataset type>/ pages', () => {
  it('lists only that type, hides private datasets from visitors, and 404s for undeclared types', async () => {
    await t.ok('package_create', { type: 'river-photos', name: 'secret-photo', title: 'Secret photo', owner_org: org.id, private: true, river_section: 'upper', conditions: ['ice'], observed_on: '2024-01-01', is_public_domain: 'false' }, sys)
    const list = await b.get('/river-photos/')
    expect(list.res.status).toBe(200)
    expect(list.html).toContain('href="/dataset/weir-in-flood"')
    expect(list.html).toContain('href="/dataset/secret-photo"')
    expect(list.html).not.toContain('upper-avon-gauges')
    expect(list.html).toContain('href="/river-photos/new"')
    const anon = browser((path, init) => t.app.request(path, init))
    const pub = await anon.get('/river-photos')
    expect(pub.res.status).toBe(200)
    expect(pub.html).toContain('href="/dataset/weir-in-flood"')
    expect(pub.html).not.toContain('secret-photo')
    expect((await anon.get('/river-photos/secret-photo')).res.status).toBe(404)
    expect((await anon.get('/river-photos/new')).res.status).toBe(303)
    const stations = await anon.get('/monitoring-stations/')
    expect(stations.html).toContain('upper-avon-gauges')
    expect(stations.html).not.toContain('weir-in-flood')
    expect((await anon.get('/banana/')).res.status).toBe(404)
    expect((await anon.get('/banana/new')).res.status).toBe(404)
    const api = await anon.get('/api/nothing')
    expect(api.res.status).toBe(404)
    expect(api.html).toBe('404 Not Found')
  })
})

describe('organization and group forms with custom fields', () => {
  it('asks for a group type\'s own fields, stores them and shows them on its page', async () => {
    const form = await b.get('/group/new')
    expect(form.res.status).toBe(200)
    expect(form.html).toMatch(/<label for="field-community_url">Community forum<\/label><input id="field-community_url" name="community_url" placeholder="https:\/\/forum.example.org\/flood-data"/)
    const r = await b.post('/group/new', { _csrf_token: csrfOf(form.html), title: 'Flood data', name: 'flood-data', community_url: 'https://forum.example.org/flood' })
    expect(r.res.status, r.html).toBe(303)
    const g = await t.ok('group_show', { id: 'flood-data' })
    expect(g.community_url).toBe('https://forum.example.org/flood')
    const shown = await b.get('/group/flood-data')
    expect(shown.html).toContain('<dt>Community forum</dt><dd>https://forum.example.org/flood</dd>')
    const edit = await b.get('/group/edit/flood-data')
    expect(edit.html).toMatch(/name="community_url"[^>]* value="https:\/\/forum.example.org\/flood"/)
  })

  it('edits an organization type\'s fields, with the error by its field', async () => {
    await t.ok('organization_create', { type: 'agency', name: 'rivers-agency', title: 'Rivers Agency', agency_code: 'RA-01', postal_address: '1 Weir Lane' }, sys)
    await t.ok('organization_member_create', { id: 'rivers-agency', username: 'schema-editor', role: 'admin' }, sys)
    const page = await b.get('/organization/rivers-agency')
    expect(page.html).toContain('<dt>Agency code</dt><dd>RA-01</dd>')
    const form = await b.get('/organization/edit/rivers-agency')
    expect(form.res.status).toBe(200)
    expect(form.html).toMatch(/<textarea id="field-postal_address" name="postal_address" rows="5">1 Weir Lane<\/textarea>/)
    expect(form.html).toMatch(/name="agency_code"[^>]* value="RA-01"/)
    const bad = await b.post('/organization/edit/rivers-agency', { _csrf_token: csrfOf(form.html), title: 'Rivers Agency', name: 'rivers-agency', agency_code: '', postal_address: '2 Weir Lane' })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('<p class="field-error" id="agency_code-error">Missing value</p>')
    expect(bad.html).toContain('2 Weir Lane')
    const ok = await b.post('/organization/edit/rivers-agency', { _csrf_token: csrfOf(form.html), title: 'Rivers Agency', name: 'rivers-agency', agency_code: 'RA-02', postal_address: '2 Weir Lane' })
    expect(ok.res.status, ok.html).toBe(303)
    expect(await t.ok('organization_show', { id: 'rivers-agency' })).toMatchObject({ agency_code: 'RA-02', postal_address: '2 Weir Lane' })
  })

  it('/agency/new creates an organization of type agency, with the error summary by labels; /basin/new a group of type basin', async () => {
    const form = await b.get('/agency/new')
    expect(form.res.status).toBe(200)
    expect(form.html).toContain('action="/agency/new"')
    expect(form.html).toMatch(/name="agency_code"/)
    expect(form.html).toMatch(/<textarea id="field-postal_address" name="postal_address"/)
    const bad = await b.post('/agency/new', { _csrf_token: csrfOf(form.html), title: 'Weir Agency', name: 'weir-agency', postal_address: '3 Weir Lane' })
    expect(bad.res.status).toBe(409)
    expect(bad.html).toContain('<li>Agency code: Missing value</li>')
    expect(bad.html).toContain('3 Weir Lane')
    const r = await b.post('/agency/new', { _csrf_token: csrfOf(form.html), title: 'Weir Agency', name: 'weir-agency', postal_address: '3 Weir Lane', agency_code: 'WA-1' })
    expect(r.res.status, r.html).toBe(303)
    expect(r.res.headers.get('location')).toBe('/agency/weir-agency')
    expect(await t.ok('organization_show', { id: 'weir-agency' })).toMatchObject({ type: 'agency', agency_code: 'WA-1', postal_address: '3 Weir Lane' })
    const page = await b.get('/agency/weir-agency')
    expect(page.res.status).toBe(200)
    expect(page.html).toContain('<dt>Agency code</dt><dd>WA-1</dd>')
    // the page of another type's organization is not under /agency/
    expect((await b.get('/agency/rivers-org')).res.status).toBe(404)
    const basin = await b.get('/basin/new')
    expect(basin.res.status).toBe(200)
    const g = await b.post('/basin/new', { _csrf_token: csrfOf(basin.html), title: 'Avon basin', name: 'avon-basin' })
    expect(g.res.status, g.html).toBe(303)
    expect(await t.ok('group_show', { id: 'avon-basin' })).toMatchObject({ type: 'basin', is_organization: false })
    expect((await b.get('/basin/avon-basin')).res.status).toBe(200)
    // a visitor is asked to sign in; an undeclared type is still the 404 page
    const anon = browser((path, init) => t.app.request(path, init))
    expect((await anon.get('/agency/new')).res.status).toBe(303)
    expect((await anon.get('/banana/new')).res.status).toBe(404)
  })
})
