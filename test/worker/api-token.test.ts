// API tokens and user_invite in workerd: a token made through the Worker authenticates later requests; mail is not configured there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { callWorker, okWorker, startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
beforeAll(async () => {
  w = await startWorker()
}, 120_000)
afterAll(async () => {
  await w?.close()
})

const ok = (name: string, params: object = {}, as?: { apikey: string }) =>
  okWorker(w.mf, name, params, as)

describe('API tokens on the Worker', () => {
  it('authenticates later requests with a token it created, until it is revoked', async () => {
    const user = await ok(
      'user_create',
      { name: 'edge-token-user', email: 'edge-token@example.com', password: 'password123' },
      w.sysadmin,
    )
    const { token } = await ok('api_token_create', { user: user.name, name: 'edge' }, w.sysadmin)
    const as = { apikey: token }
    const own = await ok('api_token_create', { user: user.id, name: 'own' }, as)
    const list = await ok('api_token_list', { user: user.name }, { apikey: own.token })
    expect(list.map((x: { name: string }) => x.name)).toEqual(['edge', 'own'])
    // last_access was written through the request's own database client
    expect(list[1].last_access).toMatch(/^\d{4}-\d\d-\d\dT/)
    const ds = await ok('package_create', { name: 'edge-token-data' }, as)
    expect(ds.creator_user_id).toBe(user.id)

    // Another isolate (another edge location) accepts it too, and caches it.
    const other = await w.isolate()
    expect((await callWorker(other, 'api_token_list', { user: user.name }, as)).status).toBe(200)
    await ok('api_token_revoke', { token }, as)
    for (const mf of [w.mf, other]) {
      const r = await callWorker(mf, 'api_token_list', { user: user.name }, as)
      expect(r.status).toBe(403)
      expect(r.body.error.message).toBe(
        'Access denied: Action api_token_list requires an authenticated user',
      )
    }
  }, 60_000)
})

describe('scoped API tokens on the Worker', () => {
  it('reads with a read token and is refused a write, in this isolate and another', async () => {
    const org = await ok('organization_create', { name: 'edge-scoped-org' }, w.sysadmin)
    const { token } = await ok('api_token_create', { user: 'admin', name: 'edge-read', scopes: ['read'] }, w.sysadmin)
    const narrow = await ok('api_token_create', { user: 'admin', name: 'edge-org', scopes: [`write:organization:${org.name}`] }, w.sysadmin)
    const other = await w.isolate()
    for (const mf of [w.mf, other]) {
      expect((await callWorker(mf, 'organization_show', { id: org.id }, { apikey: token })).status).toBe(200)
      const r = await callWorker(mf, 'package_create', { name: 'edge-scoped-data', owner_org: org.id }, { apikey: token })
      expect(r.status).toBe(403)
      expect(r.body.error.message).toBe("Access denied: This API token's scopes (read) do not allow package_create")
      // a sysadmin's narrowed token has no sysadmin powers
      expect((await callWorker(mf, 'user_create', { name: 'edge-nobody', email: 'n@example.com', password: 'password123' }, { apikey: narrow.token })).status).toBe(403)
    }
    const made = await ok('package_create', { name: 'edge-scoped-data', owner_org: org.id }, { apikey: narrow.token })
    expect(made.owner_org).toBe(org.id)
  }, 60_000)
})

describe('user_invite on the Worker', () => {
  it('says that mail is not configured there, and creates nobody', async () => {
    await ok('organization_create', { name: 'edge-invite-org' }, w.sysadmin)
    const params = { email: 'edge-invite@example.com', group_id: 'edge-invite-org', role: 'member' }
    const r = await callWorker(w.mf, 'user_invite', params, w.sysadmin)
    expect(r.status).toBe(409)
    expect(r.body.error).toEqual({
      __type: 'Validation Error',
      message:
        `Error sending the invite email,${' '.repeat(17)}the user was not created: ` +
        'Mail server is not configured (no mail adapter on Workers; smtp.server applies to Node only)',
    })
    const found = await ok('user_list', { email: 'edge-invite@example.com' }, w.sysadmin)
    expect(found).toEqual([])
  }, 60_000)
})
