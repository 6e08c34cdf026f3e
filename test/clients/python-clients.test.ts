// The request shapes of clients that cannot run here, replayed over a real socket under api_compat
// 2.9 and 2.11 (test/clients/replay.ts rebuilds them from the clients' sources): ckanapi's
// RemoteCKAN (JSON POSTs, multipart uploads, get_only GETs, its `dump` and `search` walks, and the
// exceptions it makes of error answers), frictionless-py's CKAN adapter and storage (package_show,
// package_search paging, downloads by resource URL, publishing with uploads, DataStore tables written
// and read back following `_links.next`), and Magda's CKAN connector (package_search pages with
// `start`/`rows`/`fq`, organization_list pages, organization_show, package_show).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniq } from '../helpers/make'
import { served, type ApiCompat, type Served } from './served'
import { frictionlessRequest, magdaRequestJson, MAGDA_UA, multipart, pyJson, pyQuery, remoteCkan, CKANAPI_UA } from './replay'

type Caller = { apikey: string; id: string; name: string }
const csv = new TextEncoder().encode('city,population\nLyon,522000\nNice,342000\n')

describe.each(['2.9', '2.11'] as ApiCompat[])('Python clients and Magda under api_compat %s', (version) => {
  let s: Served
  let sys: Caller
  let user: Caller
  let org: { id: string; name: string }

  beforeAll(async () => {
    s = await served(version)
    sys = await s.t.make.sysadmin()
    user = await s.t.make.user()
    org = await s.t.make.organization(user, { name: uniq('py-org'), title: 'Python Org' })
  })
  afterAll(async () => {
    await s?.close()
  })

  describe('ckanapi RemoteCKAN', () => {
    it('sends JSON as json.dumps writes it, with both credential headers and its User-Agent', async () => {
      expect(pyJson({ a: 'é', b: [1, true, null] })).toBe('{"a": "\\u00e9", "b": [1, true, null]}')
      const ckan = remoteCkan(s.url, user.apikey)
      const name = uniq('ckanapi')
      const made = await ckan('package_create', {
        name,
        title: 'Qualité de l’air 🌬',
        owner_org: org.id,
        tags: [{ name: 'air' }],
        extras: [{ key: 'méthode', value: 'capteurs' }],
        resources: [{ url: 'http://example.com/air.csv', name: 'Air' }],
      })
      expect(made).toMatchObject({ status: 200, result: { name, title: 'Qualité de l’air 🌬' } })
      const req = s.seen.at(-1)!
      expect(req.path).toBe('/api/action/package_create')
      expect(req.headers.get('user-agent')).toBe(CKANAPI_UA)
      expect(req.headers.get('authorization')).toBe(user.apikey)
      expect(req.headers.get('x-ckan-api-key')).toBe(user.apikey)
      // ckanapi's load: show, change, update
      const shown = await ckan('package_show', { id: name })
      const dict = (shown as { result: Record<string, any> }).result
      expect(dict.extras).toEqual([{ key: 'méthode', value: 'capteurs' }])
      const updated = await ckan('package_update', { ...dict, notes: 'Mise à jour' })
      expect(updated).toMatchObject({ status: 200, result: { notes: 'Mise à jour', title: dict.title } })
    })

    it('uploads files as multipart (resource_create, resource_update with `upload`) and the URL serves them', async () => {
      const ckan = remoteCkan(s.url, user.apikey)
      const pkg = (await ckan('package_create', { name: uniq('ckanapi-up'), owner_org: org.id })) as { result: { id: string } }
      const made = await ckan('resource_create', { package_id: pkg.result.id, name: 'Cities', format: 'CSV', size: 42, description: null }, { upload: { filename: 'cities.csv', content: csv } })
      expect(made.status).toBe(200)
      const res = (made as { result: Record<string, any> }).result
      expect(res).toMatchObject({ name: 'Cities', url_type: 'upload', format: 'CSV' })
      expect(res.url).toBe(`${s.url}/dataset/${pkg.result.id}/resource/${res.id}/download/cities.csv`)
      expect(new Uint8Array(await (await fetch(res.url)).arrayBuffer())).toEqual(csv)

      const next = new TextEncoder().encode('city,population\nLille,236000\n')
      const upd = await ckan('resource_update', { id: res.id, name: 'Cities 2' }, { upload: { filename: 'cities2.csv', content: next } })
      expect(upd).toMatchObject({ status: 200, result: { name: 'Cities 2' } })
      const url = (upd as { result: { url: string } }).result.url
      expect(url).toMatch(/\/download\/cities2\.csv$/)
      expect(await (await fetch(url)).text()).toBe('city,population\nLille,236000\n')
    })

    it('with get_only, GETs read actions with urlencoded parameters (True, False, repeated keys)', async () => {
      expect(pyQuery({ q: 'a b:c*', rows: 2, include_private: true, x: ['1', '2'] })).toBe('q=a+b%3Ac%2A&rows=2&include_private=True&x=1&x=2')
      const writer = remoteCkan(s.url, user.apikey)
      const name = uniq('getonly')
      await writer('package_create', { name, owner_org: org.id, private: true, tags: [{ name: 'getonly' }] })
      const reader = remoteCkan(s.url, user.apikey, { getOnly: true })
      const found = await reader('package_search', { q: 'tags:getonly', include_private: true, rows: 10 })
      expect(s.seen.at(-1)!.method).toBe('GET')
      expect(found).toMatchObject({ status: 200, result: { count: 1, results: [{ name }] } })
      expect(await reader('package_search', { q: 'tags:getonly', include_private: false })).toMatchObject({ result: { count: 0 } })
      expect(await reader('package_show', { id: name })).toMatchObject({ result: { name, private: true } })
      const anonymous = remoteCkan(s.url, undefined, { getOnly: true })
      expect(await anonymous('package_show', { id: name })).toMatchObject({ status: 403, raises: 'NotAuthorized' })
      expect(await anonymous('organization_list', { all_fields: true })).toMatchObject({ status: 200, result: expect.arrayContaining([expect.objectContaining({ name: org.name })]) })
    })

    it('turns error answers into the exceptions ckanapi raises', async () => {
      const ckan = remoteCkan(s.url, user.apikey)
      expect(await ckan('package_show', { id: 'no-such-thing' })).toMatchObject({ status: 404, raises: 'NotFound', arg: 'Not found' })
      const invalid = await ckan('package_create', { name: 'Bad Name', owner_org: org.id })
      expect(invalid).toMatchObject({ status: 409, raises: 'ValidationError', arg: { __type: 'Validation Error', name: [expect.any(String)] } })
      expect(await remoteCkan(s.url)('package_create', { name: uniq('anon') })).toMatchObject({ status: 403, raises: 'NotAuthorized' })
      // a query Solr cannot parse is CKAN's Search Error; a parameter package_search does not know a Search Query Error
      expect(await ckan('package_search', { q: 'title:(unclosed' })).toMatchObject({ status: 409, raises: 'SearchError' })
      expect(await ckan('package_search', { q: 'x', colour: 'red' })).toMatchObject({ status: 400, raises: 'SearchQueryError', arg: '"Invalid search parameters: [\'colour\']"' })
      // under 2.10+ a legacy API key is no credential: the caller is anonymous
      const legacy = (await s.t.ok('user_show', { id: user.id }, sys)).apikey
      const byKey = await remoteCkan(s.url, legacy)('package_create', { name: uniq('legacy'), owner_org: org.id })
      expect(byKey).toMatchObject(version === '2.9' ? { status: 200 } : { status: 403, raises: 'NotAuthorized' })
    })

    it('walks as `ckanapi dump datasets` and `ckanapi search datasets` do', async () => {
      const ckan = remoteCkan(s.url, sys.apikey)
      const listed = (await ckan('package_list', { include_private: false, include_drafts: false, include_deleted: false })) as { result: string[] }
      expect(listed.result.length).toBeGreaterThan(0)
      for (const name of listed.result) {
        const r = await ckan('package_show', { id: name, include_datasets: false, include_password_hash: true, include_users: false })
        expect(r.status, name).toBe(200)
        for (const res of (r as { result: { resources: { id: string }[] } }).result.resources) {
          const views = await ckan('resource_view_list', { id: res.id, limit: 0 })
          expect(views.status).toBe(200)
        }
      }
      const o = await ckan('organization_show', { id: org.name, include_datasets: false, include_password_hash: true, include_users: false })
      expect(o).toMatchObject({ status: 200, result: { name: org.name } })
      // search: start/rows pages until an empty one
      const seen = new Set<string>()
      for (let start = 0, pages = 0; pages < 50; pages++) {
        const page = (await ckan('package_search', { q: '*:*', include_private: true, start, rows: 2 })) as { result: { results: { id: string }[]; count: number } }
        if (!page.result.results.length) break
        for (const d of page.result.results) seen.add(d.id)
        start += page.result.results.length
      }
      expect(seen.size).toBe((await s.t.ok('package_search', { include_private: true, rows: 0 }, sys)).count)
    })
  })

  describe('frictionless-py (CKAN adapter and storage)', () => {
    let dataset: { id: string; name: string; resources: { id: string; url: string; name: string }[] }

    beforeAll(async () => {
      // publish as write_package does: package_create (JSON), a multipart resource_create per
      // resource (with owner_org), then datapackage.json
      const base = `${s.url}/api/action`
      const made = await frictionlessRequest(`${base}/package_create`, {
        method: 'POST',
        apikey: user.apikey,
        json: { name: uniq('fric'), title: 'Frictionless', notes: 'Published', owner_org: org.name, license_id: 'odc-pddl', tags: [{ name: 'frictionless' }] },
      })
      expect(made.error).toBeUndefined()
      const id = made.body.result.id
      const up = multipart(
        { name: 'cities', format: 'csv', encoding: 'utf-8', mediatype: 'text/csv', package_id: id, owner_org: org.name },
        { upload: { filename: 'cities.csv', content: csv, type: 'application/octet-stream' } },
      )
      expect((await frictionlessRequest(`${base}/resource_create`, { method: 'POST', apikey: user.apikey, form: up })).status).toBe(200)
      const dp = multipart(
        { name: 'datapackage', type: 'json', package_id: id },
        { upload: { filename: 'datapackage.json', content: new TextEncoder().encode('{"resources": []}'), type: 'application/octet-stream' } },
      )
      expect((await frictionlessRequest(`${base}/resource_create`, { method: 'POST', apikey: user.apikey, form: dp })).status).toBe(200)
      dataset = made.body.result
    })

    it('reads a package with package_show (GET ?id=) and downloads its resources by URL', async () => {
      const r = await frictionlessRequest(`${s.url}/api/3/action/package_show`, { params: { id: dataset.id }, apikey: user.apikey })
      expect(r.error).toBeUndefined()
      const d = r.body.result
      expect(d).toMatchObject({ title: 'Frictionless', license_id: 'odc-pddl', num_resources: 2 })
      expect(d.resources.map((x: { name: string }) => x.name)).toEqual(['cities', 'datapackage'])
      expect(d.resources[0]).toMatchObject({ format: 'CSV', owner_org: org.name, encoding: 'utf-8' })
      expect(d.resources[1].type).toBe('json')
      expect(await (await fetch(d.resources[0].url)).text()).toBe(new TextDecoder().decode(csv))
      expect(await (await fetch(d.resources[1].url)).json()).toEqual({ resources: [] })
      const missing = await frictionlessRequest(`${s.url}/api/3/action/package_show`, { params: { id: 'no-such-package' } })
      expect(missing.error).toMatch(/^CKAN returned an error: .*"__type":"Not Found Error"/)
    })

    it('reads a catalog: package_search q=*:* with rows/start, by organization, group_package_show', async () => {
      const group = await s.t.make.group(sys)
      for (let i = 0; i < 3; i++) await s.t.make.dataset(sys, { owner_org: org.id, groups: [{ id: group.id }], name: uniq('cat') })
      const url = `${s.url}/api/3/action/package_search`
      const all = await frictionlessRequest(url, { params: { q: '*:*' } })
      const total = all.body.result.count
      expect(total).toBeGreaterThanOrEqual(4)
      const ids: string[] = []
      for (let start = 0; start < total; start += 2) {
        const page = await frictionlessRequest(url, { params: { q: '*:*', rows: '2', start: String(start) } })
        expect(page.body.result.results.length).toBeLessThanOrEqual(2)
        ids.push(...page.body.result.results.map((d: { id: string }) => d.id))
      }
      expect(new Set(ids).size).toBe(total)
      const byOrg = await frictionlessRequest(url, { params: { q: `organization:${org.name}`, rows: '100' } })
      expect(byOrg.body.result.results.every((d: { organization: { name: string } }) => d.organization.name === org.name)).toBe(true)
      const inGroup = await frictionlessRequest(`${s.url}/api/3/action/group_package_show`, { params: { id: group.name, limit: '2' } })
      expect(inGroup.error).toBeUndefined()
      expect(inGroup.body.result).toHaveLength(2)
    })

    it('writes a DataStore table (datastore_create, datastore_upsert) and reads it back following _links.next', async () => {
      const base = `${s.url}/api/3/action`
      const fields = [
        { id: 'id', type: 'int' },
        { id: 'name', type: 'text' },
        { id: 'score', type: 'float' },
        { id: 'ok', type: 'bool' },
        { id: 'meta', type: 'json' },
        { id: 'tags', type: 'text[]' },
        { id: 'at', type: 'timestamp' },
        { id: 'when', type: 'time' },
      ]
      const created = await frictionlessRequest(`${base}/datastore_create`, {
        method: 'POST',
        apikey: user.apikey,
        json: { resource: { package_id: dataset.id, name: 'table' }, fields, primary_key: ['id'] },
      })
      expect(created.error).toBeUndefined()
      const records = Array.from({ length: 250 }, (_, i) => ({
        id: i + 1,
        name: `row ${i + 1}`,
        score: i / 4,
        ok: i % 2 === 0,
        meta: { n: i },
        tags: ['a', String(i)],
        at: '2024-05-06T07:08:09',
        when: '10:11:12',
      }))
      // __read_ckan_table: package_show, then datastore_search limit=0 for the fields
      const shown = await frictionlessRequest(`${base}/package_show`, { params: { id: dataset.id }, apikey: user.apikey })
      const table = shown.body.result.resources.find((r: { name: string }) => r.name === 'table')
      const upserted = await frictionlessRequest(`${base}/datastore_upsert`, {
        method: 'POST',
        apikey: user.apikey,
        json: { resource_id: table.id, method: 'insert', records },
      })
      expect(upserted.error).toBeUndefined()
      const head = await frictionlessRequest(`${base}/datastore_search`, { params: { resource_id: table.id, limit: 0 }, apikey: user.apikey })
      expect(head.body.result.records).toEqual([])
      expect(head.body.result.fields.map((f: { id: string; type: string }) => [f.id, f.type.replace(/[0-9]+$/, '')])).toEqual([
        ['_id', 'int'],
        ['id', 'int'],
        ['name', 'text'],
        ['score', 'float'],
        ['ok', 'bool'],
        ['meta', 'json'],
        ['tags', '_text'],
        ['at', 'timestamp'],
        ['when', 'time'],
      ])
      // __read_convert_data: include_total=False, then _links.next until a page has no records
      let r = await frictionlessRequest(`${base}/datastore_search`, { params: { resource_id: table.id, include_total: false }, apikey: user.apikey })
      expect(s.seen.at(-1)!.path).toContain('include_total=False')
      expect(r.body.result.total).toBeUndefined()
      const rows: Record<string, unknown>[] = []
      for (let pages = 0; r.body.result.records.length && pages < 10; pages++) {
        rows.push(...r.body.result.records)
        expect(r.body.result._links.next).toMatch(/^\/api\/3\/action\/datastore_search\?/)
        r = await frictionlessRequest(s.url + r.body.result._links.next, { apikey: user.apikey })
        expect(r.error).toBeUndefined()
        expect(r.body.result.total).toBeUndefined()
      }
      expect(rows).toHaveLength(250)
      expect(rows.map((x) => x.id)).toEqual(records.map((x) => x.id))
      expect(rows[3]).toMatchObject({ id: 4, name: 'row 4', score: 0.75, ok: false, meta: { n: 3 }, tags: ['a', '3'], at: '2024-05-06T07:08:09', when: '10:11:12' })
      // read_package skips a resource without a table by its "Not Found Error"
      const cities = shown.body.result.resources.find((x: { name: string }) => x.name === 'cities')
      const none = await frictionlessRequest(`${base}/datastore_search`, { params: { resource_id: cities.id, limit: 0 } })
      expect(none.error).toContain('Not Found Error')
      // delete_resource
      const del = await frictionlessRequest(`${base}/resource_delete`, { method: 'POST', apikey: user.apikey, json: { id: table.id } })
      expect(del.error).toBeUndefined()
      expect((await frictionlessRequest(`${base}/datastore_search`, { params: { resource_id: table.id } })).error).toContain('Not Found Error')
    })
  })

  describe('Magda CKAN connector', () => {
    it('pages package_search with start/rows/fq, lists organizations page by page, shows them and datasets', async () => {
      const a = await s.t.make.organization(sys, { name: uniq('magda-a'), title: 'Magda A' })
      const b = await s.t.make.organization(sys, { name: uniq('magda-b'), title: 'Magda B' })
      const made: string[] = []
      for (const o of [a, a, a, b, b]) made.push((await s.t.make.dataset(sys, { owner_org: o.id, resources: [{ url: 'http://example.com/m.csv' }] })).id)
      await s.t.make.dataset(sys, { owner_org: b.id, extras: [{ key: 'harvest_source_title', value: 'Skip me' }] })
      await s.t.make.dataset(sys, { owner_org: a.id, private: true })

      // CkanUrlBuilder + urijs: ?sort=id+asc&start=N&rows=N, then the fq component appended as text
      const pageSize = 2
      const enc = (n: string) => encodeURIComponent(`"${n}"`)
      const fq = '&fq=' + [`(organization:${enc(a.name)} OR organization:${enc(b.name)})`, `-harvest_source_title:${enc('Skip me')}`].join('%20')
      const datasets: { id: string; organization: { id: string }; resources: unknown[] }[] = []
      let start = 0
      for (let pages = 0; pages < 20; pages++) {
        const data = await magdaRequestJson(`${s.url}/api/3/action/package_search?sort=id+asc&start=${start}&rows=${pageSize}${fq}`)
        expect(data.result.count).toBe(5)
        datasets.push(...data.result.results)
        start += pageSize
        if (start >= data.result.count) break
      }
      expect(s.seen.at(-1)!.headers.get('user-agent')).toBe(MAGDA_UA)
      expect(datasets.map((d) => d.id)).toEqual([...made].sort())
      expect(datasets.every((d) => d.resources.length === 1 && [a.id, b.id].includes(d.organization.id))).toBe(true)

      // organization_list with all_fields and its includes, offset/limit until an empty page
      const orgs: { id: string; name: string }[] = []
      let previous: unknown[] | undefined
      for (let offset = 0, pages = 0; pages < 20; pages++) {
        const data = await magdaRequestJson(
          `${s.url}/api/3/action/organization_list?all_fields=true&include_groups=true&include_extras=true&include_tags=true&offset=${offset}&limit=1000`,
        )
        if (previous && JSON.stringify(previous) === JSON.stringify(data.result)) break
        if (!data.result.length) break
        orgs.push(...data.result)
        offset += data.result.length
        previous = data.result
      }
      expect(orgs.map((o) => o.name)).toEqual(expect.arrayContaining([a.name, b.name, org.name]))
      expect(new Set(orgs.map((o) => o.id)).size).toBe(orgs.length)
      const full = orgs.find((o) => o.name === a.name) as Record<string, unknown>
      expect(full).toMatchObject({ title: 'Magda A', package_count: 3, extras: [], groups: [], tags: [] })

      // getJsonFirstClassOrganization, getJsonDataset, searchFirstClassOrganizationsByTitle
      expect((await magdaRequestJson(`${s.url}/api/3/action/organization_show?id=${a.id}`)).result).toMatchObject({ name: a.name, title: 'Magda A' })
      expect((await magdaRequestJson(`${s.url}/api/3/action/package_show?id=${made[0]}`)).result).toMatchObject({ id: made[0], organization: { id: a.id } })
      const auto = await magdaRequestJson(`${s.url}/api/3/action/organization_autocomplete?q=${encodeURIComponent('Magda')}&limit=1`)
      expect(auto.result.length).toBeGreaterThanOrEqual(1)
      expect(auto.result[0]).toHaveProperty('id')
    })
  })
})
