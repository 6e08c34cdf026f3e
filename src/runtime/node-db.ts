// Node: opens the catalogue database (embedded file or remote libSQL URL) and migrates it.
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClient, type Client } from '@libsql/client'
import Database from 'libsql'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { schema } from '../db/schema'
import type { CatalogDb } from '../db/types'

export const MIGRATIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../drizzle')

export interface OpenedDb {
  db: CatalogDb
  client: Client
  /** Newest change-log seq through a synchronous prepared statement (embedded files only). */
  headProbe?: () => number
  close(): void
}

export async function openCatalogDb(url: string, authToken?: string): Promise<OpenedDb> {
  if (url.startsWith('file:')) {
    const path = url.slice(5).split('?')[0]!
    if (path && path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true })
  }
  const client = createClient({ url, authToken, concurrency: 1 })
  if (url.startsWith('file:')) {
    // WAL + NORMAL: commits without an fsync each; the single connection keeps these in force.
    await client.execute('PRAGMA journal_mode=WAL')
    await client.execute('PRAGMA synchronous=NORMAL')
    await client.execute('PRAGMA busy_timeout=5000')
  }
  const db = drizzle(client, { schema })
  await migrate(db, { migrationsFolder: MIGRATIONS_DIR })
  let headProbe: (() => number) | undefined
  let probeDb: Database.Database | undefined
  if (url.startsWith('file:') && !url.includes(':memory:')) {
    probeDb = new Database(url.slice(5).split('?')[0]!)
    const stmt = probeDb.prepare('SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1').raw(true)
    headProbe = () => {
      const row = stmt.get() as [number] | undefined
      return row ? Number(row[0]) : 0
    }
  }
  return {
    db,
    client,
    headProbe,
    close() {
      probeDb?.close()
      client.close()
    },
  }
}
