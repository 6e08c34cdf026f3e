// Organization and group types with custom fields (org-with-address.json, group-with-status.json):
// validated on create/update/patch, stored as extras, shown as top-level keys.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup } from '../helpers/setup'
import { makers } from '../helpers/make'
import { SCHEMING } from './config'

let t: Awaited<ReturnType<typeof setup>>
let admin: { apikey: string }

beforeAll(async () => {
  t = await setup(SCHEMING)
  t.make = makers(t)
  admin = await t.make.sysadmin()
})

const errorOf = (r: { status: number; body: any }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(409)
  return r.body.error
}

describe('an organization type with an address (agency)', () => {
  it('requires and stores its fields, shown top-level', async () => {
    const e = errorOf(await t.call('organization_create', { type: 'agency', name: 'rivers-agency' }, admin))
    expect(e.agency_code).toEqual(['Missing value'])
    const r = await t.call('organization_create', { type: 'agency', name: 'rivers-agency', agency_code: ' RA-01 ', postal_address: '1 Quay St' }, admin)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const org = await t.ok('organization_show', { id: 'rivers-agency' })
    expect(org.type).toBe('agency')
    expect(org.agency_code).toBe('RA-01')
    expect(org.postal_address).toBe('1 Quay St')
    expect(org.extras.map((e: any) => e.key)).toEqual([])
  })

  it('keeps the fields a patch does not give; an update must give the required ones', async () => {
    await t.call('organization_create', { type: 'agency', name: 'coast-agency', agency_code: 'CA-1', postal_address: 'Pier 2', extras: [{ key: 'legacy', value: 'y' }] }, admin)
    const patched = await t.call('organization_patch', { id: 'coast-agency', postal_address: 'Pier 3' }, admin)
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const shown = await t.ok('organization_show', { id: 'coast-agency' })
    expect(shown.agency_code).toBe('CA-1')
    expect(shown.postal_address).toBe('Pier 3')
    expect(shown.extras.map((e: any) => [e.key, e.value])).toEqual([['legacy', 'y']])
    const e = errorOf(await t.call('organization_update', { id: 'coast-agency', name: 'coast-agency' }, admin))
    expect(e.agency_code).toEqual(['Missing value'])
  })

  it('leaves organizations of the default type to the core schema', async () => {
    const r = await t.call('organization_create', { name: 'plain-org', extras: [{ key: 'agency_code', value: 'free' }] }, admin)
    expect(r.status).toBe(200)
    const org = await t.ok('organization_show', { id: 'plain-org' })
    expect(org.agency_code).toBeUndefined()
    expect(org.extras.map((e: any) => [e.key, e.value])).toEqual([['agency_code', 'free']])
  })
})

describe('a group type with a status (basin)', () => {
  it('checks a select field and keeps choices without a preset unchecked, as scheming does', async () => {
    const e = errorOf(await t.call('group_create', { type: 'basin', name: 'severn', catchment_kind: 'wild' }, admin))
    expect(e.catchment_kind).toEqual(["Value must be one of ['natural', 'managed']"])
    const r = await t.call('group_create', { type: 'basin', name: 'severn', catchment_kind: 'managed', review_status: 'anything' }, admin)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const g = await t.ok('group_show', { id: 'severn' })
    expect(g.catchment_kind).toBe('managed')
    expect(g.review_status).toBe('anything')
  })
})
