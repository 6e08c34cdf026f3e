// A schema field named `spatial` (scheming) is checked and searched like the `spatial` extra.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }

beforeAll(async () => {
  t = await setup({ 'scheming.dataset_schemas': 'test/fixtures/scheming/spatial-extent.yaml' })
  sys = await t.make.sysadmin()
})

describe('a scheming field named spatial', () => {
  it('stores a valid geometry at the top level and finds it by ext_bbox', async () => {
    const value = '{"type":"Point","coordinates":[-3.2,55.9]}'
    const d = await t.ok('package_create', { type: 'extent', name: 'edinburgh', spatial: value }, sys)
    expect(d.spatial).toBe(value)
    const r = await t.ok('package_search', { ext_bbox: '-4,55,-3,56' })
    expect(r.results.map((x: { name: string }) => x.name)).toEqual(['edinburgh'])
    expect((await t.ok('package_search', { ext_bbox: '-2,55,-1,56' })).count).toBe(0)
  })

  it('refuses a wrong geometry with ckanext-spatial\'s message, storing nothing', async () => {
    const r = await t.call('package_create', { type: 'extent', name: 'nowhere', spatial: '{"type":"Point","coordinates":[0,99]}' }, sys)
    expect(r.status).toBe(409)
    expect(r.body.error.spatial).toEqual(['Error: Wrong GeoJSON object: Point coordinates: latitude 99 is out of range (-90 to 90)'])
    expect((await t.call('package_show', { id: 'nowhere' })).status).toBe(404)
    const patched = await t.call('package_patch', { id: 'edinburgh', spatial: 'not json' }, sys)
    expect(patched.body.error.spatial[0]).toMatch(/^Error decoding JSON object: /)
  })
})
