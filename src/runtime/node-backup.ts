// Node: online backups of a catalogue on files, and restores into an empty data directory.
// The databases are copied by SQLite itself (VACUUM INTO, one consistent read transaction: the
// server keeps serving and writing meanwhile), never as files; the uploaded files are copied one
// by one, each as one version (blobs are replaced by atomic renames). A manifest records what
// was copied: sizes, SHA-256 checksums, the migration level and the change-log position.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createReadStream, existsSync } from 'node:fs'
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import Database from 'libsql'
import { createClient } from '@libsql/client'
import type { BackupPort } from '../context'
import { codeMigrationLevel, HAS_MIGRATIONS_SQL, MIGRATION_LEVEL_SQL, MIGRATIONS_DIR, migrationLevelOf, newerThanCode, type MigrationLevel } from './node-db'

/** The version of the directory format (docs/backups-and-upgrades.md). */
export const BACKUP_FORMAT = 1
const MANIFEST = 'manifest.json'
const FILE_LIST = 'files.jsonl'

/** A backup or restore that is not done, with the reason for the operator. */
export class BackupRefused extends Error {}

export interface DatabaseEntry {
  /** The file's name inside the backup. */
  file: string
  bytes: number
  sha256: string
}

export interface BackupManifest {
  format: number
  created: string
  /** The catalogue's migration level: migrations applied, and the newest one's timestamp. */
  migrations: MigrationLevel
  /** The change log's newest seq in the copy. */
  changeLogSeq: number
  catalogue: DatabaseEntry
  datastore: DatabaseEntry | null
  /** The uploaded files (listed with their checksums in files.jsonl). */
  files: { count: number; bytes: number; list: DatabaseEntry }
}

/** One uploaded file in files.jsonl. */
interface FileEntry {
  path: string
  bytes: number
  sha256: string
  /** Its content-type sidecar was this version's (kept valid on restore). */
  sidecar?: boolean
}

/** Where a catalogue on files lives. */
export interface DataPaths {
  catalogue: string
  /** The DataStore's file (none: the DataStore is elsewhere or not used). */
  datastore?: string
  /** service.storage_path. */
  storage: string
}

/** A database on a libSQL server (Turso, sqld), read by streaming. */
export interface RemoteDb {
  url: string
  authToken?: string
}

