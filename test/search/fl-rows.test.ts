// package_search `fl` answered from the datasets' rows when every field asked for is one a row
// holds (model/search-result.ts flFromRows): the same values as the dicts cut to those fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'

type Dict = Record<string, any>
let t: TestEnv
let sys: Caller
let member: Caller

const ROW_FIELDS =
  'id,name,title,notes,author,author_email,maintainer,maintainer_email,url,version,license_id,state,dataset_type,capacity,metadata_created,metadata_modified,site_id,entity_type,index_id'

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  member = await t.make.user()
  const org = await t.make.organization(sys, { name: 'fl-org' })
  await t.ok('organization_member_create', { id: org.id, username: (member as Dict).name, role: 'member' }, sys)
  await t.ok('package_create', { name: 'fl-a', title: '  Spaced title  ', notes: 'Some notes', author: '', version: '1.0', license_id: 'cc-by', url: 'https://example.com/a', owner_org: org.id }, sys)
  await t.ok('package_create', { name: 'fl-b', private: true, owner_org: org.id, maintainer: 'M', maintainer_email: 'm@example.com' }, sys)
  await t.ok('package_create', { name: 'fl-c', title: 'Plain', extras: [{ key: 'k', value: 'v' }], tags: [{ name: 'xx' }] }, sys)
  await t.ok('package_create', { name: 'fl-d', type: 'harvest', author_email: 'a@example.com' }, sys)
})
afterAll(() => t?.client.close())

describe('package_search fl from rows', () => {
  it('gives the values the dicts give, private datasets to those who may read them', async () => {
    for (const who of [sys, member, null]) {
      const params = { q: '*:*', rows: 100, sort: 'name asc', include_private: true, fq: '+dataset_type:(dataset OR harvest)' }
      const fromRows = await t.ok('package_search', { ...params, fl: ROW_FIELDS }, who)
      // a field no row holds: the dicts answer, cut to the same fields
      const fromDicts = await t.ok('package_search', { ...params, fl: ROW_FIELDS + ',tags' }, who)
      expect(fromRows.results).toEqual(fromDicts.results.map(({ tags: _, ...rest }: Dict) => rest))
      expect(fromRows.results.map((d: Dict) => d.name)).toEqual(who ? ['fl-a', 'fl-b', 'fl-c', 'fl-d'] : ['fl-a', 'fl-c', 'fl-d'])
    }
    const [a] = (await t.ok('package_search', { q: 'name:fl-a', fl: 'title,version,author,capacity,metadata_modified' })).results
    const shown = await t.ok('package_show', { id: 'fl-a' })
    expect(a).toEqual({ title: 'Spaced title', version: '1.0', author: '', capacity: 'public', metadata_modified: shown.metadata_modified + 'Z' })
  })

  it('leaves out a dataset deleted after the index answered, as the dicts do', async () => {
    // fl-d is a harvest source: found only when a filter asks for that type (ckanext-harvest)
    expect((await t.ok('package_search', { q: 'name:fl-d', fl: 'name' })).results).toEqual([])
    const r = await t.ok('package_search', { q: 'name:fl-d', fq: 'dataset_type:harvest', fl: 'name' })
    expect(r.results).toEqual([{ name: 'fl-d' }])
    await t.ok('package_delete', { id: 'fl-d' }, sys)
    expect((await t.ok('package_search', { q: 'name:fl-d', fq: 'dataset_type:harvest', fl: 'name' })).results).toEqual([])
  })
})
