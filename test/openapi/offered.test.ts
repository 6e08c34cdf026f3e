// The OpenAPI document lists only the actions the site offers: service.api_compat removes some
// (user_generate_apikey from 2.10, site_read from 2.11) and an action's offered(config) withholds
// others. The `dataset_*` aliases follow their actions.
import { describe, expect, it } from 'vitest'
import { registry } from '../../src/actions'
import { actionOffered } from '../../src/actions/call'
import { setup } from '../helpers/setup'

async function documentOf(compat: string) {
  const t = await setup({ 'service.api_compat': compat })
  const res = await t.app.request('/api/3/openapi.json')
  expect(res.status).toBe(200)
  const doc = await res.json()
  return { t, doc, names: Object.keys(doc.paths).map((p) => p.replace('/api/3/action/', '')) }
}

describe('GET /api/3/openapi.json lists the actions offered under service.api_compat', () => {
  it('2.9: every action, user_generate_apikey and site_read included', async () => {
    const { names } = await documentOf('2.9')
    expect(names).toContain('user_generate_apikey')
    expect(names).toContain('site_read')
    expect(names).toHaveLength(registry.size)
  })

  it('2.10: no user_generate_apikey; site_read still there', async () => {
    const { names } = await documentOf('2.10')
    expect(names).not.toContain('user_generate_apikey')
    expect(names).toContain('site_read')
    expect(names).toHaveLength(registry.size - 1)
  })

  it('2.11: neither; exactly the actions the action route answers', async () => {
    const { t, names } = await documentOf('2.11')
    expect(names).not.toContain('user_generate_apikey')
    expect(names).not.toContain('site_read')
    const offered = [...registry.keys()].filter((n) => actionOffered(n, t.deps.config)).sort()
    expect(names).toEqual(offered)
    // and the route agrees: a listed action is known, an unlisted one is not
    expect((await t.call('site_read')).body).toBe('Bad request - Action name not known: site_read')
    expect((await t.call('status_show')).status).toBe(200)
  })

  it('leaves out an action whose offered(config) is false, and lists it again once offered', async () => {
    const { t, names } = await documentOf('2.9')
    expect(names).toContain('status_show')
    const action = registry.get('status_show')!
    action.offered = () => false
    try {
      const doc = await (await t.app.request('/api/3/openapi.json')).json()
      expect(doc.paths['/api/3/action/status_show']).toBeUndefined()
      expect(Object.keys(doc.paths)).toHaveLength(registry.size - 1)
    } finally {
      delete action.offered
    }
    const again = await (await t.app.request('/api/3/openapi.json')).json()
    expect(again.paths['/api/3/action/status_show']).toBeDefined()
  })
})
