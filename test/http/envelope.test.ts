// Pins the wire protocol: envelope shapes, status codes, parameter sources, JSONP, versions.
import { beforeAll, describe, expect, it } from 'vitest'
import { asciiJson } from '../../src/lib/json'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
beforeAll(async () => {
  t = await setup()
})

const post = (path: string, init: RequestInit) => t.app.request(path, { method: 'POST', ...init })

describe('envelope', () => {
  it('wraps a result with help, success and result', async () => {
    const r = await t.call('site_read')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      help: 'http://test.ckan.net/api/3/action/help_show?name=site_read',
      success: true,
      result: true,
    })
  })

  it('serves the unversioned path and GET on read actions', async () => {
    const r = await t.get('/api/action/site_read')
    expect(r.status).toBe(200)
    expect(r.type).toBe('application/json;charset=utf-8')
    expect(r.body.result).toBe(true)
    expect(r.body.help).toContain('/api/3/action/help_show?name=site_read')
  })

  it('answers an unknown action with a bare 400 string', async () => {
    const r = await t.call('no_such_action')
    expect(r.status).toBe(400)
    expect(r.body).toBe('Bad request - Action name not known: no_such_action')
  })

  it('refuses GET on a write action', async () => {
    const r = await t.get('/api/3/action/package_create')
    expect(r.status).toBe(400)
    expect(r.body).toBe(
      'Bad request - JSON Error: Invalid request. Please use POST method for your request',
    )
  })

  it('refuses malformed JSON and non-object bodies', async () => {
    let res = await post('/api/3/action/site_read', {
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatch(/^Bad request - JSON Error: Error decoding JSON data\./)
    res = await post('/api/3/action/site_read', {
      headers: { 'content-type': 'application/json' },
      body: '"not a dict"',
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toBe(
      "Bad request - JSON Error: Request data JSON decoded to 'not a dict' but it needs to be a dictionary.",
    )
    res = await post('/api/3/action/site_read', {
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatch(/^Bad request - JSON Error/)
  })

  it('treats a non-JSON content type as no dictionary', async () => {
    const res = await post('/api/3/action/site_read', {
      headers: { 'content-type': 'text/plain' },
      body: '{"a": 1}',
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toBe(
      'Bad request - JSON Error: Request data JSON decoded to None but it needs to be a dictionary.',
    )
  })

  it('reads JSON sent as the only form key', async () => {
    const res = await post('/api/3/action/help_show', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"name": "site_read"}',
    })
    expect(res.status).toBe(200)
    expect((await res.json()).result).toContain('Return True')
  })

  it('reads ordinary form fields', async () => {
    const res = await post('/api/3/action/help_show', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=site_read',
    })
    expect((await res.json()).result).toContain('Return True')
  })

  it('wraps successful GETs in JSONP and escapes the callback', async () => {
    const r = await t.get('/api/3/action/site_read?callback=cb')
    expect(r.type).toBe('application/javascript;charset=utf-8')
    expect(r.text).toMatch(/^cb\(\{.*"result":true.*\}\);$/)
    const evil = await t.get('/api/3/action/site_read?callback=%3Cx%3E')
    expect(evil.text.startsWith('&lt;x&gt;(')).toBe(true)
  })

  it('does not wrap errors in JSONP', async () => {
    const r = await t.get('/api/3/action/help_show?name=nope&callback=cb')
    expect(r.status).toBe(404)
    expect(r.body.error).toEqual({ __type: 'Not Found Error', message: 'Not found: Action function not found' })
  })

  it('reports validation errors per field', async () => {
    const r = await t.call('help_show', {})
    expect(r.status).toBe(409)
    expect(r.body).toEqual({
      help: 'http://test.ckan.net/api/3/action/help_show?name=help_show',
      success: false,
      error: { __type: 'Validation Error', name: ['Missing value'] },
    })
  })

  it('escapes non-ASCII characters', async () => {
    expect(asciiJson({ a: 'Delta symbol: \u0394' })).toBe('{"a":"Delta symbol: \\u0394"}')
  })

  it('answers the API version routes', async () => {
    expect((await t.get('/api/3')).body).toEqual({ version: 3 })
    expect((await t.get('/api')).body).toEqual({ version: 1 })
    expect((await t.get('/api/2')).body).toEqual({ version: 2 })
  })

  it('answers 405 for other methods and 404 for other API versions', async () => {
    expect((await t.app.request('/api/3/action/site_read', { method: 'PUT' })).status).toBe(405)
    expect((await t.app.request('/api/4/action/site_read')).status).toBe(404)
  })
})
