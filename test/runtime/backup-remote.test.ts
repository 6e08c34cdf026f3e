// Issue 33: `npm run admin -- backup` against libSQL servers (sqld here, Turso alike): the catalogue
// and the DataStore are streamed inside one read transaction each into the same backup format,
// which restores into files that the app serves (full-text search of a DataStore table included).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restore } from '../../src/runtime/node-backup'
import { openCatalogDb } from '../../src/runtime/node-db'
import { addSysadmin } from '../../src/model/sysadmin'
// @ts-expect-error: plain ESM script without types
import { startSqld } from '../../scripts/sqld.mjs'
import { appOn, caller } from '../helpers/data-dir-app'
import { tempDir } from '../helpers/temp-dirs'

type Sqld = { url: string; stop(): Promise<void> }
let catalogue: Sqld
let datastoreServer: Sqld
const dir = tempDir('ckan-edge-remote-backup-')

let key = ''
let tableId = ''
const names: string[] = []

beforeAll(async () => {
  ;[catalogue, datastoreServer] = (await Promise.all([startSqld({ dbPath: join(dir, 'cat.sqld') }), startSqld({ dbPath: join(dir, 'ds.sqld') })])) as [Sqld, Sqld]
  const { deps, app, close } = await appOn(catalogue.url, datastoreServer.url, join(dir, 'uploads'))
  try {
    key = (await addSysadmin(deps, 'admin')).apikey!
    const call = caller(app, key)
    for (let i = 0; i < 2500; i += 500) {
      // enough datasets that tables are read in several pages
      await Promise.all(Array.from({ length: 500 }, (_, k) => call('package_create', { name: `remote-${i + k}`, title: `Remote dataset ${i + k}`, tags: [{ name: `t${(i + k) % 7}` }] })))
    }
    for (let i = 0; i < 2500; i++) names.push(`remote-${i}`)
    await call('package_delete', { id: 'remote-7' })
    const table = await call('datastore_create', {
      resource: { package_id: 'remote-1', name: 'readings' },
      fields: [{ id: 'place', type: 'text' }, { id: 'level', type: 'float' }],
      records: Array.from({ length: 5000 }, (_, i) => ({ place: i % 2 ? `river bend ${i}` : `lake shore ${i}`, level: i / 10 })),
    })
    expect(table.success, JSON.stringify(table.error)).toBe(true)
    tableId = table.result.resource_id
  } finally {
    close()
  }
}, 180_000)

afterAll(async () => {
  await catalogue?.stop()
  await datastoreServer?.stop()
})

describe('npm run admin -- backup of libSQL servers', () => {
  it('streams both databases into a backup that restores into files the app serves', async () => {
    const backups = join(dir, 'backups')
    const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'backup', backups], {
      env: { ...process.env, DATABASE_URL: catalogue.url, DATASTORE_URL: datastoreServer.url, SERVICE__STORAGE_PATH: join(dir, 'uploads') },
      encoding: 'utf8',
      timeout: 120_000,
    })
    expect(made.status, made.stderr).toBe(0)
    const path = (made.stdout.match(/^Backup (\S+):/m) ?? [])[1]!
    const to = { catalogue: join(dir, 'restored', 'catalogue.db'), datastore: join(dir, 'restored', 'datastore.db'), storage: join(dir, 'restored', 'uploads') }
    const manifest = await restore(path, to)
    // the copy's change log and AUTOINCREMENT counters are the server's
    const remote = await openCatalogDb(catalogue.url)
    const [head] = (await remote.client.execute('SELECT MAX(seq) AS s FROM change_log')).rows
    const [seqRow] = (await remote.client.execute(`SELECT seq FROM sqlite_sequence WHERE name = 'change_log'`)).rows
    remote.close()
    expect(manifest.changeLogSeq).toBe(Number(head!.s))
    const local = new Database(to.catalogue, { readonly: true })
    expect(Number((local.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'change_log'`).get() as { seq: number }).seq)).toBe(Number(seqRow!.seq))
    local.close()

    const { app, close } = await appOn(`file:${to.catalogue}`, `file:${to.datastore}`, to.storage)
    try {
      const call = caller(app, key)
      expect((await call('package_show', { id: 'remote-2499' })).result.title).toBe('Remote dataset 2499')
      expect((await call('package_show', { id: 'remote-7' })).result.state).toBe('deleted')
      expect((await call('package_search', { q: '*:*', rows: 0 })).result.count).toBe(names.length - 1)
      expect((await call('package_search', { fq: 'tags:t3', rows: 0 })).result.count).toBe(names.filter((n, i) => i % 7 === 3 && n !== 'remote-7').length)
      const all = await call('datastore_search', { resource_id: tableId, limit: 0 })
      expect(all.result.total).toBe(5000)
      // the full-text index came along
      const found = await call('datastore_search', { resource_id: tableId, q: 'river', limit: 0 })
      expect(found.success, JSON.stringify(found.error)).toBe(true)
      expect(found.result.total).toBe(2500)
      // and the copy takes writes
      expect((await call('datastore_upsert', { resource_id: tableId, method: 'insert', records: [{ place: 'river mouth', level: 1 }] })).success).toBe(true)
      expect((await call('package_create', { name: 'after-restore' })).success).toBe(true)
    } finally {
      close()
    }
    for (const f of [to.catalogue, to.datastore]) {
      const db = new Database(f, { readonly: true })
      expect((db.prepare('PRAGMA integrity_check').get() as Record<string, string>).integrity_check).toBe('ok')
      db.close()
    }
  }, 180_000)
})
