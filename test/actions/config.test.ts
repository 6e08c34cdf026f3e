// config_option_list / _show / _update: editable keys, persistence, refusals.
import { beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { setup, TEST_PROFILE, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: Caller
let user: Caller

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  user = await t.make.user()
})

const EDITABLE = [
  'ckan.site_title',
  'ckan.site_logo',
  'ckan.site_url',
  'ckan.site_description',
  'ckan.site_about',
  'ckan.site_intro_text',
  'ckan.site_custom_css',
  'ckan.theme',
  'ckan.homepage_style',
  'logo_upload',
  'clear_logo_upload',
]

describe('config_option_list', () => {
  it('lists the editable keys in CKAN order', async () => {
    expect(await t.ok('config_option_list', {}, sys)).toEqual(EDITABLE)
  })

  it('is readable with GET by a sysadmin', async () => {
    const r = await t.get('/api/3/action/config_option_list', sys)
    expect(r.status).toBe(200)
    expect(r.body.result).toEqual(EDITABLE)
  })

  it('refuses anonymous callers and plain users', async () => {
    const anon = await t.call('config_option_list', {})
    expect(anon.status).toBe(403)
    expect(anon.body.error.__type).toBe('Authorization Error')
    const r = await t.call('config_option_list', {}, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
  })
})

describe('config_option_show', () => {
  it('shows a value under either spelling of the key', async () => {
    expect(await t.ok('config_option_show', { key: 'ckan.site_url' }, sys)).toBe(
      'http://test.ckan.net',
    )
    expect(await t.ok('config_option_show', { key: 'service.site_title' }, sys)).toBe('CKAN')
    expect(await t.ok('config_option_show', { key: 'ckan.homepage_style' }, sys)).toBe('1')
  })

  it('returns null for an editable option that is not set', async () => {
    expect(await t.ok('config_option_show', { key: 'logo_upload' }, sys)).toBeNull()
  })

  it('refuses keys that are not editable at run time', async () => {
    for (const key of ['ckan.site_id', 'ckan.auth.create_user_via_api', 'no.such.key']) {
      const r = await t.call('config_option_show', { key }, sys)
      expect(r.status).toBe(409)
      expect(r.body.error).toEqual({
        __type: 'Validation Error',
        message: `Configuration option '${key}' can not be shown`,
      })
    }
  })

  it('requires the key', async () => {
    const r = await t.call('config_option_show', {}, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.key).toEqual(['Missing value'])
  })

  it('refuses anonymous callers and plain users', async () => {
    expect((await t.call('config_option_show', { key: 'ckan.site_title' })).status).toBe(403)
    const r = await t.call('config_option_show', { key: 'ckan.site_title' }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
  })
})

describe('config_option_update', () => {
  it('stores values, returns them keyed as sent and applies them at once', async () => {
    const result = await t.ok(
      'config_option_update',
      {
        'ckan.site_title': 'Open Data Here',
        'service.site_description': 'All of it',
        'ckan.homepage_style': '2',
      },
      sys,
    )
    expect(result).toEqual({
      'ckan.site_title': 'Open Data Here',
      'service.site_description': 'All of it',
      'ckan.homepage_style': 2,
    })
    expect(await t.ok('config_option_show', { key: 'ckan.site_title' }, sys)).toBe('Open Data Here')
    expect(await t.ok('config_option_show', { key: 'ckan.site_description' }, sys)).toBe(
      'All of it',
    )
    expect(await t.ok('config_option_show', { key: 'ckan.homepage_style' }, sys)).toBe('2')
    const status = await t.ok('status_show')
    expect(status.site_title).toBe('Open Data Here')
    expect(status.site_description).toBe('All of it')
  })

  it('persists values in the database for other processes', async () => {
    await t.ok('config_option_update', { 'ckan.site_about': 'About us' }, sys)
    // A second process over the same database file picks the stored value up on start.
    const other = buildDeps(loadConfig(TEST_PROFILE), t.db)
    await warmUp(other)
    expect(other.config.raw('ckan.site_about')).toBe('About us')
    expect(other.config.str('service.site_title')).toBe('Open Data Here')
  })

  it('lets a running process follow another process change through the change log', async () => {
    const other = buildDeps(loadConfig(TEST_PROFILE), t.db)
    await warmUp(other)
    await t.ok('config_option_update', { 'ckan.site_intro_text': 'Welcome' }, sys)
    expect(other.config.raw('ckan.site_intro_text')).toBe('')
    await other.changes.catchUp()
    expect(other.config.raw('ckan.site_intro_text')).toBe('Welcome')
  })

  it('stores a bare logo file name under /uploads/admin/', async () => {
    const r = await t.ok('config_option_update', { 'ckan.site_logo': 'logo.png' }, sys)
    expect(r).toEqual({ 'ckan.site_logo': '/uploads/admin/logo.png' })
    await t.ok('config_option_update', { 'ckan.site_logo': 'http://example.com/l.png' }, sys)
    expect(await t.ok('config_option_show', { key: 'ckan.site_logo' }, sys)).toBe(
      'http://example.com/l.png',
    )
  })

  it('refuses unknown keys, naming them all, and stores nothing', async () => {
    const r = await t.call(
      'config_option_update',
      { 'ckan.site_title': 'Not stored', 'ckan.site_id': 'x', bogus: 1 },
      sys,
    )
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message: "Configuration option(s) 'ckan.site_id bogus' can not be updated",
    })
    expect(await t.ok('config_option_show', { key: 'ckan.site_title' }, sys)).toBe('Open Data Here')
  })

  it('requires ckan.homepage_style to be a positive integer', async () => {
    let r = await t.call('config_option_update', { 'ckan.homepage_style': '0' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error['ckan.homepage_style']).toEqual(['Must be a postive integer'])
    r = await t.call(
      'config_option_update',
      { 'ckan.homepage_style': 'abc', 'ckan.theme': 'x' },
      sys,
    )
    expect(r.status).toBe(409)
    expect(r.body.error['ckan.homepage_style']).toEqual(['Invalid integer'])
    expect(await t.ok('config_option_show', { key: 'ckan.theme' }, sys)).toBe('css/main')
  })

  it('refuses anonymous callers and plain users', async () => {
    const anon = await t.call('config_option_update', { 'ckan.site_title': 'x' })
    expect(anon.status).toBe(403)
    expect(anon.body.error.message).toBe(
      'Access denied: Action config_option_update requires an authenticated user',
    )
    const r = await t.call('config_option_update', { 'ckan.site_title': 'x' }, user)
    expect(r.status).toBe(403)
    expect(r.body.error.__type).toBe('Authorization Error')
    expect(await t.ok('config_option_show', { key: 'ckan.site_title' }, sys)).toBe('Open Data Here')
  })
})
