// Issue 28 item 5, pages from a schema (ckanext-scheming): the dataset form of a type renders each
// field by its form_snippet, posts create the dataset (choices, dates, repeating blocks added
// without JavaScript), errors sit by their fields, the dataset page shows each field by its
// display_snippet, /<type>/ lists that type only, and organization/group forms take their custom fields.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { browser, csrfOf, signIn, type Browser } from '../helpers/web-browser'

const F = 'test/fixtures/scheming/'
const SCHEMING = {
  'scheming.dataset_schemas': ['river-photos.yaml', 'monitoring-stations.yaml'].map((f) => F + f).join(' '),
  'scheming.organization_schemas': `${F}org-with-address.json`,
  'scheming.group_schemas': `${F}group-with-status.json`,
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

describe('smoke', () => {
  it('renders', async () => {
    const r = await b.get('/river-photos/new')
    require('fs').writeFileSync('/tmp/pg/rp.html', r.html)
    expect(r.res.status).toBe(200)
    const m = await b.get('/monitoring-stations/new')
    require('fs').writeFileSync('/tmp/pg/ms.html', m.html)
  })
})
