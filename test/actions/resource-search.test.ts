// resource_search: criteria, matching rules, visibility, paging and CKAN's error messages.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let t: TestEnv
let sys: Caller
let org: { id: string }
// A token that makes this file's resource names unique within the database.
const P = `rs${Date.now().toString(36)}`

beforeAll(async () => {
  t = await setup({ 'service.extra_resource_fields': 'source_ref quality' })
  sys = await t.make.sysadmin()
  org = await t.make.organization(sys)
})

const dataset = (resources: Record<string, unknown>[], fields: Record<string, unknown> = {}) =>
  t.ok('package_create', { name: uniq('rs-ds'), owner_org: org.id, resources, ...fields }, sys)

const search = (params: object) => t.ok('resource_search', params)
const names = (r: { results: { name: string }[] }) => r.results.map((x) => x.name)

const invalid = (r: { status: number; body: any }, error: Record<string, unknown>) => {
  expect(r.status).toBe(409)
  expect(r.body.error).toEqual({ __type: 'Validation Error', ...error })
}

describe('resource_search', () => {
  it('matches a case-insensitive substring and returns resource dicts as package_show does', async () => {
    const ds = await dataset([
      { name: `${P}-fmt-a`, url: 'http://example.com/a.csv', format: 'CSV' },
      { name: `${P}-fmt-b`, url: 'http://example.com/b.json', format: 'JSON' },
    ])
    const r = await search({ query: [`name:${P}-FMT`, 'format:cs'] })
    expect(r.count).toBe(1)
    const shown = (await t.ok('package_show', { id: ds.id })).resources[0]
    expect(r.results).toEqual([shown])
  })

  it('ANDs the criteria of a list and keeps only the last term of a repeated field', async () => {
    await dataset([
      { name: `${P}-and-one`, url: 'http://example.com/one', description: 'red apple' },
      { name: `${P}-and-two`, url: 'http://example.com/two', description: 'green apple' },
    ])
    expect(names(await search({ query: [`name:${P}-and`, 'description:apple'] }))).toEqual([
      `${P}-and-one`,
      `${P}-and-two`,
    ])
    expect(names(await search({ query: [`name:${P}-and`, 'description:red'] }))).toEqual([
      `${P}-and-one`,
    ])
    const repeated = await search({ query: [`name:${P}-and`, 'description:red', 'description:green'] })
    expect(names(repeated)).toEqual([`${P}-and-two`])
  })

  it('matches the hash as a case-insensitive prefix', async () => {
    await dataset([{ name: `${P}-hash`, url: 'http://example.com/h', hash: `${P}ABCdef` }])
    expect(names(await search({ query: `hash:${P}abc` }))).toEqual([`${P}-hash`])
    expect((await search({ query: 'hash:ABCdef' })).count).toBe(0)
  })

  it('treats % and _ in a term as plain characters', async () => {
    await dataset([
      { name: `${P}-pct-50%_off`, url: 'http://example.com/p1' },
      { name: `${P}-pct-50x-off`, url: 'http://example.com/p2' },
    ])
    expect(names(await search({ query: 'name:50%_' }))).toEqual([`${P}-pct-50%_off`])
    expect(names(await search({ query: `name:${P}-pct-50_` }))).toEqual([])
  })

  it('folds the case of non-ASCII text', async () => {
    await dataset([{ name: `${P}-umlaut`, url: 'http://example.com/u', description: 'ÜBER Straße' }])
    expect(names(await search({ query: 'description:über s' }))).toEqual([`${P}-umlaut`])
    expect(names(await search({ query: 'description:STRASSE' }))).toEqual([])
    // GLOB's wildcards in a non-ASCII term stay literal
    await dataset([
      { name: `${P}-glob-1`, url: 'http://example.com/g1', description: 'Ärger*[x]?' },
      { name: `${P}-glob-2`, url: 'http://example.com/g2', description: 'Ärger and x' },
    ])
    expect(names(await search({ query: 'description:ärger*[X]?' }))).toEqual([`${P}-glob-1`])
    expect(names(await search({ query: 'description:ärger*x' }))).toEqual([])
  })

  it('compares size and dates for equality', async () => {
    await dataset([
      { name: `${P}-sized`, url: 'http://example.com/s', size: 4242, last_modified: '2020-01-02T03:04:05' },
    ])
    expect(names(await search({ query: 'size:4242' }))).toEqual([`${P}-sized`])
    expect((await search({ query: 'size:424' })).count).toBe(0)
    expect((await search({ query: 'size:lots' })).count).toBe(0)
    expect(names(await search({ query: 'last_modified:2020-01-02 03:04:05' }))).toEqual([`${P}-sized`])
    expect((await search({ query: 'last_modified:2020-01-02' })).count).toBe(0)
  })

  it('searches the configured extra resource fields', async () => {
    await dataset([
      { name: `${P}-extra-1`, url: 'http://example.com/e1', source_ref: 'Census-2021', quality: 'high' },
      { name: `${P}-extra-2`, url: 'http://example.com/e2', source_ref: 'survey', note: 'census' },
    ])
    expect(names(await search({ query: 'source_ref:census' }))).toEqual([`${P}-extra-1`])
    expect(names(await search({ query: ['source_ref:2021', 'quality:HIG'] }))).toEqual([
      `${P}-extra-1`,
    ])
    invalid(await t.call('resource_search', { query: 'note:census' }), {
      query: 'Field "note" not recognised in resource_search.',
    })
  })

  it('leaves out private and deleted datasets and deleted resources', async () => {
    await dataset([{ name: `${P}-vis-private`, url: 'http://example.com/v1' }], { private: true })
    const gone = await dataset([{ name: `${P}-vis-deleted-ds`, url: 'http://example.com/v2' }])
    await t.ok('package_delete', { id: gone.id }, sys)
    const kept = await dataset([
      { name: `${P}-vis-kept`, url: 'http://example.com/v3' },
      { name: `${P}-vis-deleted-res`, url: 'http://example.com/v4' },
    ])
    await t.ok('resource_delete', { id: kept.resources[1].id }, sys)
    // ckan: private datasets stay out even for sysadmins
    const r = await t.ok('resource_search', { query: `name:${P}-vis` }, sys)
    expect(names(r)).toEqual([`${P}-vis-kept`])
  })

  it('pages by order_by but returns each page in position order', async () => {
    await dataset(
      ['zz-2', 'zz-1', 'zz-3'].map((n) => ({ name: `${P}-ord-${n}`, url: `http://example.com/${n}` })),
    )
    const q = `name:${P}-ord`
    const page = await search({ query: q, order_by: 'name', limit: 2 })
    expect(page.count).toBe(3)
    // ckan: the page holds zz-1 and zz-2, re-sorted by position (zz-2 is first in the dataset)
    expect(names(page)).toEqual([`${P}-ord-zz-2`, `${P}-ord-zz-1`])
    expect(names(await search({ query: q, order_by: 'name', offset: 2 }))).toEqual([`${P}-ord-zz-3`])
    expect((await search({ query: q, order_by: 'no_such_column' })).count).toBe(3)
  })

  it('accepts the deprecated fields dict, splitting string terms on whitespace', async () => {
    await dataset([
      { name: `${P}-legacy`, url: 'http://example.com/l', description: 'alpha beta gamma' },
    ])
    expect(names(await search({ fields: { name: `${P}-legacy`, description: 'gamma  alpha' } }))).toEqual([
      `${P}-legacy`,
    ])
    expect((await search({ fields: { name: `${P}-legacy`, description: 'alpha delta' } })).count).toBe(0)
    expect(names(await search({ fields: { description: ['beta'], name: [`${P}-legacy`] } }))).toEqual([
      `${P}-legacy`,
    ])
  })

  it('works over GET with a single or repeated query', async () => {
    const one = await t.get(`/api/3/action/resource_search?query=name:${P}-and-one`)
    expect(one.status).toBe(200)
    expect(names(one.body.result)).toEqual([`${P}-and-one`])
    const two = await t.get(`/api/3/action/resource_search?query=name:${P}-and&query=description:green`)
    expect(names(two.body.result)).toEqual([`${P}-and-two`])
  })

  it('returns every visible resource for an empty query list', async () => {
    const all = await search({ query: [] })
    expect(all.count).toBeGreaterThan(10)
    expect(all.results).toHaveLength(all.count)
  })

  it('answers CKAN validation errors', async () => {
    invalid(await t.call('resource_search', {}), { query: 'Missing value' })
    invalid(await t.call('resource_search', { query: 'name:x', fields: { name: 'x' } }), {
      fields: 'Do not specify if using "query" parameter',
    })
    invalid(await t.call('resource_search', { query: 'no-colon' }), {
      query: 'Must be <field>:<value> pair(s)',
    })
    invalid(await t.call('resource_search', { query: ['name:x', 42] }), {
      query: 'Must be <field>:<value> pair(s)',
    })
    invalid(await t.call('resource_search', { query: 'id:abc' }), {
      query: 'Field "id" not recognised in resource_search.',
    })
    invalid(await t.call('resource_search', { query: 'name:x', limit: -1 }), {
      limit: ['Must be a natural number'],
    })
    invalid(await t.call('resource_search', { query: 'name:x', offset: 'many' }), {
      offset: ['Invalid integer'],
    })
  })
})
