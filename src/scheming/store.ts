// The scheming snapshot kept in the catalogue database (system_info), written by the Node side when
// it starts (or `npm run admin -- scheming push`), read by Workers isolates, which read no files.
import { eq } from 'drizzle-orm'
import { changeLog, searchSnapshots, systemInfo } from '../db/schema'
import type { ReadExecutor } from '../db/executor'
import type { Deps } from '../context'
import { changeRow } from '../model/changes'
import { registryFrom, type SchemingSnapshot } from './load'
import type { SchemaRegistry } from './registry'

/** Its system_info key (not an option name, so the runtime config overlay passes it by). */
export const SCHEMING_KEY = 'scheming:snapshot'

/**
 * Stores the snapshot (null: schemas turned off) when it differs from the stored one; true: it did.
 * The search index's stored snapshot goes with it: its documents were made under the old schemas
 * (which fields are text, which are lists), so the next process to load the index rebuilds it.
 */
export async function storeSchemingSnapshot(deps: Pick<Deps, 'db'>, snapshot: SchemingSnapshot | null): Promise<boolean> {
  const value = snapshot ? JSON.stringify(snapshot) : null
  const [row] = await deps.db.select().from(systemInfo).where(eq(systemInfo.key, SCHEMING_KEY)).limit(1)
  if ((row?.value ?? null) === value) return false
  await deps.db.batch([
    deps.db.insert(systemInfo).values({ key: SCHEMING_KEY, value }).onConflictDoUpdate({ target: systemInfo.key, set: { value } }),
    deps.db.insert(changeLog).values(changeRow('config', SCHEMING_KEY)),
    deps.db.delete(searchSnapshots),
  ])
  return true
}

/** The stored snapshot, or null (none stored, or schemas off). */
export async function readSchemingSnapshot(read: ReadExecutor): Promise<SchemingSnapshot | null> {
  const rows = await read('SELECT value FROM system_info WHERE key = ?', [SCHEMING_KEY])
  const v = rows[0]?.value
  return typeof v === 'string' ? (JSON.parse(v) as SchemingSnapshot) : null
}

/** The registry of the stored snapshot (undefined: none), for a process that reads no files. */
export async function storedSchemas(read: ReadExecutor, localeDefault: string): Promise<SchemaRegistry | undefined> {
  const snapshot = await readSchemingSnapshot(read)
  return snapshot ? registryFrom(snapshot, localeDefault) : undefined
}
