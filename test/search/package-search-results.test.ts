// package_search end to end: the result envelope, paging, sorting, relevance, facets and fl
// (search.md §1, §5, §6), over one catalogue of a dozen datasets.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: Caller
// Creation order; every write gets its own instant (one second apart, with microseconds).
const NAMES = [
  'alpha-rivers',
  'bravo-lakes',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
]
const DEFAULT_SORT = 'score desc, metadata_modified desc'

type Dict = Record<string, any>

beforeAll(async () => {
  t = await setup()
  let tick = 0
  const base = Date.now() - 3600_000
  t.deps.now = () => {
    tick++
    return new Date(base + tick * 1000).toISOString().slice(0, 23) + String(tick % 1000).padStart(3, '0')
  }
  sys = await t.make.sysadmin()
  const one = await t.ok('organization_create', { name: 'org-one', title: 'First Organization' }, sys)
  const two = await t.ok('organization_create', { name: 'org-two', title: 'Second Org' }, sys)
  await t.ok('group_create', { name: 'grp-a', title: 'Amber Group' }, sys)
  await t.ok('group_create', { name: 'grp-b', title: 'Blue Group' }, sys)
  await t.ok('group_create', { name: 'grp-blank', title: '' }, sys)
  const tags = (...names: string[]) => names.map((name) => ({ name }))
  const res = (...formats: string[]) => formats.map((format, i) => ({ name: `File ${i}`, format }))
  const fields: Record<string, Dict> = {
    'alpha-rivers': {
      title: 'River Atlas',
      notes: 'Maps of streams and water courses',
      tags: tags('maps', 'water'),
      owner_org: one.id,
      groups: [{ name: 'grp-b' }],
      resources: res('CSV', 'CSV'),
      license_id: 'cc-by',
      version: '1.0',
      extras: [{ key: 'frequency', value: 'daily' }],
    },
    'bravo-lakes': {
      title: 'Lake Survey',
      notes: 'Samples taken near a river',
      tags: tags('water'),
      owner_org: one.id,
      resources: res('JSON'),
      license_id: 'odc-by',
      version: '2.0',
    },
    charlie: {
      title: 'zebra crossings',
      notes: 'Road safety',
      tags: tags('roads'),
      owner_org: two.id,
      resources: res('CSV'),
      license_id: 'cc-by',
      version: '0.5',
    },
    delta: {
      title: 'Apple Orchards',
      tags: tags('farming', 'maps'),
      owner_org: two.id,
      groups: [{ name: 'grp-a' }],
      resources: res('PDF'),
      license_id: 'my-license',
    },
    echo: { title: 'Budget', tags: tags('finance'), owner_org: one.id, resources: res('CSV'), license_id: 'cc-by' },
    foxtrot: { title: 'Census', tags: tags('people'), resources: res('XLS'), license_id: 'other-open' },
    golf: {
      title: 'Weather',
      tags: tags('climate', 'water'),
      owner_org: two.id,
      groups: [{ name: 'grp-blank' }],
      resources: res('CSV'),
      license_id: 'cc-by',
    },
    hotel: { title: 'Hospitals', tags: tags('health'), license_id: 'notspecified' },
    india: { title: 'Imports', tags: tags('trade', 'finance'), owner_org: one.id, license_id: 'cc-by' },
    juliet: { title: 'Jobs', tags: tags('employment'), license_id: 'cc-by' },
    kilo: { title: 'Kites', notes: 'juliet flew one', tags: tags('leisure'), license_id: 'cc-zero' },
    lima: {
      title: 'Libraries',
      notes: 'Maps of libraries near water; no kites',
      tags: tags('culture', 'maps'),
      license_id: 'cc-by',
    },
  }
  for (const name of NAMES) await t.ok('package_create', { name, ...fields[name] }, sys)
})

const search = (params: Dict = {}, as?: Caller | null) => t.ok('package_search', params, as)
const names = (r: { results: Dict[] }) => r.results.map((d) => d.name)
const show = (id: string) => t.ok('package_show', { id })
/** Names ordered by metadata_modified, newest first, read back through package_show. */
async function byModifiedDesc(): Promise<string[]> {
  const dicts = await Promise.all(NAMES.map(show))
  return dicts
    .sort((a, b) => (a.metadata_modified < b.metadata_modified ? 1 : a.metadata_modified > b.metadata_modified ? -1 : 0))
    .map((d) => d.name)
}

