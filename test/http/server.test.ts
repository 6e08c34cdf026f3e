// The protocol details that need a real socket: repeated GET keys, JSONP, form and multipart bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'
import { listen } from '../helpers/server'

let t: TestEnv
let server: { url: string; close: () => Promise<void> }

beforeAll(async () => {
  t = await setup()
  server = await listen(t.app)
})
afterAll(async () => server?.close())

describe('over a real socket', () => {
  it('turns repeated GET parameters into lists', async () => {
    const admin = await t.make.sysadmin()
    const a = await t.make.organization(admin, { name: 'sock-a' })
    const b = await t.make.organization(admin, { name: 'sock-b' })
    await t.make.organization(admin, { name: 'sock-c' })
    const res = await fetch(`${server.url}/api/3/action/organization_list?organizations=${a.name}&organizations=${b.name}`)
    const body = await res.json()
    expect(body.result.sort()).toEqual(['sock-a', 'sock-b'])
  })

  it('pads GET responses with the JSONP callback', async () => {
    const res = await fetch(`${server.url}/api/3/action/site_read?callback=myFn`)
    expect(res.headers.get('content-type')).toBe('application/javascript;charset=utf-8')
    expect(await res.text()).toMatch(/^myFn\(\{.*\}\);$/)
  })

  it('runs JSONP calls anonymously even with a key', async () => {
    const admin = await t.make.sysadmin()
    const res = await fetch(`${server.url}/api/3/action/config_option_list?callback=f`, {
      headers: { authorization: admin.apikey },
    })
    expect(res.status).toBe(403)
  })

  it('accepts a JSON body posted without a content type header as form data', async () => {
    const res = await fetch(`${server.url}/api/3/action/help_show`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ name: 'site_read' }),
    })
    expect((await res.json()).success).toBe(true)
  })

  it('reads multipart form fields', async () => {
    const form = new FormData()
    form.append('name', 'site_read')
    const res = await fetch(`${server.url}/api/3/action/help_show`, { method: 'POST', body: form })
    expect((await res.json()).result).toContain('Return True')
  })

  it('accepts the key in every supported header', async () => {
    const admin = await t.make.sysadmin()
    const variants: Record<string, string>[] = [
      { authorization: admin.apikey },
      { authorization: `Bearer ${admin.apikey}` },
      { 'X-CKAN-API-Key': admin.apikey },
      { 'X-SERVICE-API-Key': admin.apikey },
    ]
    for (const headers of variants) {
      const res = await fetch(`${server.url}/api/3/action/config_option_list`, { method: 'POST', headers })
      expect(res.status).toBe(200)
    }
    const anon = await fetch(`${server.url}/api/3/action/config_option_list`, { method: 'POST' })
    expect(anon.status).toBe(403)
  })
})
