import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { Session } from 'node:inspector'
import { writeFileSync } from 'node:fs'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config/load'
import { addSysadmin } from '../../src/model/sysadmin'
import { buildDeps, warmUp } from '../../src/runtime/deps'
import { openCatalogDb } from '../../src/runtime/node-db'
import { bulkFill } from '../lib/bulk-fill'

const N = 10000, TAIL = Number(process.env.TAIL ?? 1000)
const dir = mkdtempSync(join(os.tmpdir(), 'tail-'))
const dbUrl = `file:${join(dir, 'c.db')}`
{
  const o = await openCatalogDb(dbUrl)
  const admin = await addSysadmin(buildDeps(loadConfig({}), o.db), 'admin')
  await bulkFill(o.writeExecutor!, N, { adminId: admin.id, orgCount: 200, seed: 7 })
  const deps = buildDeps(loadConfig({}), o.db, { headProbe: o.headProbe, writeExecutor: o.writeExecutor, readExecutor: o.readExecutor })
  await warmUp(deps)
  await deps.search.writeSnapshot()
  const ids = (await deps.read(`SELECT id FROM package LIMIT ${TAIL}`)).map((r) => String(r.id))
  await o.writeExecutor!(ids.map((id) => ({ sql: `INSERT INTO change_log (entity_type, entity_id, op) VALUES ('package', ?, 'upsert')`, args: [id] })))
  o.close()
}
const o = await openCatalogDb(dbUrl)
const deps = buildDeps(loadConfig({}), o.db, { headProbe: o.headProbe, writeExecutor: o.writeExecutor, readExecutor: o.readExecutor })
const app = createApp(deps as never)
const session = new Session(); session.connect()
const post = (m: string, p?: object) => new Promise((r) => session.post(m, p ?? {}, r))
await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 200 }); await post('Profiler.start')
const t0 = performance.now()
await warmUp(deps)
const res = await app.request('/api/3/action/package_search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":"data"}' })
const body = await res.json() as any
console.log('first answer', (performance.now() - t0).toFixed(0), 'ms; count', body.result?.count)
session.post('Profiler.stop', (err, r: any) => { writeFileSync('/tmp/prof/tail.cpuprofile', JSON.stringify(r.profile)); o.close() })
