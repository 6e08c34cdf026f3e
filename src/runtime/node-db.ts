// Node: opens the catalogue database (embedded file or remote libSQL URL) and migrates it.
import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClient, type Client } from '@libsql/client'
import Database from 'libsql'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { schema } from '../db/schema'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { useDeflateCodec } from '../lib/packed-text'
import type { CatalogDb } from '../db/types'
import type { ReadExecutor, WriteExecutor } from '../db/executor'

// packed text (activity dicts) through node:zlib: the same raw DEFLATE, native
useDeflateCodec({
  deflate: (bytes) => deflateRawSync(bytes, { level: 6 }),
  inflate: (bytes) => inflateRawSync(bytes),
})

/**
 * The WAL file is cut back to this size after a checkpoint (SQLite keeps it at its largest
 * otherwise: 250 MB beside a 100,000-dataset catalogue).
 */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024

/** drizzle/ of the project: two levels above this module (src/runtime or dist/runtime), or $MIGRATIONS_DIR. */
export const MIGRATIONS_DIR =
  process.env.MIGRATIONS_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../drizzle')

/** How far a database (or this code) is migrated: how many migrations, the newest one's timestamp. */
export interface MigrationLevel {
  applied: number
  newest: number
}

/** What this code's migrations reach. */
export function codeMigrationLevel(dir = MIGRATIONS_DIR): MigrationLevel {
  const journal = JSON.parse(readFileSync(join(dir, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] }
  return { applied: journal.entries.length, newest: Math.max(0, ...journal.entries.map((e) => e.when)) }
}

/** Whether drizzle's table is there (a database never migrated has none). */
export const HAS_MIGRATIONS_SQL = `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`
/** A database's level from drizzle's table: one row of `n` and `newest` (see migrationLevelOf). */
export const MIGRATION_LEVEL_SQL = 'SELECT COUNT(*) AS n, MAX(created_at) AS newest FROM __drizzle_migrations'
export const migrationLevelOf = (row: Record<string, unknown> | undefined): MigrationLevel => ({
  applied: Number(row?.n ?? 0),
  newest: Number(row?.newest ?? 0),
})

/** Whether `level` has migrations this code does not know (drizzle would skip them silently). */
export const newerThanCode = (level: MigrationLevel, code = codeMigrationLevel()) =>
  level.applied > code.applied || level.newest > code.newest

/** The database was migrated by newer code than this: starting would misread it. */
export class DatabaseNewerThanCode extends Error {}

/** A database file that cannot be opened or read as one (damaged, not SQLite, no access). */
export class DatabaseUnreadable extends Error {}

/** SQLite's and the file system's answers that mean the file itself is the problem. */
const UNREADABLE = /^(SQLITE_NOTADB|SQLITE_CORRUPT|SQLITE_CANTOPEN|SQLITE_IOERR|SQLITE_PERM|EACCES|EPERM|EISDIR)/

/**
 * `e` as a DatabaseUnreadable naming the file and the way back (a restore), when it says the
 * file cannot be used; null for any other error.
 */
export function unreadableDatabase(e: unknown, what: string, url: string): DatabaseUnreadable | null {
  const code = String((e as { code?: unknown })?.code ?? '')
  if (!url.startsWith('file:') || !UNREADABLE.test(code)) return null
  const path = resolve(url.slice(5).split('?')[0]!)
  return new DatabaseUnreadable(
    `The ${what} database ${path} cannot be used (${code}: ${(e as Error).message.replace(/^SQLITE_\w+: /, '')}). ` +
      'If it is damaged, move the data directory away and restore the last backup into an empty one: ' +
      'npm run admin -- restore BACKUP_DIR (docs/backups-and-upgrades.md).',
  )
}

/** Refuses a database whose migrations this code does not know (drizzle would skip them silently). */
async function refuseNewer(client: Client, url: string) {
  if (!(await client.execute(HAS_MIGRATIONS_SQL)).rows.length) return
  const level = migrationLevelOf((await client.execute(MIGRATION_LEVEL_SQL)).rows[0])
  const code = codeMigrationLevel()
  if (newerThanCode(level, code))
    throw new DatabaseNewerThanCode(
      `${url.split('?')[0]} was migrated by a newer version of this software (migration level ${level.applied}; this code knows ${code.applied}). ` +
        'Run that version, or restore a backup made by this one into an empty data directory (npm run admin -- restore BACKUP_DIR).',
    )
}

export interface OpenedDb {
  db: CatalogDb
  client: Client
  /** Newest change-log seq through a synchronous prepared statement (embedded files only). */
  headProbe?: () => number
  /** Write transactions on a synchronous connection with cached prepared statements (files only). */
  writeExecutor?: WriteExecutor
  /** Reads on that connection, statements cached likewise (files only). */
  readExecutor?: ReadExecutor
  close(): void
}

/** Prepared statements of one connection, kept per SQL text. */
export function statementCache(conn: Database.Database) {
  const cache = new Map<string, Database.Statement>()
  return (sql: string) => {
    let st = cache.get(sql)
    if (!st) {
      if (cache.size > 500) cache.clear()
      cache.set(sql, (st = conn.prepare(sql)))
    }
    return st
  }
}

function syncReader(conn: Database.Database): ReadExecutor {
  const prepare = statementCache(conn)
  const read: ReadExecutor = async (sql, args = []) => prepare(sql).all(args) as Record<string, unknown>[]
  read.many = async (stmts) => {
    // synchronous from BEGIN to COMMIT: nothing of this process runs in between, and the read
    // transaction keeps other processes' commits out of it
    const outer = conn.inTransaction
    if (!outer) conn.exec('BEGIN')
    try {
      return stmts.map((s) => prepare(s.sql).all(s.args) as Record<string, unknown>[])
    } finally {
      if (!outer) conn.exec('COMMIT')
    }
  }
  return read
}

/** One transaction per call on a synchronous connection; statements prepared once per SQL text. */
export function syncExecutor(conn: Database.Database): WriteExecutor {
  const prepare = statementCache(conn)
  return async (stmts) => {
    conn.exec('BEGIN IMMEDIATE')
    try {
      for (const s of stmts) prepare(s.sql).run(s.args)
      conn.exec('COMMIT')
    } catch (e) {
      if (conn.inTransaction) conn.exec('ROLLBACK')
      throw e
    }
  }
}

export async function openCatalogDb(url: string, authToken?: string): Promise<OpenedDb> {
  if (url.startsWith('file:')) {
    const path = url.slice(5).split('?')[0]!
    if (path && path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true })
  }
  const client = createClient({ url, authToken, concurrency: 1 })
  try {
    return await openWith(client, url)
  } catch (e) {
    client.close()
    throw unreadableDatabase(e, 'catalogue', url) ?? e
  }
}

