// Database handle types shared by both runtimes (type-only driver imports).
import type { Client } from '@libsql/client'
import type { LibSQLDatabase } from 'drizzle-orm/libsql'
import type { schema } from './schema'

export type CatalogDb = LibSQLDatabase<typeof schema> & { $client: Client }
