// The registry from the `scheming.*` options: each name read by the runtime's reader (files and
// URLs on Node), the built-in preset files by their module path. What was read is a snapshot the
// catalogue database keeps (store.ts), so that Workers, which read no files, build the same registry.
import type { Config } from '../config/load'
import { BUILTIN_PRESETS } from './presets'
import { parseSchemaText, SchemaError, SchemaRegistry } from './registry'
import type { SchemaSource } from './types'

/** Reads one schema or presets file by the name an option gives (path, URL or module:path). */
export type SchemaReader = (name: string) => Promise<string>

/** Everything the registry is built from: the options' lists with the texts they named. */
export interface SchemingSnapshot {
  datasetSchemas: SchemaSource[]
  organizationSchemas: SchemaSource[]
  groupSchemas: SchemaSource[]
  /** A built-in presets file by its module path, or a file read. */
  presets: (SchemaSource | string)[]
  datasetFallback: boolean
  choicesHelpers: SchemaSource | null
}

/** Whether any schema option is set (none: CKAN's core schemas, no registry at all). */
export const schemingConfigured = (config: Config) =>
  ['scheming.dataset_schemas', 'scheming.organization_schemas', 'scheming.group_schemas'].some(
    (k) => config.list(k).length > 0,
  )

/** Reads every file the scheming.* options name; undefined where no schema option is set. */
export async function collectScheming(config: Config, read: SchemaReader): Promise<SchemingSnapshot | undefined> {
  if (!schemingConfigured(config)) return undefined
  const one = async (name: string, key: string): Promise<SchemaSource> => {
    try {
      return { name, text: await read(name) }
    } catch (e) {
      throw new SchemaError(`${name} (${key}): could not be read: ${(e as Error).message}`)
    }
  }
  const all = (key: string) => Promise.all(config.list(key).map((name) => one(name, key)))
  const helpers = config.str('scheming.choices_helpers')
  return {
    datasetSchemas: await all('scheming.dataset_schemas'),
    organizationSchemas: await all('scheming.organization_schemas'),
    groupSchemas: await all('scheming.group_schemas'),
    presets: await Promise.all(
      config.list('scheming.presets').map((name) => (name in BUILTIN_PRESETS ? name : one(name, 'scheming.presets'))),
    ),
    datasetFallback: config.bool('scheming.dataset_fallback'),
    choicesHelpers: helpers ? await one(helpers, 'scheming.choices_helpers') : null,
  }
}

/** The registry of a snapshot. Throws SchemaError naming the file and field at fault. */
export function registryFrom(s: SchemingSnapshot, localeDefault: string): SchemaRegistry {
  let choicesHelpers: Record<string, { value: string; label?: unknown }[]> = {}
  if (s.choicesHelpers) {
    choicesHelpers = parseSchemaText(s.choicesHelpers) as typeof choicesHelpers
    for (const [name, list] of Object.entries(choicesHelpers))
      if (!Array.isArray(list) || !list.every((c) => c && typeof c === 'object' && 'value' in c))
        throw new SchemaError(`${s.choicesHelpers.name}: choices helper "${name}" must be a list of {value, label}`)
  }
  return new SchemaRegistry({ ...s, choicesHelpers, localeDefault: localeDefault || 'en' })
}

/** `ckanext.example:x.yaml` → `ckanext/example/x.yaml` (under scheming.module_dir); null: not that form. */
export function modulePath(name: string): string | null {
  const m = /^([A-Za-z_][\w.]*):(?!\/\/)(.+)$/.exec(name)
  return m ? `${m[1]!.replaceAll('.', '/')}/${m[2]}` : null
}