describe('package_search result shape', () => {
  it('answers count, facets, results, sort and search_facets', async () => {
    const r = await search()
    expect(Object.keys(r).sort()).toEqual(['count', 'facets', 'results', 'search_facets', 'sort'])
    expect(r.count).toBe(NAMES.length)
    expect(r.facets).toEqual({})
    expect(r.search_facets).toEqual({})
    expect(r.sort).toBe(DEFAULT_SORT)
  })

  it('returns dataset dicts equal to package_show', async () => {
    const r = await search({ rows: 100 })
    expect(r.results).toHaveLength(NAMES.length)
    for (const d of r.results) expect(d).toEqual(await show(d.name))
  })

  it('echoes the sort it used', async () => {
    expect((await search({ sort: 'name asc' })).sort).toBe('name asc')
    expect((await search({ sort: 'rank' })).sort).toBe(DEFAULT_SORT)
    expect((await search({ sort: '' })).sort).toBe(DEFAULT_SORT)
  })
})

describe('package_search rows and start', () => {
  it('returns 10 rows by default and counts all matches', async () => {
    const r = await search()
    expect(r.count).toBe(12)
    expect(r.results).toHaveLength(10)
  })

  it('returns only count and facets with rows=0', async () => {
    const r = await search({ rows: 0, 'facet.field': ['organization'] })
    expect(r.count).toBe(12)
    expect(r.results).toEqual([])
    expect(r.facets.organization).toEqual({ 'org-one': 4, 'org-two': 3 })
  })

  it('pages with start, and an empty page past the end keeps the count', async () => {
    const pages = []
    for (const start of [0, 5, 10]) {
      const r = await search({ sort: 'name asc', rows: 5, start })
      expect(r.count).toBe(12)
      pages.push(...names(r))
    }
    expect(pages).toEqual([...NAMES].sort())
    for (const start of [12, 100]) {
      const r = await search({ sort: 'name asc', rows: 5, start })
      expect(r).toMatchObject({ count: 12, results: [] })
    }
  })

  it('accepts rows and start as strings over GET', async () => {
    const r = await t.get('/api/3/action/package_search?sort=name%20asc&rows=2&start=3')
    expect(r.status).toBe(200)
    expect(names(r.body.result)).toEqual(['delta', 'echo'])
  })

  it('clamps rows to service.search.rows_max', async () => {
    const s = await setup({ 'service.search.rows_max': '3' })
    const admin = await s.make.sysadmin()
    for (let i = 0; i < 4; i++) await s.make.dataset(admin)
    const count = async (params: Dict) => {
      const r = await s.ok('package_search', params)
      expect(r.count).toBe(4)
      return r.results.length
    }
    expect(await count({})).toBe(3)
    expect(await count({ rows: 100 })).toBe(3)
    expect(await count({ rows: 3 })).toBe(3)
    expect(await count({ rows: 2 })).toBe(2)
    expect(await count({ rows: 2, start: 3 })).toBe(1)
  })
})

