// package_search end to end: the index follows every kind of write (search.md §4, §8) – dataset
// updates, resources, group memberships, organization renames, deletes, purges, bulk privacy
// changes and vocabulary tags – and the very next search sees it.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: Caller
let org: { id: string; name: string }
let otherOrg: { id: string; name: string }
let group: { id: string; name: string }
let vocab: { id: string; name: string }

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  org = await t.ok('organization_create', { name: 'up-org', title: 'Update Org' }, sys)
  otherOrg = await t.ok('organization_create', { name: 'other-org', title: 'Other Org' }, sys)
  group = await t.ok('group_create', { name: 'up-group', title: 'Update Group' }, sys)
  vocab = await t.ok('vocabulary_create', { name: 'genre', tags: [{ name: 'fiction' }, { name: 'poetry' }] }, sys)
  const datasets: Record<string, Record<string, unknown>> = {
    'retitle-update': { title: 'Ancient Manuscripts', notes: 'Scanned pages' },
    'retitle-patch': { title: 'Medieval Charters', notes: 'Scanned pages' },
    'gains-resource': { title: 'Growing', resources: [{ name: 'first', format: 'CSV' }] },
    'gains-group': { title: 'Joiner' },
    'org-ds-1': { title: 'Org one', owner_org: org.id },
    'org-ds-2': { title: 'Org two', owner_org: org.id, tags: [{ name: 'orgtag' }] },
    'to-delete': { title: 'Doomed Dataset', tags: [{ name: 'doomed' }] },
    'to-purge': { title: 'Purged Dataset', tags: [{ name: 'purged' }] },
    'goes-private-1': { title: 'Soon Private', owner_org: otherOrg.id, tags: [{ name: 'bulk' }] },
    'goes-private-2': { title: 'Soon Private Too', owner_org: otherOrg.id, tags: [{ name: 'bulk' }] },
    'stays-public': { title: 'Stays Public', owner_org: otherOrg.id, tags: [{ name: 'bulk' }] },
    'gets-vocab': { title: 'Poems', tags: [{ name: 'verse' }] },
    'moves-org': { title: 'Mover', owner_org: otherOrg.id },
    'draft-then-active': { title: 'Was Draft', state: 'draft' },
  }
  for (const [name, fields] of Object.entries(datasets)) await t.ok('package_create', { name, ...fields }, sys)
})

const search = (params: Record<string, unknown>, as?: Caller | null) =>
  t.ok('package_search', { rows: 100, ...params }, as)
const names = async (params: Record<string, unknown>, as?: Caller | null) =>
  ((await search(params, as)).results as { name: string }[]).map((d) => d.name).sort()

describe('package_search follows dataset writes', () => {
  it('finds a dataset by its new title after package_update, not by the old one', async () => {
    expect(await names({ q: 'manuscripts' })).toEqual(['retitle-update'])
    const d = await t.ok('package_show', { id: 'retitle-update' })
    await t.ok('package_update', { ...d, title: 'Modern Spreadsheets' }, sys)
    expect(await names({ q: 'manuscripts' })).toEqual([])
    expect(await names({ fq: 'title:manuscripts' })).toEqual([])
    expect(await names({ q: 'spreadsheets' })).toEqual(['retitle-update'])
    expect(await names({ fq: 'title_string:"Modern Spreadsheets"' })).toEqual(['retitle-update'])
  })

  it('finds a dataset by its new title after package_patch, not by the old one', async () => {
    expect(await names({ q: 'charters' })).toEqual(['retitle-patch'])
    await t.ok('package_patch', { id: 'retitle-patch', title: 'Renaissance Letters' }, sys)
    expect(await names({ q: 'charters' })).toEqual([])
    expect(await names({ q: 'letters' })).toEqual(['retitle-patch'])
    const r = await search({ q: 'name:retitle-patch' })
    expect(r.results[0]).toEqual(await t.ok('package_show', { id: 'retitle-patch' }))
  })

  it('follows tag and extra changes made by package_patch', async () => {
    await t.ok('package_patch', { id: 'retitle-patch', tags: [{ name: 'letters' }], extras: [{ key: 'era', value: 'early modern' }] }, sys)
    expect(await names({ fq: 'tags:letters' })).toEqual(['retitle-patch'])
    expect(await names({ fq: 'era:"early modern"' })).toEqual(['retitle-patch'])
    expect(await names({ fq: 'extras_era:modern' })).toEqual(['retitle-patch'])
    await t.ok('package_patch', { id: 'retitle-patch', tags: [], extras: [] }, sys)
    expect(await names({ fq: 'tags:letters' })).toEqual([])
    expect(await names({ fq: 'era:*' })).toEqual([])
  })

  it('finds a draft once it becomes active', async () => {
    expect(await names({ q: 'name:draft-then-active' })).toEqual([])
    await t.ok('package_patch', { id: 'draft-then-active', state: 'active' }, sys)
    expect(await names({ q: 'name:draft-then-active' })).toEqual(['draft-then-active'])
  })
})

