// Metadata schemas in workerd against sqld: the isolate reads no files, so it builds the registry
// from the snapshot the Node side stored; a schema-driven package_create and a facet on its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { loadConfig } from '../../src/config/load'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { nodeScheming } from '../../src/runtime/node-schemas'
import { storeSchemingSnapshot } from '../../src/scheming/store'
import { callWorker, okWorker, startWorker, type WorkerEnv } from './harness'

const F = 'test/fixtures/scheming/'
let w: WorkerEnv
let mf: Miniflare

beforeAll(async () => {
  w = await startWorker()
  const config = loadConfig({ 'scheming.dataset_schemas': `${F}dataset.yaml ${F}river-photos.yaml`, 'scheming.choices_helpers': `${F}choices-helpers.yaml` })
  const { snapshot } = await nodeScheming(config)
  const opened = await openCatalogDb(w.catalogue.url)
  expect(await storeSchemingSnapshot(buildDeps(config, opened.db), snapshot)).toBe(true)
  opened.close()
  mf = await w.isolate()
}, 120_000)
afterAll(async () => {
  await w?.close()
})

describe('schemas on the Worker', () => {
  it('validates and stores a dataset of a schema type, and facets on a schema field', async () => {
    const bad = await callWorker(mf, 'package_create', { name: 'edge-rain-bad' }, w.sysadmin)
    expect(bad.status).toBe(409)
    expect(bad.body.error.contact_email).toEqual(['Missing value'])
    const d = await okWorker(mf, 'package_create', { name: 'edge-rain', contact_email: 'desk@example.org', frequency: 'weekly' }, w.sysadmin)
    expect(d.frequency).toBe('weekly')
    const photo = await okWorker(
      mf,
      'package_create',
      { type: 'river-photos', name: 'edge-photo', river_section: 'upper', conditions: ['ice', 'flood'], observed_on: '2024-01-02', is_public_domain: 'true', equipment: 'drone' },
      w.sysadmin,
    )
    expect(photo.conditions).toEqual(['flood', 'ice'])
    expect(photo.equipment).toEqual(['drone'])
    const found = await okWorker(mf, 'package_search', { 'facet.field': ['frequency', 'conditions'], fq: 'frequency:weekly' })
    expect(found.results.map((r: { name: string }) => r.name)).toEqual(['edge-rain'])
    expect(found.search_facets.frequency.items).toEqual([{ name: 'weekly', display_name: 'weekly', count: 1 }])
    expect(await okWorker(mf, 'scheming_dataset_schema_list')).toEqual(['dataset', 'river-photos'])
  }, 60_000)
})
