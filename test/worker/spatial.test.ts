// Issue 30: ext_bbox in workerd against sqld answers as a Node process over the same catalogue does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { TEST_PROFILE } from '../helpers/setup'
import { callWorker, okWorker, startWorker, type WorkerEnv } from './harness'

let w: WorkerEnv
let mf: Miniflare

const rect = (x0: number, y0: number, x1: number, y1: number) =>
  JSON.stringify({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] })

beforeAll(async () => {
  w = await startWorker()
  mf = w.mf
  const shapes: [string, string][] = [
    ['edge-tri', JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0], [10, 0], [0, 10], [0, 0]]] })],
    ['edge-square', rect(-20, -20, 20, 20)],
    ['edge-point', '{"type":"Point","coordinates":[30,5]}'],
    ['edge-across', rect(175, 60, 185, 65)],
    ['edge-west', rect(-179, 60, -176, 63)],
  ]
  for (const [name, value] of shapes) await okWorker(mf, 'package_create', { name, tags: [{ name: name === 'edge-point' ? 'dot' : 'area' }], extras: [{ key: 'spatial', value }] }, w.sysadmin)
}, 120_000)
afterAll(async () => {
  await w?.close()
})

describe('ext_bbox on the Worker', () => {
  it('answers the same datasets, order, facets and errors as Node over the same catalogue', async () => {
    const queries: object[] = [
      { ext_bbox: '-1,-1,1,1' },
      { extras: { ext_bbox: '5.6,4.5,9,9' } },
      { ext_bbox: '170,55,-170,70', 'facet.field': ['tags'] },
      { ext_bbox: '-180,-90,180,90', q: 'tags:area' },
      { ext_bbox: '-20,-20,30,20' },
      { ext_bbox: '30,0,35,10' },
    ]
    const opened = await openCatalogDb(w.catalogue.url)
    const deps = buildDeps(loadConfig(TEST_PROFILE), opened.db)
    await warmUp(deps)
    const app = createApp(deps)
    try {
      for (const q of queries) {
        const onWorker = await okWorker(mf, 'package_search', q)
        const res = await app.request('/api/3/action/package_search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(q) })
        const onNode = (await res.json()).result
        expect(onWorker.results.map((d: { name: string }) => d.name)).toEqual(onNode.results.map((d: { name: string }) => d.name))
        expect(onWorker.count).toBe(onNode.count)
        expect(onWorker.facets).toEqual(onNode.facets)
      }
      expect((await okWorker(mf, 'package_search', { ext_bbox: '170,55,-170,70' })).results.map((d: { name: string }) => d.name).sort()).toEqual(['edge-across', 'edge-west'])
      // the triangle's envelope covers this box, the triangle does not
      expect((await okWorker(mf, 'package_search', { ext_bbox: '5.6,4.5,9,9' })).results.map((d: { name: string }) => d.name)).toEqual(['edge-square'])
      const bad = await callWorker(mf, 'package_search', { ext_bbox: '1,2,3,a' })
      expect(bad.status).toBe(409)
      expect(bad.body.error.message).toBe("Search error: 'Wrong bounding box provided'")
      const geo = await mf.dispatchFetch('http://localhost/api/2/search/dataset/geo?bbox=-1,-1,1,1')
      expect(((await geo.json()) as { count: number }).count).toBe(2)
    } finally {
      deps.search.stop()
      opened.close()
    }
  }, 60_000)
})
