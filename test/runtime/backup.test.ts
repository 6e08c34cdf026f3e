// Issue 33, backups: `npm run admin -- backup DIR` copies the catalogue, the DataStore and the
// uploads while 32 clients keep writing; `restore` puts them into an empty data directory, and
// refuses a corrupted backup, one made by newer code, and a data directory that is not empty.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'libsql'
import { beforeAll, describe, expect, it } from 'vitest'
import { backup, BackupRefused, listBackups, restore, type DataPaths } from '../../src/runtime/node-backup'
import { DatabaseNewerThanCode, MIGRATIONS_DIR, openCatalogDb } from '../../src/runtime/node-db'
import { setup, type TestEnv } from '../helpers/setup'
import { appOn, caller } from '../helpers/data-dir-app'
import { tempDir } from '../helpers/temp-dirs'

let t: TestEnv
let admin: { apikey: string }
let paths: DataPaths
let backups = ''
/** Dataset names whose package_create was answered before the backup began. */
const acknowledged: string[] = []
let uploadId = ''
let tableId = ''
let copy: { path: string; manifest: Awaited<ReturnType<typeof backup>>['manifest'] }
let written = 0

const upload = async (packageId: string, body: string, name: string) => {
  const form = new FormData()
  form.set('package_id', packageId)
  form.set('upload', new File([body], name, { type: 'text/csv' }))
  const res = await t.app.request('/api/3/action/resource_create', { method: 'POST', headers: { authorization: admin.apikey }, body: form })
  return ((await res.json()) as { result: { id: string } }).result
}

beforeAll(async () => {
  t = await setup()
  admin = await t.make.sysadmin()
  const dir = dirname(t.file)
  paths = { catalogue: t.file, datastore: join(dir, 'datastore.db'), storage: join(dir, 'uploads') }
  backups = join(tempDir('ckan-edge-backups-'), 'backups')
  const org = await t.make.organization(admin)
  for (let i = 0; i < 20; i++) acknowledged.push((await t.make.dataset(admin, { owner_org: org.id, private: i % 2 === 0 })).name)
  const d = await t.make.dataset(admin, { owner_org: org.id })
  acknowledged.push(d.name)
  uploadId = (await upload(d.id, 'a,b\n1,2\n', 'numbers.csv')).id
  const table = await t.ok('datastore_create', { resource: { package_id: d.id, name: 'table' }, fields: [{ id: 'n', type: 'int' }], records: [{ n: 1 }, { n: 2 }, { n: 3 }] }, admin)
  tableId = table.resource_id
  // the backup is taken while 32 clients keep creating datasets and writing DataStore rows
  let stop = false
  const writer = Promise.all(
    Array.from({ length: 32 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        // in-process requests on the synchronous driver may never leave the microtask queue: give
        // timers and the child process's pipes their turn, as a server's sockets do
        await new Promise((r) => setImmediate(r))
        if (c % 4 === 0) await t.ok('datastore_upsert', { resource_id: tableId, method: 'insert', records: [{ n: 1000 + c * 100_000 + i }] }, admin)
        else await t.make.dataset(admin, { owner_org: org.id, notes: 'x'.repeat(2000) })
        written++
      }
    }),
  )
  await new Promise((r) => setTimeout(r, 50))
  // the backup in a process of its own, as an operator runs it beside the server
  const cli = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'backup', backups, '--keep', '2'], {
    env: { ...process.env, ...cliEnv(paths) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  cli.stdout.on('data', (b: Buffer) => (out += b.toString()))
  cli.stderr.on('data', (b: Buffer) => (out += b.toString()))
  const code = await new Promise<number | null>((resolve) => cli.on('exit', resolve))
  const before = written
  stop = true
  await writer
  expect(code, out).toBe(0)
  const path = (out.match(/^Backup (\S+):/m) ?? [])[1]!
  copy = { path, manifest: JSON.parse(readFileSync(join(path, 'manifest.json'), 'utf8')) }
  expect(before, 'datasets written while the backup ran').toBeGreaterThan(0)
}, 120_000)

const cliEnv = (p: DataPaths) => ({ DATABASE_URL: `file:${p.catalogue}`, SERVICE__STORAGE_PATH: p.storage })

