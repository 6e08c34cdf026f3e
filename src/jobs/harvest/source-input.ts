// A harvest source's fields as ckanext-harvest validates them (url, source_type, frequency, config),
// turned into the `harvest` dataset dict package_create / package_update write.
import type { ActionContext } from '../../context'
import type { ErrorDict } from '../../errors'
import { FREQUENCIES, HARVEST_TYPE, SOURCE_KEYS, sourceFromDict, sourceIds } from '../../model/harvest'
import { packageDicts } from '../../model/package'
import { isMissing, MISSING } from '../../validation/fields'
import { harvesterNamed, harvesterNames } from './registry'

/** ckanext-harvest: a URL without its query, fragment, default port and trailing slash. */
export function normalizeUrl(url: string): string {
  try {
    const u = new URL(url)
    const port = (u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443') ? '' : u.port
    return `${u.protocol}//${u.hostname}${port ? `:${port}` : ''}${u.pathname.replace(/\/+$/, '')}`
  } catch {
    return url.replace(/[?#].*$/, '').replace(/\/+$/, '')
  }
}

type Extra = { key: string; value: unknown }

/**
 * Checks a source's fields and builds its dataset dict (type `harvest`, the settings as extras).
 * `selfId`: the source being updated (its own URL is not a clash). Errors are ckanext-harvest's.
 */
export async function sourceDatasetInput(
  ctx: ActionContext,
  raw: Record<string, unknown>,
  selfId?: string,
): Promise<{ dict: Record<string, unknown>; errors: ErrorDict }> {
  const errors: ErrorDict = {}
  const add = (k: string, m: string) => void ((errors[k] as string[] | undefined) ?? (errors[k] = [])).push(m)

  const url = isMissing(raw.url) ? '' : String(raw.url).trim()
  if (!url) add('url', MISSING)
  else if (!/^https?:\/\/[^\s/]+/i.test(url)) add('url', 'Please provide a valid URL')

  const type = isMissing(raw.source_type) ? '' : String(raw.source_type)
  if (!type) add('source_type', MISSING)
  else if (!harvesterNamed(type))
    add('source_type', `Unknown harvester type: ${type}. Registered types: [${harvesterNames().map((n) => `'${n}'`).join(', ')}]`)

  let frequency = 'MANUAL'
  if (!isMissing(raw.frequency)) {
    const f = String(raw.frequency).toUpperCase()
    if (!(FREQUENCIES as readonly string[]).includes(f)) add('frequency', `Frequency ${String(raw.frequency)} not recognised`)
    else frequency = f
  }

  let config = ''
  if (!isMissing(raw.config)) {
    let parsed: unknown
    if (typeof raw.config === 'object') parsed = raw.config
    else
      try {
        parsed = JSON.parse(String(raw.config))
      } catch (e) {
        add('config', `Error parsing the configuration options: ${(e as Error).message}`)
      }
    if (parsed !== undefined) {
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        add('config', 'Error parsing the configuration options: the configuration must be a JSON object')
      else {
        try {
          await harvesterNamed(type)?.validateConfig?.(parsed as Record<string, unknown>, ctx)
          config = JSON.stringify(parsed)
        } catch (e) {
          add('config', `Error parsing the configuration options: ${(e as Error).message}`)
        }
      }
    }
  }

  // ckanext-harvest: one source per URL and config
  if (url && !errors.url) {
    const norm = normalizeUrl(url)
    const ids = (await sourceIds(ctx, { includeDeleted: false })).filter((id) => id !== selfId)
    const dicts = await packageDicts(ctx, ids, { cache: false })
    for (const d of dicts.values()) {
      const s = sourceFromDict(d)
      if (normalizeUrl(s.url) === norm && (s.config || '') === config) {
        add('url', `There already is a Harvest Source for this URL (& config): url=${norm} config=${config || 'None'}`)
        break
      }
    }
  }

  const keys = new Set<string>(SOURCE_KEYS)
  const extras: Extra[] = (Array.isArray(raw.extras) ? (raw.extras as Extra[]) : []).filter(
    (e) => !(e && typeof e === 'object' && keys.has(String(e.key))),
  )
  extras.push({ key: 'source_type', value: type }, { key: 'frequency', value: frequency })
  if (config) extras.push({ key: 'config', value: config })
  const dict: Record<string, unknown> = { ...raw, type: HARVEST_TYPE, url, extras }
  for (const k of SOURCE_KEYS) delete dict[k]
  // ckanext-harvest: title if_empty_same_as name
  if (isMissing(dict.title) && typeof dict.name === 'string') dict.title = dict.name
  return { dict, errors }
}
