// Profiling aid: package_search pages of 1,000 full dicts in-process (npx tsx scripts/prof-search-rows.ts); profile in /tmp/search.cpuprofile.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { addSysadmin } from '../src/model/sysadmin'
import { corpus, dataset } from '../bench/lib/generate'
import { Session } from 'node:inspector'
import { writeFileSync } from 'node:fs'

const opened = await openCatalogDb(`file:${join(mkdtempSync(join(tmpdir(), 'p-')), 'c.db')}`)
const deps = buildDeps(loadConfig({}), opened.db, opened)
await warmUp(deps)
const app = createApp(deps)
const admin = await addSysadmin(deps, 'admin')
const c = corpus(7)
const orgs: string[] = []
for (let i = 0; i < 20; i++) {
  const r = await app.request('/api/3/action/organization_create', { method: 'POST', headers: { 'content-type': 'application/json', authorization: admin.apikey! }, body: JSON.stringify({ name: `org-${i}` }) })
  orgs.push(((await r.json()) as any).result.id)
}
const N = 2000
await Promise.all(Array.from({ length: 8 }, async (_, k) => {
  for (let i = k; i < N; i += 8) {
    await app.request('/api/3/action/package_create', { method: 'POST', headers: { 'content-type': 'application/json', authorization: admin.apikey! }, body: JSON.stringify(dataset(c, i, orgs)) })
  }
}))
const session = new Session(); session.connect()
const post = (m: string, p?: object) => new Promise<any>((res, rej) => session.post(m, p, (e, r) => (e ? rej(e) : res(r))))
await post('Profiler.enable'); await post('Profiler.start')
const t0 = performance.now()
for (let round = 0; round < 3; round++)
  for (let start = 0; start < N; start += 1000) {
    const res = await app.request(`/api/3/action/package_search?rows=1000&start=${start}&sort=id%20asc`)
    await res.text()
  }
const ms = performance.now() - t0
const { profile } = await post('Profiler.stop')
writeFileSync('/tmp/search.cpuprofile', JSON.stringify(profile))
console.log('ms per dataset', ms / (3 * N))