describe('npm run admin -- backup', () => {
  it('copies both databases and the uploads while writes go on, with a manifest of checksums and positions', async () => {
    const m = copy.manifest
    expect(m.format).toBe(1)
    expect(m.migrations.applied).toBe(readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).length)
    expect(m.catalogue.bytes).toBeGreaterThan(0)
    expect(m.catalogue.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(m.datastore?.bytes).toBeGreaterThan(0)
    expect(m.files.count).toBe(1)
    const listed = readFileSync(join(copy.path, 'files.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(listed[0]).toMatchObject({ path: expect.stringContaining(uploadId), bytes: 8, sidecar: true })
    // the copy is consistent: its change log ends where the manifest says, and SQLite finds it whole
    const db = new Database(join(copy.path, 'catalogue.db'), { readonly: true })
    try {
      expect((db.prepare('PRAGMA integrity_check').get() as Record<string, string>).integrity_check).toBe('ok')
      expect(Number((db.prepare('SELECT MAX(seq) AS s FROM change_log').get() as { s: number }).s)).toBe(m.changeLogSeq)
    } finally {
      db.close()
    }
    expect(readdirSync(backups).filter((n) => n.startsWith('.'))).toEqual([])
  })

  it('keeps the newest N backups with --keep', async () => {
    const more = [await backup(paths, backups, { keep: 2 }), await backup(paths, backups, { keep: 2 })]
    const left = await listBackups(backups)
    expect(left).toEqual(more.map((b) => b.path))
    expect(existsSync(copy.path)).toBe(false)
    // the first is gone: back it up again for the restores below (the writes have stopped)
    copy = await backup(paths, backups)
  })
})

describe('npm run admin -- restore', () => {
  const restored = () => {
    const dir = tempDir('ckan-edge-restored-')
    return { catalogue: join(dir, 'catalogue.db'), datastore: join(dir, 'datastore.db'), storage: join(dir, 'uploads') }
  }

  it('restores into an empty data directory: every acknowledged write, the DataStore rows and the uploads', async () => {
    const to = restored()
    const manifest = await restore(copy.path, to)
    expect(manifest.changeLogSeq).toBe(copy.manifest.changeLogSeq)
    const { deps, app, close } = await appOn(`file:${to.catalogue}`, `file:${to.datastore}`, to.storage)
    try {
      const call = caller(app, admin.apikey)
      for (const name of acknowledged) expect((await call('package_show', { id: name })).success, name).toBe(true)
      const rows = await call('datastore_search', { resource_id: tableId, sort: '_id', limit: 3 })
      expect(rows.result.records.map((r: { n: number }) => r.n)).toEqual([1, 2, 3])
      const res = await call('resource_show', { id: uploadId })
      const file = await app.request(new URL(res.result.url).pathname, { headers: { authorization: admin.apikey } })
      expect(file.status).toBe(200)
      expect(await file.text()).toBe('a,b\n1,2\n')
      expect(file.headers.get('content-type')).toContain('text/csv')
      // the search index is rebuilt from what was restored: every dataset in it
      const found = await call('package_search', { q: '*:*', rows: 0, include_private: true })
      const [row] = await deps.read(`SELECT COUNT(*) AS n FROM package WHERE state = 'active'`)
      expect(found.result.count).toBe(Number(row!.n))
      expect(found.result.count).toBeGreaterThan(acknowledged.length)
    } finally {
      close()
    }
  })

  it('refuses a data directory that is not empty', async () => {
    const to = restored()
    mkdirSync(dirname(to.catalogue), { recursive: true })
    writeFileSync(to.catalogue, 'something')
    await expect(restore(copy.path, to)).rejects.toThrow(/is not empty/)
    expect(readFileSync(to.catalogue, 'utf8')).toBe('something')
  })

  it('refuses a corrupted backup, naming the file, and writes nothing', async () => {
    const bad = join(tempDir('ckan-edge-bad-backup-'), 'b')
    cpSync(copy.path, bad, { recursive: true })
    const db = join(bad, 'datastore.db')
    const bytes = readFileSync(db)
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff
    writeFileSync(db, bytes)
    const to = restored()
    await expect(restore(bad, to)).rejects.toThrow(/corrupted: datastore\.db does not match its checksum/)
    expect(existsSync(to.catalogue)).toBe(false)
    await expect(restore(join(bad, 'nowhere'), to)).rejects.toThrow(/is not a backup/)
  })

  it('refuses a backup made by newer code', async () => {
    const newer = join(tempDir('ckan-edge-newer-backup-'), 'b')
    cpSync(copy.path, newer, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(newer, 'manifest.json'), 'utf8'))
    manifest.migrations.applied += 1
    writeFileSync(join(newer, 'manifest.json'), JSON.stringify(manifest))
    const err = await restore(newer, restored()).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BackupRefused)
    expect(String(err)).toMatch(/made by newer code .*upgrade the code/)
  })

  it('runs as the admin CLI, with a usage line for bad arguments', () => {
    const env = { ...process.env, ...cliEnv(paths) }
    const cli = (...a: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...a], { env, encoding: 'utf8' })
    const made = cli('backup', backups, '--keep', '5')
    expect(made.status, made.stderr).toBe(0)
    expect(made.stdout).toMatch(/^Backup .*: catalogue [\d.]+ MB \(change log at \d+, migration level \d+\), DataStore [\d.]+ MB, 1 uploaded files/)
    expect(cli('backup', backups, '--keep', '0').status).toBe(2)
    const into = restored()
    const back = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'restore', (made.stdout.match(/^Backup (\S+):/) ?? [])[1]!], {
      env: { ...process.env, ...cliEnv(into) },
      encoding: 'utf8',
    })
    expect(back.status, back.stderr).toBe(0)
    expect(existsSync(into.catalogue) && existsSync(into.datastore) && existsSync(into.storage)).toBe(true)
    const again = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'restore', copy.path], {
      env: { ...process.env, ...cliEnv(into) },
      encoding: 'utf8',
    })
    expect(again.status).toBe(1)
    expect(again.stderr).toMatch(/is not empty: restore into an empty data directory/)
  }, 60_000)
})

