// Node: opens the catalogue database (embedded file or remote libSQL URL) and migrates it.
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClient, type Client } from '@libsql/client'
import { drizzle } from 'drizzle-orm/libsql'
import { migrate } from 'drizzle-orm/libsql/migrator'
import { schema } from '../db/schema'
import type { CatalogDb } from '../db/types'

export const MIGRATIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../drizzle')

export interface OpenedDb {
  db: CatalogDb
  client: Client
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
  return { db, client }
}
