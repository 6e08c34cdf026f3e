// CKAN 2.12's changed_entities envelope key (service.api.changed_entities): the datasets a call
// really changed, on package_update and the actions that change a dataset through it.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type Caller, type TestEnv } from '../helpers/setup'
import { uniq } from '../helpers/make'

let on: TestEnv
let off: TestEnv
let sysOn: Caller
let sysOff: Caller

beforeAll(async () => {
  on = await setup({ 'ckan.api.changed_entities': 'true', 'ckan.api_compat': '2.11' })
  off = await setup()
  sysOn = await on.make.sysadmin()
  sysOff = await off.make.sysadmin()
})

describe('changed_entities', () => {
  it('names the dataset an update really changed, and none when nothing changed', async () => {
    const d = await on.make.dataset(sysOn, { notes: 'one' })
    const changed = await on.call('package_patch', { id: d.id, notes: 'two' }, sysOn)
    expect(changed.body.changed_entities).toEqual({ packages: [d.id] })
    const same = await on.call('package_patch', { id: d.id, notes: 'two' }, sysOn)
    expect(same.body.success).toBe(true)
    expect(same.body).not.toHaveProperty('changed_entities')
    const shown = await on.ok('package_show', { id: d.id })
    const full = await on.call('package_update', shown, sysOn)
    expect(full.body).not.toHaveProperty('changed_entities')
  })

  it('counts resource writes and a reorder as changes of their dataset', async () => {
    const d = await on.make.dataset(sysOn)
    const r1 = await on.call('resource_create', { package_id: d.id, url: 'http://e.com/a.csv' }, sysOn)
    expect(r1.body.changed_entities).toEqual({ packages: [d.id] })
    const r2 = await on.ok('resource_create', { package_id: d.id, url: 'http://e.com/b.csv' }, sysOn)
    const reorder = await on.call('package_resource_reorder', { id: d.id, order: [r2.id] }, sysOn)
    expect(reorder.body.changed_entities).toEqual({ packages: [d.id] })
    const again = await on.call('package_resource_reorder', { id: d.id, order: [r2.id] }, sysOn)
    expect(again.body).not.toHaveProperty('changed_entities')
    const del = await on.call('resource_delete', { id: r2.id }, sysOn)
    expect(del.body.changed_entities).toEqual({ packages: [d.id] })
  })

  it('is absent from reads, from failed calls and where the site does not ask for it', async () => {
    const d = await on.make.dataset(sysOn)
    expect(await on.call('package_show', { id: d.id })).not.toHaveProperty('body.changed_entities')
    const bad = await on.call('package_patch', { id: d.id, name: 'Bad Name!' }, sysOn)
    expect(bad.body.success).toBe(false)
    expect(bad.body).not.toHaveProperty('changed_entities')
    const d2 = await off.make.dataset(sysOff)
    const quiet = await off.call('package_patch', { id: d2.id, notes: uniq('n') }, sysOff)
    expect(quiet.body.success).toBe(true)
    expect(quiet.body).not.toHaveProperty('changed_entities')
  })
})
