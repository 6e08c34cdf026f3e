// Issue 18: the web pages render in workerd from the same code, against sqld, with the API's authorization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { okWorker, startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
beforeAll(async () => {
  w = await startWorker()
}, 120_000)
afterAll(async () => {
  await w?.close()
})

async function page(path: string, as?: { apikey: string }) {
  const res = await w.mf.dispatchFetch(`http://localhost${path}`, { headers: as ? { authorization: as.apikey } : {} })
  return { status: res.status, type: res.headers.get('content-type') ?? '', html: await res.text() }
}

describe('web pages on the Worker', () => {
  it('renders home, search, dataset, DataStore preview and organization pages; private stays hidden', async () => {
    const org = await okWorker(w.mf, 'organization_create', { name: 'edge-web-org', title: 'Edge Web Org' }, w.sysadmin)
    await okWorker(w.mf, 'package_create', { name: 'edge-web-data', title: 'Edge web data', notes: 'Some *notes*', owner_org: org.id, tags: [{ name: 'edge' }] }, w.sysadmin)
    await okWorker(w.mf, 'package_create', { name: 'edge-web-private', title: 'Edge private', owner_org: org.id, private: true }, w.sysadmin)
    const table = await okWorker(
      w.mf,
      'datastore_create',
      { resource: { package_id: 'edge-web-data', name: 'Rows' }, fields: [{ id: 'n', type: 'int' }], records: Array.from({ length: 25 }, (_, i) => ({ n: i })) },
      w.sysadmin,
    )

    const home = await page('/')
    expect(home.status).toBe(200)
    expect(home.type).toMatch(/^text\/html/)
    expect(home.html).toContain('Edge web data')
    expect(home.html).not.toContain('Edge private')

    const search = await page('/dataset?q=edge&tags=edge')
    expect(search.html).toContain('Edge web data')
    expect(search.html).not.toContain('Edge private')
    expect((await page('/dataset?q=private', w.sysadmin)).html).toContain('Edge private')

    const ds = await page('/dataset/edge-web-data')
    expect(ds.html).toContain('<em>notes</em>')
    expect((await page('/dataset/edge-web-private')).status).toBe(404)
    // a /<locale>/ prefix re-dispatches inside the Worker: French text, same authorization
    const fr = await page('/fr/dataset')
    expect(fr.html).toContain('<html lang="fr">')
    expect(fr.html).toContain('href="/fr/dataset/edge-web-data"')
    expect((await page('/fr/dataset/edge-web-private')).status).toBe(404)
    expect((await page('/fr/dataset/edge-web-private', w.sysadmin)).html).toContain('Edge private')

    const preview = await page(`/dataset/edge-web-data/resource/${table.resource_id}?page=2`)
    expect(preview.status).toBe(200)
    expect(preview.html).toContain('25 rows')
    expect(preview.html).toContain('<td>20</td>')
    expect(preview.html).not.toContain('<td>3</td>')

    // signing in with a password: the session key comes from the database like the API token key
    await okWorker(w.mf, 'user_create', { name: 'edge-web-user', email: 'edge-web@example.com', password: 'edge password' }, w.sysadmin)
    await okWorker(w.mf, 'organization_member_create', { id: org.id, username: 'edge-web-user', role: 'member' }, w.sysadmin)
    const form = await w.mf.dispatchFetch('http://localhost/user/login')
    const csrfCookie = form.headers.getSetCookie().find((c) => c.startsWith('ckan_csrf='))!.split(';')[0]!
    const csrf = /name="_csrf_token" value="([0-9a-f]+)"/.exec(await form.text())![1]!
    /** A form posted as a browser would, with the CSRF cookie and token. */
    const post = (path: string, fields: Record<string, string>) =>
      w.mf.dispatchFetch(`http://localhost${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
        body: new URLSearchParams({ _csrf_token: csrf, ...fields }).toString(),
      })
    // a failed sign-in is counted in the database (login_failure) from the isolate too
    const failed = await post('/user/login', { login: 'edge-web-user', password: 'wrong' })
    expect(failed.status).toBe(200)
    expect(await failed.text()).toContain('Login failed')
    const signed = await post('/user/login', { login: 'edge-web-user', password: 'edge password' })
    expect(signed.status).toBe(303)
    const session = signed.headers.getSetCookie().find((c) => c.startsWith('ckan_session='))!.split(';')[0]!
    const mine = await w.mf.dispatchFetch('http://localhost/dataset/edge-web-private', { headers: { cookie: session } })
    expect(mine.status).toBe(200)
    expect(await mine.text()).toContain('Edge private')

    // registering through the page: user_create as the web allows it, then signed in
    const registered = await post('/user/register', { name: 'edge-newcomer', email: 'newcomer@example.com', password1: 'edge password', password2: 'edge password' })
    expect(registered.status).toBe(303)
    expect(registered.headers.getSetCookie().some((c) => c.startsWith('ckan_session='))).toBe(true)

    const o = await page('/organization/edge-web-org')
    expect(o.html).toContain('Edge web data')
    expect((await page('/nowhere')).status).toBe(404)

    // the OpenAPI document is generated in the isolate too (zod's JSON Schema on workerd)
    const api = await w.mf.dispatchFetch('http://localhost/api/3/openapi.json')
    expect(api.status).toBe(200)
    const doc = (await api.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.paths['/api/3/action/package_search']).toBeDefined()
    const described = await w.mf.dispatchFetch(`http://localhost/api/3/datastore/${table.resource_id}/openapi.json`)
    expect(described.status).toBe(200)

    // DCAT from the isolate (n3's writer on workerd)
    const ttl = await page('/dataset/edge-web-data.ttl')
    expect(ttl.status).toBe(200)
    expect(ttl.type).toMatch(/^text\/turtle/)
    expect(ttl.html).toContain('dcat:Dataset')
    // ckanext-dcat's answers: 403 for a private dataset, n3 and the catalogue with their Content-Types
    expect((await page('/dataset/edge-web-private.ttl')).status).toBe(403)
    expect((await page('/dataset/edge-web-data.n3')).type).toBe('text/n3')
    const catalog = await page('/catalog.jsonld?profiles=euro_dcat_ap_2,schemaorg')
    expect(catalog.type).toBe('application/ld+json')
    expect(catalog.html).toContain('schema:Dataset')
    expect(catalog.html).not.toContain('edge-web-private')
    expect((await page('/dataset/edge-web-data.jsonld?profiles=croissant')).html).toContain('http://mlcommons.org/croissant/1.0')
    expect((await page('/data.json')).html).toContain('"Edge web data"')

    // MCP (Streamable HTTP, JSON answers) in the isolate: initialize, list the tools, search
    const rpc = async (id: number, method: string, params: object) => {
      const res = await w.mf.dispatchFetch('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      })
      expect(res.status).toBe(200)
      return ((await res.json()) as { result: any }).result
    }
    const init = await rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge-test', version: '1' } })
    expect(init.capabilities.tools).toBeDefined()
    const tools = await rpc(2, 'tools/list', {})
    expect(tools.tools.map((x: { name: string }) => x.name)).toContain('datastore_search')
    const found = await rpc(3, 'tools/call', { name: 'package_search', arguments: { q: 'edge' } })
    const text = JSON.parse(found.content[0].text)
    expect(text.results.map((d: { name: string }) => d.name)).toContain('edge-web-data')
    expect(text.results.map((d: { name: string }) => d.name)).not.toContain('edge-web-private')
  })
  it('draws the dataset extent and the area filter, and serves the map files (issue 30)', async () => {
    const polygon = { type: 'Polygon', coordinates: [[[-3.5, 50.2], [1.8, 50.2], [1.8, 55.8], [-3.5, 55.8], [-3.5, 50.2]]] }
    await okWorker(w.mf, 'package_create', { name: 'edge-web-place', title: 'Edge place', extras: [{ key: 'spatial', value: JSON.stringify(polygon) }] }, w.sysadmin)
    const ds = await page('/dataset/edge-web-place')
    expect(ds.html).toContain('Bounding box: west -3.5, south 50.2, east 1.8, north 55.8 (degrees)')
    expect(ds.html).toContain('<path class="map-geometry" d="M353,79.6L353,68.4L363.6,68.4L363.6,79.6Z">') // as on Node
    const search = await page('/dataset?ext_bbox=-4,50,2,56')
    expect(search.html).toContain('<rect class="map-box" x="352" y="68" width="12" height="12">')
    const redirect = await w.mf.dispatchFetch('http://localhost/dataset?_west=-4&_south=50&_east=2&_north=56', { redirect: 'manual' })
    expect(redirect.status).toBe(303)
    expect(redirect.headers.get('location')).toBe('/dataset?ext_bbox=-4%2C50%2C2%2C56')
    const svg = await w.mf.dispatchFetch('http://localhost/static/world-atlas-2.0.2/land-110m.svg')
    expect(svg.headers.get('content-type')).toContain('image/svg+xml')
    expect((await svg.text()).length).toBeGreaterThan(20_000)
    const leaflet = /<script defer="" src="(\/static\/leaflet-[^"]+)"/.exec(ds.html)![1]!
    expect(await (await w.mf.dispatchFetch(`http://localhost${leaflet}`)).text()).toContain('Leaflet')
  }, 60_000)
})