/** What a backup reads: each database a file or a libSQL server, and the uploads directory. */
export interface BackupSources {
  catalogue: string | RemoteDb
  datastore?: string | RemoteDb
  storage: string
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** A database file's migration level (drizzle's table), 0 when it has none. */
function fileMigrationLevel(db: Database.Database): MigrationLevel {
  if (!db.prepare(HAS_MIGRATIONS_SQL).get()) return migrationLevelOf(undefined)
  return migrationLevelOf(db.prepare(MIGRATION_LEVEL_SQL).get() as Record<string, unknown>)
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`

/** A consistent copy of the database at `from` in `to` (which must not exist). */
function vacuumInto(from: string, to: string) {
  const db = new Database(from, { readonly: true })
  try {
    db.exec('PRAGMA busy_timeout = 10000')
    db.exec(`VACUUM INTO ${sqlString(to)}`)
  } finally {
    db.close()
  }
}

/** A consistent copy of a database file (VACUUM INTO) or of a libSQL server's database (streamed). */
async function copyDatabase(from: string | RemoteDb, to: string) {
  if (typeof from === 'string') vacuumInto(from, to)
  else await streamInto(from, to)
}

/** Rows read per query when a remote database is streamed. */
const STREAM_PAGE = 2000

/**
 * Copies a libSQL server's database into a new file at `to`, inside one read transaction (sqld
 * and Turso give it snapshot isolation, and keep it open while queries keep coming): the schema
 * (virtual tables first, which make their shadow tables), every table's rows by rowid pages with
 * their rowids, AUTOINCREMENT counters, then indexes and triggers.
 */
async function streamInto(from: RemoteDb, to: string) {
  const client = createClient({ url: from.url, authToken: from.authToken })
  const local = new Database(to)
  try {
    const tx = await client.transaction('read')
    try {
      local.exec('PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN')
      const objects = (
        await tx.execute(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid`)
      ).rows.map((r) => ({ type: String(r.type), name: String(r.name), sql: String(r.sql) }))
      const isVirtual = (o: { sql: string }) => /^CREATE\s+VIRTUAL\s+TABLE/i.test(o.sql)
      for (const o of objects.filter((o) => o.type === 'table' && isVirtual(o))) local.exec(o.sql)
      const exists = (name: string) => local.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(name) !== undefined
      const tables = objects.filter((o) => o.type === 'table' && !isVirtual(o))
      for (const t of tables) {
        if (exists(t.name)) local.prepare(`DELETE FROM "${t.name.replace(/"/g, '""')}"`).run()
        else local.exec(t.sql)
      }
      for (const t of tables) {
        const q = `"${t.name.replace(/"/g, '""')}"`
        const withoutRowid = /WITHOUT\s+ROWID\s*$/i.test(t.sql)
        let insert: Database.Statement | null = null
        let columns: string[] = []
        for (let after: unknown = null, offset = 0; ; ) {
          const page = withoutRowid
            ? await tx.execute({ sql: `SELECT * FROM ${q} LIMIT ${STREAM_PAGE} OFFSET ${offset}`, args: [] })
            : await tx.execute({
                sql: `SELECT rowid AS "__backup_rowid", * FROM ${q} ${after === null ? '' : 'WHERE rowid > ?'} ORDER BY rowid LIMIT ${STREAM_PAGE}`,
                args: after === null ? [] : [after as number],
              })
          if (!page.rows.length) break
          if (!insert) {
            columns = page.columns.filter((c) => c !== '__backup_rowid')
            const names = [...(withoutRowid ? [] : ['rowid']), ...columns]
            insert = local.prepare(`INSERT INTO ${q} (${names.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
          }
          for (const row of page.rows) {
            const values = columns.map((c) => localValue(row[c]))
            insert.run(withoutRowid ? values : [localValue(row.__backup_rowid), ...values])
          }
          offset += page.rows.length
          after = page.rows[page.rows.length - 1]!.__backup_rowid
          if (page.rows.length < STREAM_PAGE) break
        }
      }
      const seq = await tx.execute(`SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'`)
      if (seq.rows.length) {
        local.prepare('DELETE FROM sqlite_sequence').run()
        for (const r of (await tx.execute('SELECT name, seq FROM sqlite_sequence')).rows)
          local.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(String(r.name), localValue(r.seq))
      }
      for (const o of objects.filter((o) => (o.type === 'index' || o.type === 'trigger') && !exists(o.name))) local.exec(o.sql)
      local.exec('COMMIT')
    } finally {
      tx.close()
    }
  } catch (e) {
    if (local.inTransaction) local.exec('ROLLBACK')
    throw e
  } finally {
    local.close()
    client.close()
  }
}

/** A value from the libSQL client as the synchronous driver binds it. */
const localValue = (v: unknown) => (v instanceof ArrayBuffer ? Buffer.from(v) : v)

function integrity(path: string): string {
  const db = new Database(path, { readonly: true })
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as Record<string, unknown>[]
    return rows.map((r) => String(Object.values(r)[0])).join('; ')
  } finally {
    db.close()
  }
}