describe('package_search sort (search.md §5)', () => {
  it('sorts by name both ways', async () => {
    const sorted = [...NAMES].sort()
    expect(names(await search({ sort: 'name asc', rows: 100 }))).toEqual(sorted)
    expect(names(await search({ sort: 'name desc', rows: 100 }))).toEqual([...sorted].reverse())
  })

  it('sorts title_string by code point (uppercase before lowercase)', async () => {
    const asc = names(await search({ sort: 'title_string asc', rows: 100 }))
    expect(asc).toEqual([
      'delta', // Apple Orchards
      'echo', // Budget
      'foxtrot', // Census
      'hotel', // Hospitals
      'india', // Imports
      'juliet', // Jobs
      'kilo', // Kites
      'bravo-lakes', // Lake Survey
      'lima', // Libraries
      'alpha-rivers', // River Atlas
      'golf', // Weather
      'charlie', // zebra crossings
    ])
    expect(names(await search({ sort: 'title_string desc', rows: 100 }))).toEqual([...asc].reverse())
  })

  it('sorts by metadata_created', async () => {
    expect(names(await search({ sort: 'metadata_created asc', rows: 100 }))).toEqual(NAMES)
    expect(names(await search({ sort: 'metadata_created desc', rows: 100 }))).toEqual([...NAMES].reverse())
  })

  it('sorts by metadata_modified desc, and by it by default when q matches all', async () => {
    await t.ok('package_patch', { id: 'charlie', notes: 'Road safety statistics' }, sys)
    const expected = await byModifiedDesc()
    expect(expected[0]).toBe('charlie')
    expect(names(await search({ sort: 'metadata_modified desc', rows: 100 }))).toEqual(expected)
    expect(names(await search({ rows: 100 }))).toEqual(expected)
    expect(names(await search({ q: '*:*', rows: 100 }))).toEqual(expected)
    expect(names(await search({ q: '*:*', sort: 'rank', rows: 100 }))).toEqual(expected)
    expect(names(await search({ sort: 'metadata_modified asc', rows: 100 }))).toEqual([...expected].reverse())
  })

  it('pages through the default sort without gaps or repeats', async () => {
    const all = names(await search({ rows: 100 }))
    const paged = []
    for (let start = 0; start < 12; start += 5) paged.push(...names(await search({ rows: 5, start })))
    expect(paged).toEqual(all)
  })

  it('lets the secondary key decide when q matches all (equal scores)', async () => {
    expect(names(await search({ sort: 'score desc, name asc', rows: 100 }))).toEqual([...NAMES].sort())
    expect(names(await search({ q: '*:*', sort: 'score desc, name desc', rows: 100 }))).toEqual(
      [...NAMES].sort().reverse(),
    )
  })

  it('puts datasets without a value last, in both directions', async () => {
    const rest = NAMES.filter((n) => !['alpha-rivers', 'bravo-lakes', 'charlie'].includes(n)).sort()
    const asc = names(await search({ sort: 'version asc', rows: 100 }))
    expect(asc.slice(0, 3)).toEqual(['charlie', 'alpha-rivers', 'bravo-lakes'])
    expect(asc.slice(3).sort()).toEqual(rest)
    const desc = names(await search({ sort: 'version desc', rows: 100 }))
    expect(desc.slice(0, 3)).toEqual(['bravo-lakes', 'alpha-rivers', 'charlie'])
    expect(desc.slice(3).sort()).toEqual(rest)
  })

  it('sorts on an exact field with a second key', async () => {
    const r = await search({ sort: 'license_id asc, name desc', rows: 100, fl: 'name,license_id' })
    const pairs = r.results.map((d: Dict) => [d.license_id, d.name])
    const expected = [...pairs].sort((a, b) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0,
    )
    expect(pairs).toEqual(expected)
    expect(pairs[0][0]).toBe('cc-by')
  })

  it('ranks a title match above a notes-only match', async () => {
    // bravo-lakes (river in notes) is newer than alpha-rivers (River in the title)
    expect(names(await search({ q: 'river' }))).toEqual(['alpha-rivers', 'bravo-lakes'])
    // lima (kites in notes) is newer than kilo (Kites in the title)
    expect(names(await search({ q: 'kites' }))).toEqual(['kilo', 'lima'])
  })

  it('ranks a name match above a notes-only match', async () => {
    // kilo mentions juliet in its notes and is newer
    expect(names(await search({ q: 'juliet' }))).toEqual(['juliet', 'kilo'])
  })

  it('ranks datasets matching more words higher', async () => {
    // 3 words: 2 must match; alpha-rivers matches all three, lima (newer) two
    expect(names(await search({ q: 'maps water streams' }))).toEqual(['alpha-rivers', 'lima'])
  })
})