async function openWith(client: Client, url: string): Promise<OpenedDb> {
  if (url.startsWith('file:')) {
    // WAL + NORMAL: commits without an fsync each; the single connection keeps these in force.
    await client.execute('PRAGMA journal_mode=WAL')
    await client.execute('PRAGMA synchronous=NORMAL')
    await client.execute('PRAGMA busy_timeout=5000')
    await client.execute(`PRAGMA journal_size_limit=${WAL_LIMIT_BYTES}`)
  }
  const db = drizzle(client, { schema })
  await refuseNewer(client, url)
  await migrate(db, { migrationsFolder: MIGRATIONS_DIR })
  let headProbe: (() => number) | undefined
  let writeExecutor: WriteExecutor | undefined
  let readExecutor: ReadExecutor | undefined
  let syncDb: Database.Database | undefined
  if (url.startsWith('file:') && !url.includes(':memory:')) {
    // The synchronous driver is 3-6x cheaper per statement and keeps prepared statements.
    // Its page cache is 8 MiB (was 64): it held every page the search snapshot's load read (17 MB
    // at 10,000 datasets) and every dataset row read since; the OS's file cache serves the rest.
    syncDb = new Database(url.slice(5).split('?')[0]!)
    syncDb.exec(
      'PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000; PRAGMA cache_size=-8192; PRAGMA wal_autocheckpoint=8000; ' +
        `PRAGMA journal_size_limit=${WAL_LIMIT_BYTES}`,
    )
    const head = syncDb.prepare('SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1').raw(true)
    headProbe = () => {
      const row = head.get() as [number] | undefined
      return row ? Number(row[0]) : 0
    }
    writeExecutor = syncExecutor(syncDb)
    readExecutor = syncReader(syncDb)
  }
  return {
    db,
    client,
    headProbe,
    writeExecutor,
    readExecutor,
    close() {
      syncDb?.close()
      client.close()
    },
  }
}
