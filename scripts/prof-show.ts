// Profiling aid: package_show in-process (node --cpu-prof --import tsx scripts/prof-show.ts N).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset } from '../bench/lib/generate'

const opened = await openCatalogDb(`file:${join(mkdtempSync(join(tmpdir(), 'p-')), 'c.db')}`)
const deps = buildDeps(loadConfig({}), opened.db, opened)
await warmUp(deps)
const app = createApp(deps)
const admin = await addSysadmin(deps, 'admin')
const c = corpus(7)
const names: string[] = []
for (let i = 0; i < 200; i++) {
  const d = dataset(c, i)
  names.push(d.name)
  await app.request('/api/3/action/package_create', { method: 'POST', headers: { 'content-type': 'application/json', authorization: admin.apikey! }, body: JSON.stringify(d) })
}
const N = Number(process.argv[2] ?? 50000)
const t0 = performance.now()
for (let i = 0; i < N; i++) {
  const res = await app.request(`/api/3/action/package_show?id=${names[i % names.length]}`)
  await res.text()
}
console.log('shows/s', N / ((performance.now() - t0) / 1000))
