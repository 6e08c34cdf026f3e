// API keys: the configured header name, anonymous fallback for unknown keys, deleted users.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
beforeAll(async () => {
  t = await setup({ apikey_header_name: 'X-Non-Standard-CKAN-API-Key' })
})

const call = (headers: Record<string, string>) =>
  t.app.request('/api/3/action/config_option_list', { method: 'POST', headers })

describe('api key headers', () => {
  it('accepts the configured header name', async () => {
    const admin = await t.make.sysadmin()
    expect((await call({ 'X-Non-Standard-CKAN-API-Key': admin.apikey })).status).toBe(200)
    expect((await call({ 'X-CKAN-API-Key': admin.apikey })).status).toBe(200)
  })

  it('treats an unknown key as anonymous', async () => {
    const res = await call({ authorization: 'not-a-key' })
    expect(res.status).toBe(403)
    const body = await res.json()
    expect(body.error.__type).toBe('Authorization Error')
  })

  it('refuses everything to a deleted user', async () => {
    const admin = await t.make.sysadmin()
    const user = await t.make.user()
    await t.ok('user_delete', { id: user.id }, admin)
    const r = await t.call('site_read', {}, user)
    expect(r.status).toBe(403)
    expect(r.body.error).toEqual({ __type: 'Authorization Error', message: 'Access denied' })
  })
})