describe('package_search facets (search.md §6)', () => {
  const ALL_FIELDS = ['tags', 'res_format', 'organization', 'groups', 'license_id']

  it('counts datasets per value for each facet.field', async () => {
    const r = await search({ rows: 0, 'facet.field': ALL_FIELDS })
    expect(r.facets).toEqual({
      tags: {
        maps: 3,
        water: 3,
        finance: 2,
        climate: 1,
        culture: 1,
        employment: 1,
        farming: 1,
        health: 1,
        leisure: 1,
        people: 1,
        roads: 1,
        trade: 1,
      },
      // alpha-rivers has two CSV resources and counts once
      res_format: { CSV: 4, JSON: 1, PDF: 1, XLS: 1 },
      organization: { 'org-one': 4, 'org-two': 3 },
      groups: { 'grp-a': 1, 'grp-b': 1, 'grp-blank': 1 },
      license_id: { 'cc-by': 7, 'cc-zero': 1, 'my-license': 1, notspecified: 1, 'odc-by': 1, 'other-open': 1 },
    })
  })

  it('counts only the matching datasets', async () => {
    const r = await search({ q: 'tags:water', 'facet.field': ['tags', 'organization'] })
    expect(r.facets).toEqual({
      tags: { water: 3, maps: 1, climate: 1 },
      organization: { 'org-one': 2, 'org-two': 1 },
    })
  })

  it('builds search_facets with display names, ordered by display name descending', async () => {
    const r = await search({ rows: 0, 'facet.field': ALL_FIELDS })
    expect(Object.keys(r.search_facets).sort()).toEqual([...ALL_FIELDS].sort())
    expect(r.search_facets.organization).toEqual({
      title: 'organization',
      items: [
        { count: 3, display_name: 'Second Org', name: 'org-two' },
        { count: 4, display_name: 'First Organization', name: 'org-one' },
      ],
    })
    expect(r.search_facets.groups).toEqual({
      title: 'groups',
      items: [
        { count: 1, display_name: 'grp-blank', name: 'grp-blank' }, // blank title → name
        { count: 1, display_name: 'Blue Group', name: 'grp-b' },
        { count: 1, display_name: 'Amber Group', name: 'grp-a' },
      ],
    })
    expect(r.search_facets.license_id).toEqual({
      title: 'license_id',
      items: [
        { count: 1, display_name: 'my-license', name: 'my-license' }, // unknown license → id
        { count: 1, display_name: 'Other (Open)', name: 'other-open' },
        { count: 1, display_name: 'Open Data Commons Attribution License', name: 'odc-by' },
        { count: 1, display_name: 'License not specified', name: 'notspecified' },
        { count: 1, display_name: 'Creative Commons CCZero', name: 'cc-zero' },
        { count: 7, display_name: 'Creative Commons Attribution', name: 'cc-by' },
      ],
    })
    expect(r.search_facets.res_format.items).toEqual([
      { count: 1, display_name: 'XLS', name: 'XLS' },
      { count: 1, display_name: 'PDF', name: 'PDF' },
      { count: 1, display_name: 'JSON', name: 'JSON' },
      { count: 4, display_name: 'CSV', name: 'CSV' },
    ])
    const tagItems = r.search_facets.tags.items.map((i: Dict) => i.name)
    expect(tagItems).toEqual(Object.keys(r.facets.tags).sort().reverse())
  })

  it('shows an organization title change in search_facets', async () => {
    await t.ok('organization_patch', { id: 'org-two', title: 'Renamed Org' }, sys)
    const r = await search({ rows: 0, 'facet.field': ['organization'] })
    expect(r.search_facets.organization.items).toEqual([
      { count: 3, display_name: 'Renamed Org', name: 'org-two' },
      { count: 4, display_name: 'First Organization', name: 'org-one' },
    ])
    await t.ok('organization_patch', { id: 'org-two', title: 'Second Org' }, sys)
  })

  it('keeps the highest counts with facet.limit (ties by value)', async () => {
    const r = await search({ rows: 0, 'facet.field': ['tags', 'res_format'], 'facet.limit': 2 })
    expect(r.facets).toEqual({ tags: { maps: 3, water: 3 }, res_format: { CSV: 4, JSON: 1 } })
    expect(r.search_facets.tags.items).toEqual([
      { count: 3, display_name: 'water', name: 'water' },
      { count: 3, display_name: 'maps', name: 'maps' },
    ])
    const one = await search({ rows: 0, 'facet.field': ['tags'], 'facet.limit': 3 })
    expect(one.facets.tags).toEqual({ maps: 3, water: 3, finance: 2 })
  })

  it('lists no values with facet.limit=0', async () => {
    const r = await search({ rows: 0, 'facet.field': ['tags'], 'facet.limit': 0 })
    expect(r.facets).toEqual({ tags: {} })
    expect(r.search_facets).toEqual({ tags: { title: 'tags', items: [] } })
  })

  it('lists every value with a negative facet.limit', async () => {
    const r = await search({ rows: 0, 'facet.field': ['tags'], 'facet.limit': -1 })
    expect(Object.keys(r.facets.tags)).toHaveLength(12)
  })

  it('uses search.facets.limit (50) by default', async () => {
    const r = await search({ rows: 0, 'facet.field': ['tags'] })
    expect(Object.keys(r.facets.tags)).toHaveLength(12)
  })

  it('drops values under facet.mincount', async () => {
    const r = await search({ rows: 0, 'facet.field': ['tags', 'res_format'], 'facet.mincount': 2 })
    expect(r.facets).toEqual({ tags: { maps: 3, water: 3, finance: 2 }, res_format: { CSV: 4 } })
    expect(r.search_facets.res_format.items).toEqual([{ count: 4, display_name: 'CSV', name: 'CSV' }])
  })

  it('returns no facets with facet=false', async () => {
    const r = await search({ rows: 0, facet: 'false', 'facet.field': ['tags'] })
    expect(r.facets).toEqual({})
    expect(r.search_facets).toEqual({})
  })

  it('takes facet.field as a JSON string, over GET and POST', async () => {
    const field = encodeURIComponent('["organization","res_format"]')
    const r = await t.get(`/api/3/action/package_search?rows=0&facet.field=${field}&facet.limit=1`)
    expect(r.status).toBe(200)
    expect(r.body.result.facets).toEqual({ organization: { 'org-one': 4 }, res_format: { CSV: 4 } })
    const p = await search({ rows: 0, 'facet.field': '["groups"]' })
    expect(p.facets).toEqual({ groups: { 'grp-a': 1, 'grp-b': 1, 'grp-blank': 1 } })
  })

  it('facets on a plain extra key', async () => {
    const r = await search({ rows: 0, 'facet.field': ['frequency'] })
    expect(r.facets).toEqual({ frequency: { daily: 1 } })
  })
})

