// The scheming snapshot in the catalogue database: stored when it changes (clearing the search
// index's snapshot, made under the old schemas), read back into the same registry Workers build.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import { nodeScheming } from '../../src/runtime/node-schemas'
import { readSchemingSnapshot, storedSchemas, storeSchemingSnapshot } from '../../src/scheming/store'
import { setup } from '../helpers/setup'

const F = 'test/fixtures/scheming/'

describe('the stored scheming snapshot', () => {
  it('is written only when it changes, clears the search snapshot then, and rebuilds the same registry', async () => {
    const t = await setup()
    const one = await nodeScheming(loadConfig({ 'scheming.dataset_schemas': `${F}dataset.yaml` }))
    const two = await nodeScheming(loadConfig({ 'scheming.dataset_schemas': `${F}dataset.yaml ${F}monitoring-stations.yaml`, 'scheming.presets': `ckanext.scheming:presets.json ${F}presets-extra.json` }))
    expect(await storedSchemas(t.deps.read, 'en')).toBeUndefined()
    expect(await storeSchemingSnapshot(t.deps, one.snapshot)).toBe(true)
    expect(await storeSchemingSnapshot(t.deps, one.snapshot)).toBe(false)
    await t.client.execute("INSERT INTO search_snapshot (chunk, seq, created, data) VALUES (0, 1, 'x', x'00')")
    expect(await storeSchemingSnapshot(t.deps, two.snapshot)).toBe(true)
    expect((await t.client.execute('SELECT COUNT(*) AS n FROM search_snapshot')).rows[0]!.n).toBe(0)
    expect(await readSchemingSnapshot(t.deps.read)).toEqual(two.snapshot)
    const reg = await storedSchemas(t.deps.read, 'en')
    expect([...reg!.datasets.keys()]).toEqual(['dataset', 'monitoring-stations'])
    // schemas turned off: stored as none
    expect(await storeSchemingSnapshot(t.deps, null)).toBe(true)
    expect(await storedSchemas(t.deps.read, 'en')).toBeUndefined()
  })
})
