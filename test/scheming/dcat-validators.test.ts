// ckanext-dcat's presets file (built in as ckanext.dcat.schemas:presets.yaml) and its validators:
// dcat_date, scheming_multiple_number; tag_string_convert on a field that is not the core one.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup } from '../helpers/setup'
import { makers } from '../helpers/make'

let t: Awaited<ReturnType<typeof setup>>
let admin: { apikey: string }
let n = 0
const create = (d: Record<string, unknown>) => t.call('package_create', { type: 'dcat-dates', name: `dd-${++n}`, ...d }, admin)

beforeAll(async () => {
  t = await setup({
    'scheming.dataset_schemas': 'test/fixtures/scheming/dcat-dates.yaml',
    'scheming.presets': 'ckanext.scheming:presets.json ckanext.dcat.schemas:presets.yaml',
  })
  admin = await makers(t).sysadmin()
})

describe("ckanext-dcat's validators", () => {
  it('dcat_date keeps years, months, dates and datetimes, and refuses the rest', async () => {
    for (const issued of ['2024', '2024-05', '2024-05-06', '2024-05-06T10:20:30', '2024-05-06T10:20:30+02:00']) {
      const r = await create({ issued })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      expect(r.body.result.issued).toBe(issued)
    }
    const bad = await create({ issued: 'last spring' })
    expect(bad.status).toBe(409)
    expect(bad.body.error.issued).toEqual(['Date format incorrect. Supported formats are YYYY, YYYY-MM, YYYY-MM-DD and YYYY-MM-DDTHH:MM:SS'])
    expect((await create({ issued: 5 })).body.error.issued).toEqual(['Dates must be provided as strings or datetime objects'])
  })

  it('scheming_multiple_number takes a number, a list or its JSON', async () => {
    expect((await create({ spatial_resolution_in_meters: '30' })).body.result.spatial_resolution_in_meters).toEqual([30])
    expect((await create({ spatial_resolution_in_meters: [10, '2.5'] })).body.result.spatial_resolution_in_meters).toEqual([10, 2.5])
    expect((await create({ spatial_resolution_in_meters: '[1, 2]' })).body.result.spatial_resolution_in_meters).toEqual([1, 2])
    expect((await create({ spatial_resolution_in_meters: 'ten' })).body.error.spatial_resolution_in_meters).toEqual(['expecting list of numbers'])
    expect((await create({ spatial_resolution_in_meters: ['x'] })).body.error.spatial_resolution_in_meters).toEqual(["invalid type for repeating number: 'x'"])
  })

  it('tag_string_convert outside the core field checks each tag and keeps the text', async () => {
    const ok = await create({ services: [{ keyword: 'water, rivers', title: 'WMS' }] })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.result.services).toEqual([{ keyword: 'water, rivers', title: 'WMS' }])
    expect(ok.body.result.tags).toEqual([])
    const bad = await create({ services: [{ keyword: 'x, fine' }] })
    expect(bad.body.error.services).toEqual([{ keyword: ['Tag "x" length is less than minimum 2'] }])
  })
})