describe('package_search follows resource writes', () => {
  it('sees a format added by resource_create in fq and facets', async () => {
    expect(await names({ fq: 'res_format:KML' })).toEqual([])
    const res = await t.ok('resource_create', { package_id: 'gains-resource', name: 'second', format: 'KML' }, sys)
    expect(await names({ fq: 'res_format:KML' })).toEqual(['gains-resource'])
    expect(await names({ fq: 'name:gains-resource AND num_resources:[2 TO 2]' })).toEqual(['gains-resource'])
    const r = await search({ rows: 0, 'facet.field': ['res_format'] })
    expect(r.facets.res_format).toEqual({ CSV: 1, KML: 1 })
    expect(await names({ q: 'second' })).toEqual(['gains-resource'])

    await t.ok('resource_patch', { id: res.id, format: 'GeoJSON' }, sys)
    expect(await names({ fq: 'res_format:KML' })).toEqual([])
    expect(await names({ fq: 'res_format:GeoJSON' })).toEqual(['gains-resource'])

    await t.ok('resource_delete', { id: res.id }, sys)
    expect(await names({ fq: 'res_format:GeoJSON' })).toEqual([])
    expect(await names({ fq: 'name:gains-resource AND num_resources:1' })).toEqual(['gains-resource'])
  })
})

describe('package_search follows group and organization changes', () => {
  it('finds a dataset added to a group by member_create with groups:', async () => {
    expect(await names({ fq: 'groups:up-group' })).toEqual([])
    await t.ok('member_create', { id: group.id, object: 'gains-group', object_type: 'package', capacity: 'public' }, sys)
    expect(await names({ fq: 'groups:up-group' })).toEqual(['gains-group'])
    expect(await names({ q: 'up-group' })).toEqual(['gains-group'])
    const r = await search({ rows: 0, 'facet.field': ['groups'] })
    expect(r.search_facets.groups.items).toEqual([{ count: 1, display_name: 'Update Group', name: 'up-group' }])

    await t.ok('member_delete', { id: group.id, object: 'gains-group', object_type: 'package' }, sys)
    expect(await names({ fq: 'groups:up-group' })).toEqual([])
  })

  it('shows a group title change in search_facets', async () => {
    await t.ok('member_create', { id: group.id, object: 'gains-group', object_type: 'package', capacity: 'public' }, sys)
    await t.ok('group_patch', { id: group.id, title: 'Retitled Group' }, sys)
    const r = await search({ rows: 0, 'facet.field': ['groups'] })
    expect(r.search_facets.groups.items).toEqual([{ count: 1, display_name: 'Retitled Group', name: 'up-group' }])
  })

  it('follows a group name change (group_patch)', async () => {
    await t.ok('group_patch', { id: group.id, name: 'up-group-renamed' }, sys)
    expect(await names({ fq: 'groups:up-group-renamed' })).toEqual(['gains-group'])
    expect(await names({ fq: 'groups:up-group' })).toEqual([])
    const r = await search({ rows: 0, 'facet.field': ['groups'] })
    expect(r.facets.groups).toEqual({ 'up-group-renamed': 1 })
  })

  it('follows an organization title and name change (organization_patch)', async () => {
    expect(await names({ fq: 'organization:up-org' })).toEqual(['org-ds-1', 'org-ds-2'])
    await t.ok('organization_patch', { id: org.id, title: 'Retitled Org' }, sys)
    let r = await search({ rows: 0, fq: 'owner_org:' + org.id, 'facet.field': ['organization'] })
    expect(r.search_facets.organization.items).toEqual([{ count: 2, display_name: 'Retitled Org', name: 'up-org' }])

    await t.ok('organization_patch', { id: org.id, name: 'up-org-renamed' }, sys)
    expect(await names({ fq: 'organization:up-org-renamed' })).toEqual(['org-ds-1', 'org-ds-2'])
    expect(await names({ fq: 'organization:up-org' })).toEqual([])
    expect(await names({ q: 'up-org-renamed' })).toEqual(['org-ds-1', 'org-ds-2'])
    r = await search({ rows: 0, fq: 'owner_org:' + org.id, 'facet.field': ['organization'] })
    expect(r.facets.organization).toEqual({ 'up-org-renamed': 2 })
    expect(r.search_facets.organization.items).toEqual([
      { count: 2, display_name: 'Retitled Org', name: 'up-org-renamed' },
    ])
    const hit = await search({ q: 'name:org-ds-2' })
    expect(hit.results[0].organization.name).toBe('up-org-renamed')
    expect(hit.results[0]).toEqual(await t.ok('package_show', { id: 'org-ds-2' }))
  })

  it('follows package_owner_org_update', async () => {
    expect(await names({ fq: 'organization:other-org AND name:moves-org' })).toEqual(['moves-org'])
    await t.ok('package_owner_org_update', { id: 'moves-org', organization_id: org.id }, sys)
    expect(await names({ fq: 'organization:other-org AND name:moves-org' })).toEqual([])
    expect(await names({ fq: `owner_org:${org.id} AND name:moves-org` })).toEqual(['moves-org'])
  })
})

