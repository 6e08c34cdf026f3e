// Profiling aid: package_create in-process (node --cpu-prof --import tsx scripts/prof-create.ts N).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset } from '../bench/lib/generate'

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
const orgs: string[] = []
for (let i = 0; i < 20; i++) orgs.push((await call('organization_create', { name: `org-${i}` })).id)
const c = corpus(7)
const N = Number(process.argv[2] ?? 3000)
const items = Array.from({ length: N }, (_, i) => dataset(c, i, orgs))
let next = 0
const t0 = performance.now()
await Promise.all(Array.from({ length: 16 }, async () => { while (next < N) await call('package_create', items[next++]) }))
console.log('creates/s', N / ((performance.now() - t0) / 1000))