describe('package_search fl (search.md §6.2)', () => {
  it('returns only the requested fields, from a string or a list', async () => {
    const asString = await search({ q: 'name:echo', fl: 'title,name' })
    expect(asString.results).toEqual([{ title: 'Budget', name: 'echo' }])
    const asList = await search({ q: 'name:echo', fl: ['title', 'name'] })
    expect(asList.results).toEqual([{ title: 'Budget', name: 'echo' }])
    const spaced = await search({ q: 'name:echo', fl: 'name title' })
    expect(spaced.results).toEqual([{ name: 'echo', title: 'Budget' }])
    const id = await search({ q: 'name:echo', fl: ['id'] })
    expect(id.results).toEqual([{ id: (await show('echo')).id }])
  })

  it('returns data_dict and validated_data_dict as JSON strings', async () => {
    const r = await search({ q: 'name:echo', fl: 'data_dict,validated_data_dict' })
    expect(Object.keys(r.results[0]).sort()).toEqual(['data_dict', 'validated_data_dict'])
    expect(typeof r.results[0].data_dict).toBe('string')
    expect(JSON.parse(r.results[0].data_dict)).toMatchObject({ name: 'echo', title: 'Budget' })
    expect(JSON.parse(r.results[0].validated_data_dict)).toMatchObject({ name: 'echo', title: 'Budget' })
  })

  it('returns extras_<k> under <k>, and leaves out unknown fields', async () => {
    const r = await search({ q: 'name:alpha-rivers OR name:echo', sort: 'name asc', fl: 'name,extras_frequency,nosuch' })
    expect(r.results).toEqual([{ name: 'alpha-rivers', frequency: 'daily' }, { name: 'echo' }])
  })

  it('returns stored index values: multi-valued lists and Z dates', async () => {
    const d = await show('alpha-rivers')
    const r = await search({
      q: 'name:alpha-rivers',
      fl: 'tags,groups,organization,res_format,capacity,metadata_modified,license_id,site_id,entity_type,index_id',
    })
    expect(r.results).toEqual([
      {
        tags: ['maps', 'water'],
        groups: ['grp-b'],
        organization: 'org-one',
        res_format: ['CSV', 'CSV'],
        capacity: 'public',
        metadata_modified: d.metadata_modified + 'Z',
        license_id: 'cc-by',
        site_id: 'test.ckan.net',
        entity_type: 'package',
        index_id: d.id,
      },
    ])
  })
})

