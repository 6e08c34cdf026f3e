// Profiling aid: package_create in-process (node --cpu-prof --import tsx scripts/prof-create.ts N).
// SCALE=1: the scale benchmark's datasets (bench/scale.ts: 5-30 tags, 1-10 resources, groups, 500 orgs).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset, scaleDataset } from '../bench/lib/generate'

const { db, headProbe, writeExecutor, readExecutor } = await openCatalogDb(`file:${join(mkdtempSync(join(tmpdir(), 'p-')), 'c.db')}`)
const deps = buildDeps(loadConfig({}), db, { headProbe, writeExecutor, readExecutor })
await warmUp(deps)
const app = createApp(deps)
const admin = await addSysadmin(deps, 'admin')
const call = async (name: string, body: unknown) => {
  const res = await app.request(`/api/3/action/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: admin.apikey! }, body: JSON.stringify(body) })
  const j = await res.json() as any
  if (!j.success) throw new Error(JSON.stringify(j))
  return j.result
}
const scale = !!process.env.SCALE
const orgs: string[] = []
for (let i = 0; i < (scale ? 500 : 20); i++) orgs.push((await call('organization_create', { name: `org-${i}` })).id)
const groups: string[] = []
for (let i = 0; scale && i < 50; i++) groups.push((await call('group_create', { name: `group-${i}` })).name)
const c = corpus(7)
const N = Number(process.argv[2] ?? 3000)
const items = Array.from({ length: N }, (_, i) => (scale ? scaleDataset(c, i, orgs, groups) : dataset(c, i, orgs)))
let next = 0
const t0 = performance.now()
await Promise.all(Array.from({ length: 16 }, async () => { while (next < N) await call('package_create', items[next++]) }))
console.log('creates/s', N / ((performance.now() - t0) / 1000))
if (process.env.SEARCH) {
  // the index catches up with every create on the next search (what the scale bench's searches cost)
  const t1 = performance.now()
  await call('package_search', { q: '', rows: 1 })
  console.log('catch-up search ms', (performance.now() - t1).toFixed(0), 'for', N, 'datasets')
}