describe('package_search forgets deleted and purged datasets', () => {
  it('loses a dataset on package_delete', async () => {
    expect(await names({ q: 'doomed' })).toEqual(['to-delete'])
    await t.ok('package_delete', { id: 'to-delete' }, sys)
    expect(await names({ q: 'doomed' })).toEqual([])
    expect(await names({ fq: 'tags:doomed', include_drafts: true, include_private: true }, sys)).toEqual([])
    expect(await names({ fq: '+state:deleted' }, sys)).toEqual([])
    const r = await search({ rows: 0, 'facet.field': ['tags'] })
    expect(r.facets.tags.doomed).toBeUndefined()
  })

  it('loses a dataset on dataset_purge', async () => {
    expect(await names({ fq: 'tags:purged' })).toEqual(['to-purge'])
    await t.ok('dataset_purge', { id: 'to-purge' }, sys)
    expect(await names({ fq: 'tags:purged' })).toEqual([])
    expect(await names({ fq: 'tags:purged', include_drafts: true, include_private: true }, sys)).toEqual([])
    expect(await names({ q: 'purged' }, sys)).toEqual([])
  })
})

describe('package_search follows bulk privacy changes', () => {
  it('hides datasets made private by bulk_update_private from anonymous callers', async () => {
    const all = ['goes-private-1', 'goes-private-2', 'stays-public']
    expect(await names({ fq: 'tags:bulk' })).toEqual(all)
    const ids = await Promise.all(['goes-private-1', 'goes-private-2'].map(async (id) => (await t.ok('package_show', { id })).id))
    await t.ok('bulk_update_private', { datasets: ids, org_id: otherOrg.id }, sys)
    expect(await names({ fq: 'tags:bulk' })).toEqual(['stays-public'])
    expect(await names({ fq: 'tags:bulk', include_private: true })).toEqual(['stays-public'])
    expect(await names({ fq: 'tags:bulk', include_private: true }, sys)).toEqual(all)
    expect(await names({ fq: 'tags:bulk AND capacity:private', include_private: true }, sys)).toEqual([
      'goes-private-1',
      'goes-private-2',
    ])
    await t.ok('bulk_update_public', { datasets: ids, org_id: otherOrg.id }, sys)
    expect(await names({ fq: 'tags:bulk' })).toEqual(all)
  })
})

describe('package_search indexes vocabulary tags', () => {
  it('finds vocab_<name>:<tag> once a vocabulary tag is added, and not after it is removed', async () => {
    expect(await names({ fq: 'vocab_genre:poetry' })).toEqual([])
    await t.ok(
      'package_patch',
      { id: 'gets-vocab', tags: [{ name: 'verse' }, { name: 'poetry', vocabulary_id: vocab.id }] },
      sys,
    )
    expect(await names({ fq: 'vocab_genre:poetry' })).toEqual(['gets-vocab'])
    expect(await names({ fq: 'tags:poetry' })).toEqual([])
    expect(await names({ fq: 'tags:verse' })).toEqual(['gets-vocab'])
    expect(await names({ q: 'poetry' })).toEqual(['gets-vocab'])
    const r = await search({ rows: 0, 'facet.field': ['vocab_genre'] })
    expect(r.facets).toEqual({ vocab_genre: { poetry: 1 } })

    await t.ok('package_patch', { id: 'gets-vocab', tags: [{ name: 'verse' }] }, sys)
    expect(await names({ fq: 'vocab_genre:poetry' })).toEqual([])
  })
})
