// Profiling aid: datastore_search in-process (node --cpu-prof --import tsx scripts/prof-ds.ts ROWS N).
// KIND=page|filter|q; the rows, fields and queries of bench/datastore.ts. PROF=<file>: a CPU
// profile of 3×N more searches only (the load left out).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import { loadConfig } from '../src/config/load'
import { buildDeps, warmUp } from '../src/runtime/deps'
import { openCatalogDb } from '../src/runtime/node-db'
import { datastoreUrl, openDatastore } from '../src/runtime/node-datastore'
import { addSysadmin } from '../src/model/sysadmin'
import { CATEGORIES, DS_FIELDS, dsBatch, wordsNear } from '../bench/lib/ds-rows'

const url = `file:${join(mkdtempSync(join(tmpdir(), 'p-')), 'c.db')}`
const opened = await openCatalogDb(url)
const datastore = await openDatastore(datastoreUrl(undefined, url))
const deps = buildDeps(loadConfig({}), opened.db, { ...opened, datastore })
await warmUp(deps)
const app = createApp(deps)
const admin = await addSysadmin(deps, 'admin')
const call = async (name: string, body: unknown) => {
  const res = await app.request(`/api/3/action/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: admin.apikey! },
    body: JSON.stringify(body),
  })
  const j = (await res.json()) as any
  if (!j.success) throw new Error(JSON.stringify(j))
  return j.result
}
const org = await call('organization_create', { name: 'org' })
const pkg = await call('package_create', { name: 'ds', owner_org: org.id })
const ROWS = Number(process.argv[2] ?? 200000)
const created = await call('datastore_create', { resource: { package_id: pkg.id, name: 'rows' }, force: true, fields: DS_FIELDS, indexes: 'category' })
const res = { id: created.resource_id as string }
for (let i = 0; i < ROWS; i += 10000)
  await call('datastore_upsert', { resource_id: res.id, method: 'insert', force: true, records: dsBatch(i, Math.min(10000, ROWS - i)) })
const words = wordsNear(0.01, 5).map((w) => w.word)
const kind = process.env.KIND ?? 'filter'
const body = (i: number) => ({
  resource_id: res.id,
  limit: 100,
  include_total: true,
  ...(kind === 'filter' ? { filters: { category: (i * 37) % CATEGORIES } } : {}),
  ...(kind === 'q' ? { q: words[i % words.length] } : {}),
})
const N = Number(process.argv[3] ?? 2000)
for (let i = 0; i < 50; i++) await call('datastore_search', body(i))
const t0 = performance.now()
for (let i = 0; i < N; i++) await call('datastore_search', body(i))
console.log(kind, 'ms per search', ((performance.now() - t0) / N).toFixed(3))
if (process.env.PROF) {
  const { Session } = await import('node:inspector/promises')
  const { writeFileSync } = await import('node:fs')
  const s = new Session()
  s.connect()
  await s.post('Profiler.enable')
  await s.post('Profiler.setSamplingInterval', { interval: 100 })
  await s.post('Profiler.start')
  for (let i = 0; i < N * 3; i++) await call('datastore_search', body(i))
  const { profile } = await s.post('Profiler.stop')
  writeFileSync(process.env.PROF, JSON.stringify(profile))
}