describe('a database newer than the code', () => {
  it('is refused at start with the reason, before anything is migrated', async () => {
    const file = join(tempDir('ckan-edge-newer-db-'), 'catalogue.db')
    ;(await openCatalogDb(`file:${file}`)).close()
    const db = new Database(file)
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('from-the-future', Date.now() + 10 ** 12)
    db.close()
    const err = await openCatalogDb(`file:${file}`).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DatabaseNewerThanCode)
    expect(String(err)).toMatch(/migrated by a newer version of this software \(migration level \d+; this code knows \d+\)/)
    // as npm start says it: the message, no stack
    const started = spawnSync(process.execPath, ['--import', 'tsx', 'src/runtime/node.ts'], {
      env: { ...process.env, DATABASE_URL: `file:${file}`, PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(started.status).toBe(1)
    expect(started.stderr).toMatch(/migrated by a newer version/)
    expect(started.stderr).not.toMatch(/at .*node-db\.ts/)
  }, 60_000)
})

describe('a damaged database file', () => {
  it('stops the start with the file named and the restore command, for the catalogue and the DataStore', () => {
    for (const which of ['catalogue', 'datastore'] as const) {
      const dir = tempDir('ckan-edge-damaged-')
      writeFileSync(join(dir, `${which}.db`), Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)))
      const started = spawnSync(process.execPath, ['--import', 'tsx', 'src/runtime/node.ts'], {
        env: { ...process.env, DATABASE_URL: `file:${join(dir, 'catalogue.db')}`, PORT: '0' },
        encoding: 'utf8',
        timeout: 30_000,
      })
      expect(started.status, started.stderr).toBe(1)
      const name = which === 'catalogue' ? 'catalogue' : 'DataStore'
      expect(started.stderr).toContain(`The ${name} database ${join(dir, `${which}.db`)} cannot be used (SQLITE_NOTADB`)
      expect(started.stderr).toContain('npm run admin -- restore BACKUP_DIR')
      expect(started.stderr).not.toMatch(/\n\s+at /)
    }
  }, 60_000)
})