/** Every regular file under `root` but the hidden ones (sidecars, temp files), as relative paths. */
async function walk(root: string, under = ''): Promise<string[]> {
  let entries
  try {
    entries = await readdir(join(root, under), { withFileTypes: true })
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return []
    throw e
  }
  const out: string[] = []
  for (const e of entries) {
    if (e.name.startsWith('.')) continue
    const rel = under ? `${under}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...(await walk(root, rel)))
    else if (e.isFile()) out.push(rel)
  }
  return out.sort()
}

const sidecarOf = (path: string) => join(dirname(path), `.${basename(path)}.meta.json`)

/**
 * Copies one uploaded file (as the version open when the copy began) and its sidecar when the
 * sidecar describes that version. Null when the file went away meanwhile.
 */
async function copyUpload(fromRoot: string, toRoot: string, rel: string): Promise<FileEntry | null> {
  const src = join(fromRoot, ...rel.split('/'))
  const dst = join(toRoot, ...rel.split('/'))
  let fh
  try {
    fh = await open(src, 'r')
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return null
    throw e
  }
  try {
    const st = await fh.stat({ bigint: true })
    await mkdir(dirname(dst), { recursive: true })
    const out = await open(dst, 'wx')
    const hash = createHash('sha256')
    let bytes = 0
    try {
      const buf = Buffer.alloc(1 << 20)
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, null)
        if (!bytesRead) break
        hash.update(buf.subarray(0, bytesRead))
        await out.write(buf, 0, bytesRead)
        bytes += bytesRead
      }
      await out.sync()
    } finally {
      await out.close()
    }
    const entry: FileEntry = { path: rel, bytes, sha256: hash.digest('hex') }
    try {
      const sidecar = JSON.parse(await readFile(sidecarOf(src), 'utf8')) as { mtimeNs?: string }
      if (sidecar.mtimeNs === String(st.mtimeNs)) {
        await writeFile(sidecarOf(dst), JSON.stringify(sidecar))
        entry.sidecar = true
      }
    } catch {
      // no sidecar (or not readable): the file has no content type of its own
    }
    return entry
  } finally {
    await fh.close()
  }
}

/** `YYYYMMDDTHHMMSSZ` of now: backup directories sort by their names. */
const stampOf = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')

/**
 * Backs the catalogue up into a new directory under `dir` (named by the time) and returns it;
 * with `keep`, removes the oldest backups under `dir` past that many.
 */
export async function backup(paths: BackupSources, dir: string, opts: { keep?: number; now?: Date } = {}): Promise<{ path: string; manifest: BackupManifest }> {
  if (typeof paths.catalogue === 'string' && !existsSync(paths.catalogue)) throw new BackupRefused(`No catalogue database at ${paths.catalogue}`)
  const now = opts.now ?? new Date()
  await mkdir(dir, { recursive: true })
  let name = stampOf(now)
  for (let i = 2; existsSync(join(dir, name)) || existsSync(join(dir, `.${name}.partial`)); i++) name = `${stampOf(now)}-${i}`
  // built under a hidden name and renamed when complete: a backup directory is whole or absent
  const partial = join(dir, `.${name}.partial`)
  await mkdir(partial)
  try {
    const catalogueCopy = join(partial, 'catalogue.db')
    await copyDatabase(paths.catalogue, catalogueCopy)
    const copy = new Database(catalogueCopy, { readonly: true })
    let migrations: BackupManifest['migrations']
    let changeLogSeq: number
    try {
      migrations = fileMigrationLevel(copy)
      const row = copy.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM change_log').get() as { seq: number }
      changeLogSeq = Number(row.seq)
    } finally {
      copy.close()
    }
    const entry = async (file: string): Promise<DatabaseEntry> => ({
      file,
      bytes: (await stat(join(partial, file))).size,
      sha256: await sha256File(join(partial, file)),
    })
    let datastore: DatabaseEntry | null = null
    if (paths.datastore && (typeof paths.datastore !== 'string' || existsSync(paths.datastore))) {
      await copyDatabase(paths.datastore, join(partial, 'datastore.db'))
      datastore = await entry('datastore.db')
    }
    // the uploads after the databases: every file the copied catalogue names was written before it
    const storage = resolve(paths.storage)
    const files: FileEntry[] = []
    for (const rel of await walk(storage)) {
      const copied = await copyUpload(storage, join(partial, 'files'), rel)
      if (copied) files.push(copied)
    }
    await writeFile(join(partial, FILE_LIST), files.map((f) => JSON.stringify(f) + '\n').join(''))
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      created: now.toISOString(),
      migrations,
      changeLogSeq,
      catalogue: await entry('catalogue.db'),
      datastore,
      files: { count: files.length, bytes: files.reduce((n, f) => n + f.bytes, 0), list: await entry(FILE_LIST) },
    }
    await writeFile(join(partial, MANIFEST), JSON.stringify(manifest, null, 2) + '\n')
    const path = join(dir, name)
    await rename(partial, path)
    if (opts.keep !== undefined) await rotate(dir, opts.keep)
    return { path, manifest }
  } catch (e) {
    await rm(partial, { recursive: true, force: true })
    throw e
  }
}

/** The backups under `dir`, oldest first (directories holding a manifest). */
export async function listBackups(dir: string): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => !n.startsWith('.') && existsSync(join(dir, n, MANIFEST)))
    .sort()
    .map((n) => join(dir, n))
}

/** Removes the oldest backups under `dir` until `keep` are left. */
export async function rotate(dir: string, keep: number): Promise<string[]> {
  const all = await listBackups(dir)
  const gone = all.slice(0, Math.max(0, all.length - Math.max(1, keep)))
  for (const path of gone) await rm(path, { recursive: true, force: true })
  return gone
}

/** Reads and checks a backup: every checksum, the format, the migration level against this code. */
export async function verifyBackup(from: string, migrationsDir = MIGRATIONS_DIR): Promise<{ manifest: BackupManifest; files: FileEntry[] }> {
  let manifest: BackupManifest
  try {
    manifest = JSON.parse(await readFile(join(from, MANIFEST), 'utf8')) as BackupManifest
  } catch {
    throw new BackupRefused(`${from} is not a backup: no readable ${MANIFEST}`)
  }
  if (manifest.format !== BACKUP_FORMAT)
    throw new BackupRefused(`${from} is a backup of format ${manifest.format}; this code reads format ${BACKUP_FORMAT}`)
  const code = codeMigrationLevel(migrationsDir)
  if (newerThanCode(manifest.migrations, code))
    throw new BackupRefused(
      `${from} was made by newer code (database at migration level ${manifest.migrations.applied}; this code knows ${code.applied}): ` +
        'upgrade the code, then restore',
    )
  const check = async (e: DatabaseEntry, path: string) => {
    let got: string
    try {
      got = await sha256File(path)
    } catch {
      throw new BackupRefused(`${from} is incomplete: ${relative(from, path)} is missing`)
    }
    if (got !== e.sha256) throw new BackupRefused(`${from} is corrupted: ${relative(from, path)} does not match its checksum`)
  }
  await check(manifest.catalogue, join(from, manifest.catalogue.file))
  if (manifest.datastore) await check(manifest.datastore, join(from, manifest.datastore.file))
  await check(manifest.files.list, join(from, manifest.files.list.file))
  const files = (await readFile(join(from, manifest.files.list.file), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as FileEntry)
  for (const f of files) {
    if (f.path.split('/').some((part) => part === '..' || part === '' || part.startsWith('.')))
      throw new BackupRefused(`${from} is corrupted: ${FILE_LIST} names ${JSON.stringify(f.path)}`)
    await check({ file: f.path, bytes: f.bytes, sha256: f.sha256 }, join(from, 'files', ...f.path.split('/')))
  }
  return { manifest, files }
}

/** True when nothing is at `path` (or an empty directory). */
async function vacant(path: string): Promise<boolean> {
  try {
    const st = await stat(path)
    return st.isDirectory() ? (await readdir(path)).length === 0 : false
  } catch {
    return true
  }
}

/**
 * Restores the backup at `from` into `paths`, which must be vacant (no catalogue, no DataStore
 * file, no uploads). Everything is checked first; the databases are checked again (SQLite's
 * integrity check) before they are moved into place.
 */
export async function restore(from: string, paths: DataPaths, migrationsDir = MIGRATIONS_DIR): Promise<BackupManifest> {
  const { manifest, files } = await verifyBackup(from, migrationsDir)
  for (const p of [paths.catalogue, paths.datastore, paths.storage]) {
    if (p && !(await vacant(p)))
      throw new BackupRefused(`${p} is not empty: restore into an empty data directory (move the current one away first)`)
  }
  if (manifest.datastore && !paths.datastore)
    throw new BackupRefused('The backup holds a DataStore database but this catalogue has no DataStore file (DATASTORE_URL is not a file)')
  const place = async (entry: DatabaseEntry, target: string) => {
    await mkdir(dirname(target), { recursive: true })
    const temp = join(dirname(target), `.${basename(target)}.restoring`)
    await copyFile(join(from, entry.file), temp)
    const check = integrity(temp)
    if (check !== 'ok') {
      await rm(temp, { force: true })
      throw new BackupRefused(`${entry.file} in ${from} fails SQLite's integrity check: ${check}`)
    }
    return temp
  }
  const placed: [string, string][] = [[await place(manifest.catalogue, paths.catalogue), paths.catalogue]]
  if (manifest.datastore) placed.push([await place(manifest.datastore, paths.datastore!), paths.datastore!])
  const storage = resolve(paths.storage)
  for (const f of files) {
    const dst = join(storage, ...f.path.split('/'))
    if (!dst.startsWith(storage + sep)) throw new BackupRefused(`${FILE_LIST} names a path outside the storage: ${f.path}`)
    await mkdir(dirname(dst), { recursive: true })
    const src = join(from, 'files', ...f.path.split('/'))
    await copyFile(src, dst)
    if (f.sidecar) {
      // the sidecar names its blob's version by its mtime: the restored file's
      const sidecar = JSON.parse(await readFile(sidecarOf(src), 'utf8')) as Record<string, unknown>
      const st = await stat(dst, { bigint: true })
      await writeFile(sidecarOf(dst), JSON.stringify({ ...sidecar, mtimeNs: String(st.mtimeNs) }))
    }
  }
  // the databases last, so that a catalogue is never there without its files
  for (const [temp, target] of placed) await rename(temp, target)
  return manifest
}

/**
 * Scheduled backups for the Node server's job runners: each runs `npm run admin -- backup` in a
 * child process (the copy never holds the server's event loop), with the server's environment,
 * into service.backup.dir with service.backup.keep.
 */
export function nodeBackupPort(config: { str(k: string): string; int(k: string): number }, env: NodeJS.ProcessEnv = process.env): BackupPort {
  const root = dirname(MIGRATIONS_DIR)
  return {
    run: () =>
      new Promise((resolveRun, reject) => {
        const dir = resolve(config.str('service.backup.dir'))
        const keep = String(Math.max(1, config.int('service.backup.keep')))
        const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'admin.ts'), 'backup', dir, '--keep', keep], {
          cwd: root,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        let err = ''
        child.stdout.on('data', (b: Buffer) => (out += b.toString()))
        child.stderr.on('data', (b: Buffer) => (err += b.toString()))
        child.on('error', reject)
        child.on('exit', (code) => {
          const path = /^Backup (\S+):/m.exec(out)?.[1]
          if (code === 0 && path) resolveRun({ path, summary: out.trim() })
          else reject(new Error(`backup failed (exit ${code}): ${(err || out).trim().slice(-2000)}`))
        })
      }),
  }
}
