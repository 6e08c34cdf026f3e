// site_read, status_show, license_list and help_show: shapes and errors.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
beforeAll(async () => {
  t = await setup()
})

describe('site_read', () => {
  it('returns true to anyone, by POST or GET', async () => {
    expect(await t.ok('site_read')).toBe(true)
    const r = await t.get('/api/3/action/site_read')
    expect(r.status).toBe(200)
    expect(r.body.result).toBe(true)
  })
})

describe('status_show', () => {
  it('describes the site with exactly CKAN keys', async () => {
    const s = await t.ok('status_show')
    expect(Object.keys(s).sort()).toEqual(
      [
        'ckan_version',
        'error_emails_to',
        'extensions',
        'locale_default',
        'site_description',
        'site_title',
        'site_url',
      ].sort(),
    )
    expect(s.site_title).toBe('CKAN')
    expect(s.site_description).toBe('')
    expect(s.site_url).toBe('http://test.ckan.net')
    expect(s.ckan_version).toMatch(/^2\.9\.\d+$/)
    expect(s.error_emails_to).toBeNull()
    expect(s.locale_default).toBe('en')
    expect(Array.isArray(s.extensions)).toBe(true)
    expect(s.extensions).toContain('datastore')
  })

  it('reports the configured plugins as extensions', async () => {
    const other = await setup({ 'service.plugins': 'stats datastore  text_view' })
    expect((await other.ok('status_show')).extensions).toEqual(['stats', 'datastore', 'text_view'])
  })
})

const LICENSE_KEYS = [
  'domain_content',
  'domain_data',
  'domain_software',
  'family',
  'id',
  'is_generic',
  'is_okd_compliant',
  'is_osi_compliant',
  'maintainer',
  'od_conformance',
  'osd_conformance',
  'status',
  'title',
  'url',
]

const LICENSE_IDS = [
  'notspecified',
  'odc-pddl',
  'odc-odbl',
  'odc-by',
  'cc-zero',
  'cc-by',
  'cc-by-sa',
  'gfdl',
  'other-open',
  'other-pd',
  'other-at',
  'uk-ogl',
  'cc-nc',
  'other-nc',
  'other-closed',
]

describe('license_list', () => {
  it('lists the 15 default licenses in order', async () => {
    const list = await t.ok('license_list')
    expect(list).toHaveLength(15)
    expect(list.map((l: { id: string }) => l.id)).toEqual(LICENSE_IDS)
  })

  it('gives every license exactly the CKAN keys, with string-typed flags', async () => {
    for (const l of await t.ok('license_list')) {
      expect(Object.keys(l).sort()).toEqual(LICENSE_KEYS)
      for (const k of LICENSE_KEYS.filter((k) => !k.startsWith('is_') || k === 'is_generic'))
        expect(typeof l[k], `${l.id}.${k}`).toBe('string')
      expect(['True', 'False']).toContain(l.domain_content)
      expect(['True', 'False']).toContain(l.is_generic)
      expect(l.status).toBe('active')
      expect(l.is_osi_compliant).toBe(false)
      expect(l.is_okd_compliant).toBe(l.od_conformance === 'approved')
    }
  })

  it('pins the first entry and the OKD compliance of each license', async () => {
    const list = await t.ok('license_list')
    expect(list[0]).toEqual({
      domain_content: 'False',
      domain_data: 'False',
      domain_software: 'False',
      family: '',
      id: 'notspecified',
      is_generic: 'True',
      maintainer: '',
      od_conformance: 'not reviewed',
      osd_conformance: 'not reviewed',
      status: 'active',
      title: 'License not specified',
      url: '',
      is_okd_compliant: false,
      is_osi_compliant: false,
    })
    const okd = list
      .filter((l: { is_okd_compliant: boolean }) => l.is_okd_compliant)
      .map((l: { id: string }) => l.id)
    expect(okd).toEqual(LICENSE_IDS.slice(1, 12))
    const byId = new Map(list.map((l: { id: string }) => [l.id, l]))
    expect(byId.get('cc-by')).toMatchObject({
      title: 'Creative Commons Attribution',
      url: 'http://www.opendefinition.org/licenses/cc-by',
      domain_content: 'False',
      domain_data: 'False',
    })
    expect(byId.get('cc-zero')).toMatchObject({ domain_content: 'True', domain_data: 'True' })
    expect(byId.get('uk-ogl')).toMatchObject({
      url: 'http://reference.data.gov.uk/id/open-government-licence',
      domain_content: 'True',
    })
    expect(byId.get('other-closed')).toMatchObject({
      title: 'Other (Not Open)',
      is_generic: 'True',
    })
  })
})

describe('help_show', () => {
  it('returns the documentation string of a known action', async () => {
    const help = await t.ok('help_show', { name: 'package_show' })
    expect(typeof help).toBe('string')
    expect(help.length).toBeGreaterThan(10)
    const r = await t.get('/api/3/action/help_show?name=site_read')
    expect(r.status).toBe(200)
    expect(typeof r.body.result).toBe('string')
  })

  it('answers 404 for an unknown action', async () => {
    const r = await t.call('help_show', { name: 'no_such_action' })
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({
      __type: 'Not Found Error',
      message: 'Not found: Action function not found',
    })
  })

  it('requires the name', async () => {
    const r = await t.call('help_show', {})
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({ __type: 'Validation Error', name: ['Missing value'] })
  })
})
