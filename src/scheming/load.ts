// The registry from the `scheming.*` options: each name read by the runtime's reader (files and
// URLs on Node), the built-in preset files by their module path.
import type { Config } from '../config/load'
import { BUILTIN_PRESETS } from './presets'
import { parseSchemaText, SchemaError, SchemaRegistry } from './registry'
import type { SchemaSource } from './types'

/** Reads one schema or presets file by the name an option gives (path, URL or module:path). */
export type SchemaReader = (name: string) => Promise<string>

/** Whether any schema option is set (none: CKAN's core schemas, no registry at all). */
export const schemingConfigured = (config: Config) =>
  ['scheming.dataset_schemas', 'scheming.organization_schemas', 'scheming.group_schemas'].some(
    (k) => config.list(k).length > 0,
  )

/** The site's schemas, or undefined where no schema option is set. Throws SchemaError. */
export async function loadScheming(config: Config, read: SchemaReader): Promise<SchemaRegistry | undefined> {
  if (!schemingConfigured(config)) return undefined
  const sources = async (key: string): Promise<SchemaSource[]> =>
    Promise.all(
      config.list(key).map(async (name) => {
        try {
          return { name, text: await read(name) }
        } catch (e) {
          throw new SchemaError(`${name} (${key}): could not be read: ${(e as Error).message}`)
        }
      }),
    )
  const presets = await Promise.all(
    config.list('scheming.presets').map(async (name) =>
      name in BUILTIN_PRESETS ? name : { name, text: await read(name).catch((e: Error) => { throw new SchemaError(`${name} (scheming.presets): could not be read: ${e.message}`) }) },
    ),
  )
  const helpersFile = config.str('scheming.choices_helpers')
  let choicesHelpers: Record<string, { value: string; label?: unknown }[]> = {}
  if (helpersFile) {
    const text = await read(helpersFile).catch((e: Error) => {
      throw new SchemaError(`${helpersFile} (scheming.choices_helpers): could not be read: ${e.message}`)
    })
    choicesHelpers = parseSchemaText({ name: helpersFile, text }) as typeof choicesHelpers
    for (const [name, list] of Object.entries(choicesHelpers))
      if (!Array.isArray(list) || !list.every((c) => c && typeof c === 'object' && 'value' in c))
        throw new SchemaError(`${helpersFile}: choices helper "${name}" must be a list of {value, label}`)
  }
  return new SchemaRegistry({
    choicesHelpers,
    datasetSchemas: await sources('scheming.dataset_schemas'),
    organizationSchemas: await sources('scheming.organization_schemas'),
    groupSchemas: await sources('scheming.group_schemas'),
    presets,
    datasetFallback: config.bool('scheming.dataset_fallback'),
    localeDefault: config.str('service.locale_default') || 'en',
  })
}

/** `ckanext.example:x.yaml` → `ckanext/example/x.yaml` (under scheming.module_dir); null: not that form. */
export function modulePath(name: string): string | null {
  const m = /^([A-Za-z_][\w.]*):(?!\/\/)(.+)$/.exec(name)
  return m ? `${m[1]!.replaceAll('.', '/')}/${m[2]}` : null
}