describe('package_search filters', () => {
  it('filters on metadata_modified from a package_show timestamp, boundary included', async () => {
    const all = await Promise.all(NAMES.map(show))
    const pivot = all.find((d) => d.name === 'foxtrot')!
    const ts: string = pivot.metadata_modified
    expect(ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/)
    const expected = (keep: (m: string) => boolean) =>
      all
        .filter((d) => keep(d.metadata_modified))
        .map((d) => d.name)
        .sort()
    const found = async (fq: string) => names(await search({ fq, rows: 100 })).sort()
    expect(await found(`metadata_modified:[${ts}Z TO *]`)).toEqual(expected((m) => m >= ts))
    expect(await found(`metadata_modified:[${ts}Z TO *]`)).toContain('foxtrot')
    expect(await found(`metadata_modified:{${ts}Z TO *]`)).toEqual(expected((m) => m > ts))
    expect(await found(`metadata_modified:[* TO ${ts}Z]`)).toEqual(expected((m) => m <= ts))
    expect(await found(`metadata_modified:[${ts}Z TO ${ts}Z]`)).toEqual(['foxtrot'])
    expect(await found(`metadata_modified:"${ts}Z"`)).toEqual(['foxtrot'])
  })

  it('takes fq_list as a list or as a lone string', async () => {
    const list = await search({ fq_list: ['tags:water', 'organization:org-one'] })
    expect(names(list).sort()).toEqual(['alpha-rivers', 'bravo-lakes'])
    const lone = await search({ fq_list: 'tags:water' })
    expect(names(lone).sort()).toEqual(['alpha-rivers', 'bravo-lakes', 'golf'])
    const both = await search({ fq: 'tags:water', fq_list: ['res_format:CSV'] })
    expect(names(both).sort()).toEqual(['alpha-rivers', 'golf'])
  })

  it('accepts and ignores ext_* parameters no search reads (ext_bbox filters: test/spatial)', async () => {
    const plain = await search({ q: 'tags:water' })
    const ext = await search({ q: 'tags:water', ext_prev_extent: { a: 1 }, ext_other: '1', extras: { ext_prev_extent: 'x' } })
    expect(ext).toEqual(plain)
  })

  it('accepts and ignores engine tuning parameters', async () => {
    const plain = await search({ q: 'tags:water' })
    const tuned = await search({ q: 'tags:water', wt: 'json', df: 'text', 'q.op': 'AND', bf: '', boost: '', tie: '0.1' })
    expect(names(tuned).sort()).toEqual(names(plain).sort())
  })
})

describe('package_search over GET', () => {
  it('answers JSONP with a callback', async () => {
    const r = await t.get('/api/3/action/package_search?q=tags:water&facet.field=%5B%22tags%22%5D&callback=cb')
    expect(r.status).toBe(200)
    expect(r.type).toBe('application/javascript;charset=utf-8')
    const m = /^cb\((.*)\);$/s.exec(r.text)
    expect(m).not.toBeNull()
    const body = JSON.parse(m![1]!)
    expect(body.success).toBe(true)
    expect(body.result.count).toBe(3)
    expect(body.result.facets.tags.water).toBe(3)
  })

  it('answers the same as POST', async () => {
    const r = await t.get('/api/3/action/package_search?q=water&fq=organization:org-one&sort=name%20desc')
    expect(r.status).toBe(200)
    const post = await search({ q: 'water', fq: 'organization:org-one', sort: 'name desc' })
    expect(r.body.result).toEqual(post)
    expect(names(post)).toEqual(['bravo-lakes', 'alpha-rivers'])
  })
})
