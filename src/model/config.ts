// Runtime-editable options stored in the database (config_option_update) and their overlay.
import { systemInfo } from '../db/schema'
import type { CatalogDb } from '../db/types'
import type { Config } from '../config/load'

export async function loadRuntimeConfig(db: CatalogDb, config: Config) {
  const rows = await db.select().from(systemInfo)
  config.setOverlay(Object.fromEntries(rows.map((r) => [r.key, r.value])))
}
