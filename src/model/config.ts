// Runtime-editable options stored in the database (config_option_update) and their overlay.
import { systemInfo, changeLog } from '../db/schema'
import type { ReadExecutor } from '../db/executor'
import type { Config } from '../config/load'
import { OPTIONS, OPTIONS_BY_KEY, canonicalKey, wireKey, type OptionDef } from '../config/options'
import type { ActionContext } from '../context'
import { changeRow } from './changes'

/** Overlays the options stored by config_option_update on `config`. */
export async function loadRuntimeConfig(read: ReadExecutor, config: Config) {
  const rows = await read('SELECT key, value FROM system_info')
  config.setOverlay(Object.fromEntries(rows.map((r) => [String(r.key), r.value === null ? null : String(r.value)])))
}

// ckan: config_option_list reports the editable keys in this order
const CKAN_ORDER = [
  'service.site_title',
  'service.site_logo',
  'service.site_url',
  'service.site_description',
  'service.site_about',
  'service.site_intro_text',
  'service.site_custom_css',
  'service.theme',
  'service.homepage_style',
  'logo_upload',
  'clear_logo_upload',
]
const rank = (key: string) => {
  const i = CKAN_ORDER.indexOf(key)
  return i < 0 ? CKAN_ORDER.length : i
}

/** The runtime-editable options: CKAN's ones in CKAN's order, then any others as declared. */
export const EDITABLE_OPTIONS: OptionDef[] = OPTIONS.filter((d) => d.runtimeEditable).sort(
  (a, b) => rank(a.key) - rank(b.key),
)

/** The keys config_option_list reports, spelled as CKAN clients expect (`ckan.` prefix). */
export const editableWireKeys = () => EDITABLE_OPTIONS.map((d) => wireKey(d.key))

/** The editable option a client's spelling (`ckan.x` or `service.x`) names, or undefined. */
export function editableOption(key: string): OptionDef | undefined {
  const def = OPTIONS_BY_KEY.get(canonicalKey(key))
  return def?.runtimeEditable ? def : undefined
}

/**
 * Stores runtime option values (by canonical key) with their change-log rows in one batch,
 * then reloads this process's overlay so the values apply at once.
 */
export async function storeRuntimeOptions(ctx: ActionContext, values: Map<string, string | null>) {
  if (!values.size) return
  const stmts = [...values].flatMap(([key, value]) => [
    ctx.db
      .insert(systemInfo)
      .values({ key, value })
      .onConflictDoUpdate({ target: systemInfo.key, set: { value } }),
    ctx.db.insert(changeLog).values(changeRow('config', key)),
  ])
  await ctx.db.batch(stmts as [(typeof stmts)[number], ...typeof stmts])
  await loadRuntimeConfig(ctx.read, ctx.config)
}
