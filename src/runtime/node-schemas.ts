// Node: the scheming.* files read from disk (relative to the working directory), module:path names
// under scheming.module_dir, and http(s) URLs fetched once at start.
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Config } from '../config/load'
import { collectScheming, registryFrom, modulePath, type SchemingSnapshot } from '../scheming/load'
import { SchemaError, type SchemaRegistry } from '../scheming/registry'

export function readSchemaFile(config: Config, name: string): Promise<string> {
  if (/^https?:\/\//i.test(name)) {
    return fetch(name).then((res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      return res.text()
    })
  }
  const mod = modulePath(name)
  const path = mod ? resolve(config.str('scheming.module_dir') || 'schemas', mod) : resolve(name)
  return readFile(path, 'utf8')
}

/** The site's schemas (undefined: none configured) and the snapshot they were built from. */
export async function nodeScheming(config: Config): Promise<{ schemas?: SchemaRegistry; snapshot: SchemingSnapshot | null }> {
  const snapshot = await collectScheming(config, (name) => readSchemaFile(config, name))
  return { schemas: snapshot && registryFrom(snapshot, config.str('service.locale_default')), snapshot: snapshot ?? null }
}

/** The site's schemas (undefined: none configured). */
export const nodeSchemas = async (config: Config) => (await nodeScheming(config)).schemas

/** nodeSchemas for a process entry: a schema that cannot be used ends the start with its reason. */
export async function nodeSchemasOrExit(config: Config) {
  try {
    return await nodeScheming(config)
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e
    console.error(`Metadata schema error: ${e.message}`)
    process.exit(1)
  }
}
