// ckan.js (the npm package `ckan`, okfn/ckan.js 0.2.3) against the catalogue on a real socket,
// under api_compat 2.9 and 2.11: reads, writes with the caller's key (2.9) or API token (2.11) in the
// header ckan.js sends (X-CKAN-API-KEY), a private dataset, the DataStore helpers, and errors as
// ckan.js reports them (its callback's `err` text and the parsed body). Without the package the file
// is skipped on a developer's machine and fails under CI (`CKANJS_DIR` names another copy).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { action, CKAN, helper, type CkanJsClient } from './ckanjs'
import { served, type ApiCompat, type Served } from './served'
import { uniq } from '../helpers/make'

const missing = !CKAN && !process.env.CI

describe.skipIf(missing).each(['2.9', '2.11'] as ApiCompat[])('ckan.js 0.2.3 under api_compat %s', (version) => {
  let s: Served
  let user: { apikey: string; id: string; name: string }
  let legacyKey: string
  let org: { id: string; name: string }
  let anon: CkanJsClient
  let keyed: CkanJsClient

  beforeAll(async () => {
    if (!CKAN) throw new Error('ckan.js is not installed: npm install (devDependency "ckan") or set CKANJS_DIR')
    s = await served(version)
    const sys = await s.t.make.sysadmin()
    user = await s.t.make.user()
    legacyKey = (await s.t.ok('user_show', { id: user.id }, sys)).apikey
    expect(legacyKey).toBeTruthy()
    org = await s.t.make.organization(user, { name: uniq('cjs-org') })
    anon = new CKAN.Client(s.url)
    keyed = new CKAN.Client(`${s.url}/`, user.apikey)
  })
  afterAll(async () => {
    await s?.close()
  })

  /** The headers of the last request to `/api/3/action/<name>`. */
  const lastHeaders = (name: string) => s.seen.filter((r) => r.path === `/api/3/action/${name}`).at(-1)!.headers

  it('finds the API under the site root, POSTs actions, and reads the version', async () => {
    expect(keyed.endpoint).toBe(`${s.url}/api`)
    // no data: ckan.js POSTs without a body (and, asking for no JSON, gets the text back)
    const { err, body: text } = await action(anon, 'status_show')
    expect(err).toBeNull()
    const body = JSON.parse(text)
    expect(body.success).toBe(true)
    expect(body.result.ckan_version).toBe(version === '2.9' ? '2.9.11' : '2.11.5')
    expect(s.seen.at(-1)!.method).toBe('POST')
  })

  it('creates and updates a dataset with the credential in X-CKAN-API-KEY, then shows and searches it', async () => {
    const name = uniq('cjs-ds')
    let r = await action(keyed, 'package_create', {
      name,
      title: 'ckan.js dataset',
      owner_org: org.id,
      tags: [{ name: 'ckanjs' }],
      extras: [{ key: 'source', value: 'ckan.js' }],
      resources: [{ url: 'http://example.com/data.csv', name: 'Data', format: 'CSV' }],
    })
    expect(r.err).toBeNull()
    expect(r.body.result).toMatchObject({ name, owner_org: org.id, num_resources: 1 })
    const h = lastHeaders('package_create')
    expect(h.get('x-ckan-api-key')).toBe(user.apikey)
    expect(h.get('authorization')).toBeNull()
    expect(h.get('content-type')).toBe('application/json')

    // ckan.js turns dataset_* into package_*
    r = await action(keyed, 'dataset_update', { ...r.body.result, title: 'ckan.js dataset, revised' })
    expect(r.err).toBeNull()
    expect(s.seen.at(-1)!.path).toBe('/api/3/action/package_update')

    r = await action(anon, 'package_show', { id: name })
    expect(r.err).toBeNull()
    expect(r.body.result.title).toBe('ckan.js dataset, revised')
    expect(r.body.result.tags.map((x: { name: string }) => x.name)).toEqual(['ckanjs'])
    expect(r.body.result.extras).toEqual([{ key: 'source', value: 'ckan.js' }])
    expect(r.body.result.resources[0]).toMatchObject({ url: 'http://example.com/data.csv', format: 'CSV' })

    r = await action(anon, 'package_search', { q: 'revised', fq: `organization:${org.name}`, rows: 5 })
    expect(r.err).toBeNull()
    expect(r.body.result.count).toBe(1)
    expect(r.body.result.results[0].name).toBe(name)
  })

  it('shows a private dataset only with the credential', async () => {
    const name = uniq('cjs-private')
    const made = await action(keyed, 'package_create', { name, owner_org: org.id, private: true })
    expect(made.err).toBeNull()

    const refused = await action(anon, 'package_show', { id: name })
    expect(refused.err).toMatch(/^CKANJS API Error\. HTTP code 403\. Message: /)
    expect(refused.body).toMatchObject({ success: false, error: { __type: 'Authorization Error' } })

    const shown = await action(keyed, 'package_show', { id: name })
    expect(shown.err).toBeNull()
    expect(shown.body.result).toMatchObject({ name, private: true })

    const q = { q: `name:${name}`, include_private: true }
    expect((await action(anon, 'package_search', q)).body.result.count).toBe(0)
    expect((await action(keyed, 'package_search', q)).body.result.count).toBe(1)
  })

  it('takes the legacy key under 2.9 only; an API token under both', async () => {
    const token = (await s.t.ok('api_token_create', { user: user.name, name: 'ckan.js' }, { apikey: user.apikey })).token
    const byKey = await action(new CKAN!.Client(s.url, legacyKey), 'package_create', { name: uniq('cjs-key'), owner_org: org.id })
    if (version === '2.9') {
      expect(byKey.err).toBeNull()
    } else {
      // under 2.10+ a legacy key makes the caller anonymous, who may not create datasets
      expect(byKey.err).toMatch(/HTTP code 403/)
      expect(byKey.body.error.__type).toBe('Authorization Error')
    }
    const byToken = await action(new CKAN!.Client(s.url, token), 'package_create', { name: uniq('cjs-token'), owner_org: org.id })
    expect(byToken.err).toBeNull()
    expect(byToken.body.result.creator_user_id).toBe(user.id)

    // the same credential in the other header clients send (ckanapi, Frictionless: Authorization)
    const name = uniq('cjs-hdr')
    await action(keyed, 'package_create', { name, owner_org: org.id, private: true })
    for (const header of ['Authorization', 'X-CKAN-API-Key']) {
      const res = await fetch(`${s.url}/api/3/action/package_show?id=${name}`, { headers: { [header]: token } })
      expect(res.status, header).toBe(200)
    }
  })

  it('writes and queries the DataStore through datastoreQuery, datastoreSqlQuery and datastoreResources', async () => {
    const pkg = (await action(keyed, 'package_create', { name: uniq('cjs-ds'), owner_org: org.id })).body.result
    const created = await action(keyed, 'datastore_create', {
      resource: { package_id: pkg.id, name: 'Cities' },
      fields: [
        { id: 'city', type: 'text' },
        { id: 'population', type: 'int' },
        { id: 'area', type: 'float8' },
      ],
      records: [
        { city: 'Lyon', population: 522000, area: 47.87 },
        { city: 'Lille', population: 236000, area: 34.83 },
        { city: 'Nice', population: 342000, area: 71.92 },
        { city: 'Lyon', population: 1, area: 1 },
      ],
      primary_key: [],
    })
    expect(created.err).toBeNull()
    const resourceId: string = created.body.result.resource_id

    // ReclineJS-style query: size/from, sort list, term filters
    let q = await helper(keyed.datastoreQuery.bind(keyed), {
      resource_id: resourceId,
      size: 2,
      from: 0,
      sort: [{ field: 'population', order: 'desc' }],
    })
    expect(q.err).toBeNull()
    expect(q.body.total).toBe(4)
    expect(q.body.hits.map((h: { city: string }) => h.city)).toEqual(['Lyon', 'Nice'])
    expect(q.body.fields.map((f: { id: string; type: string }) => [f.id, f.type])).toEqual([
      ['_id', 'integer'],
      ['city', 'string'],
      ['population', 'integer'],
      ['area', 'float'],
    ])
    q = await helper(anon.datastoreQuery.bind(anon), {
      resource_id: resourceId,
      q: 'Lyon',
      filters: [{ type: 'term', field: 'population', term: 522000 }],
    })
    expect(q.err).toBeNull()
    expect(q.body.total).toBe(1)
    expect(q.body.hits[0]).toMatchObject({ city: 'Lyon', population: 522000, area: 47.87 })

    const sql = await helper(anon.datastoreSqlQuery.bind(anon), `SELECT city, population FROM "${resourceId}" WHERE area > 40 ORDER BY city`)
    expect(sql.err).toBeNull()
    expect(sql.body.hits).toEqual([
      { city: 'Lyon', population: 522000 },
      { city: 'Nice', population: 342000 },
    ])

    const tables = await new Promise<{ err: unknown; body: any }>((resolve) => anon.datastoreResources((err, body) => resolve({ err, body })))
    expect(tables.err).toBeNull()
    expect(tables.body.result.records.map((r: { name: string }) => r.name)).toContain(resourceId)

    // a private dataset's table: refused without the credential
    const secret = (await action(keyed, 'package_create', { name: uniq('cjs-sec'), owner_org: org.id, private: true })).body.result
    const table = await action(keyed, 'datastore_create', { resource: { package_id: secret.id }, records: [{ a: 1 }] })
    expect(table.err).toBeNull()
    const id = table.body.result.resource_id
    expect((await helper(anon.datastoreQuery.bind(anon), { resource_id: id })).err).toMatch(/HTTP code 403/)
    const refused = await action(anon, 'datastore_search', { resource_id: id })
    expect(refused.err).toMatch(/HTTP code 403/)
    expect((await helper(keyed.datastoreQuery.bind(keyed), { resource_id: id })).body.hits).toEqual([{ _id: 1, a: 1 }])
  })

  it('reports Not Found and Validation Error answers as ckan.js does', async () => {
    const notFound = await action(anon, 'package_show', { id: 'no-such-dataset' })
    expect(notFound.err).toMatch(/^CKANJS API Error\. HTTP code 404\. Message: \{/)
    expect(JSON.parse(String(notFound.err).replace(/^[^{]*/, ''))).toEqual(notFound.body)
    expect(notFound.body).toMatchObject({ success: false, error: { __type: 'Not Found Error', message: 'Not found' } })

    const invalid = await action(keyed, 'package_create', { name: 'Not A Valid Name!', owner_org: org.id })
    expect(invalid.err).toMatch(/^CKANJS API Error\. HTTP code 409\./)
    expect(invalid.body.error.__type).toBe('Validation Error')
    expect(invalid.body.error.name).toEqual([expect.stringMatching(/^Must be purely lowercase alphanumeric/)])

    const missingTable = await helper(anon.datastoreQuery.bind(anon), { resource_id: 'no-such-resource' })
    expect(missingTable.err).toMatch(/HTTP code 404/)
  })
})
