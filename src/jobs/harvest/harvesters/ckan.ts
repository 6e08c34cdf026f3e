// The `ckan` source type: a remote CKAN site read through its Action API (package_search pages,
// changes since the last good run, an id listing for deletions), its datasets written locally as
// ckanext-harvest's CKAN harvester maps them (config keys and messages are ckanext-harvest's).
import { systemContext, type ActionContext, type Deps } from '../../../context'
import { findGroup } from '../../../model/group'
import { groupParams, saveGroup } from '../../../model/group-write'
import { findUser } from '../../../model/user'
import { ensureSiteUser } from '../../../model/site-user'
import { TAG_MAX_LENGTH, TAG_MIN_LENGTH } from '../../../model/tag'
import type { HarvestSource } from '../../../model/harvest'
import type { HarvestFetcher } from '../fetch'
import { HarvestError, type GatherContext, type Harvester, type ImportContext, type ImportResult } from '../types'

type Dict = Record<string, unknown>
type Extra = { key: string; value: unknown }

/** The site root of a source URL given as the root, with a trailing slash, or as its API (`/api/3`). */
export function siteRoot(url: string): string {
  return url
    .trim()
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .replace(/\/api(\/\d+)?(\/action)?$/, '')
}

/** The URL of a remote action with its parameters. */
export function actionUrl(source: HarvestSource, action: string, params: Record<string, string | number>): string {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))
  return `${siteRoot(source.url)}/api/3/action/${action}?${qs}`
}

/** The request headers the config asks for (its API key). */
export function authHeaders(config: Dict): Record<string, string> {
  return typeof config.api_key === 'string' && config.api_key ? { authorization: config.api_key } : {}
}

/** Calls a remote action (GET) and returns its `result`; an error answer throws a HarvestError. */
export async function callRemote(
  fetch: HarvestFetcher,
  source: HarvestSource,
  config: Dict,
  action: string,
  params: Record<string, string | number>,
): Promise<unknown> {
  const url = actionUrl(source, action, params)
  let body: unknown
  try {
    body = await fetch.json(url, { headers: authHeaders(config) })
  } catch (e) {
    // a CKAN error answer names the problem: keep it in the message
    const remote = e instanceof HarvestError && e.response ? remoteErrorText(e.response.body) : undefined
    if (remote && e instanceof HarvestError) throw new HarvestError(`${e.message}: ${remote}`, e.response)
    throw e
  }
  if (!body || typeof body !== 'object' || !('result' in body)) {
    const err = body && typeof body === 'object' && 'error' in body ? remoteErrorText(JSON.stringify(body)) : undefined
    throw new HarvestError(err ? `The remote ${action} failed: ${err}` : `The answer of ${url} is not a CKAN API answer (no result)`)
  }
  return (body as { result: unknown }).result
}

/** A CKAN error envelope's error as one line, or undefined when the text is not one. */
export function remoteErrorText(text: string): string | undefined {
  try {
    const err = (JSON.parse(text) as { error?: Dict }).error
    if (!err || typeof err !== 'object') return undefined
    const parts = Object.entries(err)
      .filter(([k]) => k !== '__type')
      .map(([k, v]) => (k === 'message' ? String(v) : `${k}: ${Array.isArray(v) ? v.join(', ') : JSON.stringify(v)}`))
    return [err.__type, ...parts].filter(Boolean).join(' - ')
  } catch {
    return undefined
  }
}

const asList = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? [v] : []

/** ckanext-harvest's organization and group filters as `fq` clauses (each must hold). */
export function filterTerms(config: Dict): string[] {
  const terms: string[] = []
  const either = (field: string, include: unknown, exclude: unknown) => {
    const inc = asList(include)
    if (inc.length) terms.push(`+(${inc.map((n) => `${field}:${quoteTerm(n)}`).join(' OR ')})`)
    else for (const n of asList(exclude)) terms.push(`-${field}:${quoteTerm(n)}`)
  }
  either('organization', config.organizations_filter_include, config.organizations_filter_exclude)
  either('groups', config.groups_filter_include, config.groups_filter_exclude)
  return terms
}

const quoteTerm = (v: string) => (/^[A-Za-z0-9_.-]+$/.test(v) && !v.startsWith('-') ? v : `"${v.replace(/["\\]/g, '\\$&')}"`)

/** A package_search page's results, checked. */
function searchResults(result: unknown, url: string): { count: number; results: Dict[] } {
  const r = result as { count?: unknown; results?: unknown } | null
  if (!r || typeof r !== 'object' || !Array.isArray(r.results))
    throw new HarvestError(`The answer of ${url} did not contain result/results`)
  return { count: typeof r.count === 'number' ? r.count : Number(r.count) || 0, results: r.results as Dict[] }
}

/**
 * Every dataset a remote package_search lists for `fq`, page by page (`rows` a page, `start`
 * offsets, sorted by id so that pages hold while the remote changes). `fl`: only these fields.
 */
export async function* searchAll(
  ctx: Pick<GatherContext, 'fetch' | 'source' | 'config' | 'pageSize'>,
  fq: string[],
  opts: { fl?: string; includePrivate?: boolean } = {},
): AsyncGenerator<Dict> {
  const rows = ctx.pageSize
  const fetchPage = (start: number) => {
    const params: Record<string, string | number> = { rows, start, sort: 'id asc' }
    if (fq.length) params.fq = fq.join(' ')
    if (opts.fl) params.fl = opts.fl
    if (opts.includePrivate) params.include_private = 'true'
    const url = actionUrl(ctx.source, 'package_search', params)
    const got = callRemote(ctx.fetch, ctx.source, ctx.config, 'package_search', params).then(
      (result) => ({ result, url }),
      (e: unknown) => {
        throw new HarvestError(`Unable to search remote CKAN for datasets: ${(e as Error).message}`)
      },
    )
    got.catch(() => {}) // a page asked for ahead and never awaited (the run stopped) is no unhandled rejection
    return got
  }
  let previous: string | undefined
  let next = fetchPage(0)
  for (let start = 0; ; start += rows) {
    const { result, url } = await next
    const page = searchResults(result, url)
    const ids = page.results.map((d) => String(d.id)).join(',')
    if (page.results.length && ids === previous) throw new HarvestError(`The paging doesn't seem to work. URL: ${url}`)
    previous = ids
    const more = page.results.length > 0 && start + rows < page.count
    // the remote makes the next page while this one is written
    if (more) next = fetchPage(start + rows)
    for (const d of page.results) if (d && typeof d.id === 'string') yield d
    if (!more) return
  }
}

/** ISO time `hours` before a stored timestamp (UTC, with or without its Z). */
function hoursBefore(stamp: string, hours: number): string {
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(stamp) ? stamp : `${stamp}Z`)
  return new Date(t - hours * 3_600_000).toISOString()
}

/** ckanext-harvest's CKAN harvester config check (its messages). */
export async function validateCkanConfig(config: Dict, ctx: ActionContext): Promise<void> {
  if ('api_version' in config) {
    const v = config.api_version
    const ok = (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean' || (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v))
    if (!ok) throw new Error('api_version must be an integer')
  }
  if ('default_tags' in config) {
    const v = config.default_tags
    if (!Array.isArray(v)) throw new Error('default_tags must be a list')
    if (v.length && !(v[0] && typeof v[0] === 'object' && !Array.isArray(v[0])))
      throw new Error('default_tags must be a list of dictionaries')
  }
  if ('default_groups' in config) {
    const v = config.default_groups
    if (!Array.isArray(v)) throw new Error('default_groups must be a *list* of group names/ids')
    if (v.length && typeof v[0] !== 'string') throw new Error('default_groups must be a list of group names/ids (i.e. strings)')
    for (const ref of v) {
      const g = typeof ref === 'string' ? await findGroup(ctx, ref) : undefined
      if (!g || g.is_organization || g.state === 'deleted') throw new Error('Default group not found')
    }
  }
  if ('default_extras' in config) {
    const v = config.default_extras
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('default_extras must be a dictionary')
  }
  if ('organizations_filter_include' in config && 'organizations_filter_exclude' in config)
    throw new Error('Harvest configuration cannot contain both organizations_filter_include and organizations_filter_exclude')
  if ('groups_filter_include' in config && 'groups_filter_exclude' in config)
    throw new Error('Harvest configuration cannot contain both groups_filter_include and groups_filter_exclude')
  if ('user' in config) {
    const u = typeof config.user === 'string' ? await findUser(ctx, config.user) : undefined
    if (!u || u.state === 'deleted') throw new Error('User not found')
  }
  for (const key of ['read_only', 'force_all'])
    if (key in config && typeof config[key] !== 'boolean') throw new Error(`${key} must be boolean`)
}

/** CKAN's munge_tag: ASCII, lower case, letters digits dashes, spaces as dashes, within the tag lengths. */
export function mungeTag(tag: string): string {
  let t = tag
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
  t = t.replace(/[^a-zA-Z0-9\- ]/g, '').replace(/ /g, '-')
  if (t.length < TAG_MIN_LENGTH) t += '_'.repeat(TAG_MIN_LENGTH - t.length)
  return t.slice(0, TAG_MAX_LENGTH)
}

/** Keys of a remote package_show dict that mean nothing here (computed, or ids of remote rows). */
const REMOTE_ONLY = [
  'organization',
  'revision_id',
  'revision_timestamp',
  'creator_user_id',
  'metadata_created',
  'metadata_modified',
  'num_resources',
  'num_tags',
  'isopen',
  'license_title',
  'license_url',
  'tracking_summary',
  'relationships_as_object',
  'relationships_as_subject',
  'state',
]
const RESOURCE_REMOTE_ONLY = ['url_type', 'revision_id', 'package_id', 'position', 'tracking_summary', 'datastore_active']

/** An ActionContext of the site user for the lookups and writes an import makes. */
async function siteContext(deps: Deps): Promise<ActionContext> {
  const { user } = await ensureSiteUser(deps)
  return { ...systemContext(deps), user, ignoreAuth: true }
}

/** A local group or organization for a remote one (by id, then name); `create` makes it from the remote's dict. */
async function localGroup(
  ctx: ActionContext,
  remote: Dict,
  isOrg: boolean,
  mode: 'only_local' | 'create',
  log: ImportContext['log'],
): Promise<{ id: string; name: string } | undefined> {
  const existing = async () => {
    for (const ref of [remote.id, remote.name]) {
      if (typeof ref !== 'string' || !ref) continue
      const g = await findGroup(ctx, ref)
      if (g && g.is_organization === isOrg && g.state !== 'deleted') return { id: g.id, name: g.name }
    }
    return undefined
  }
  const found = await existing()
  if (found) return found
  const kind = isOrg ? 'Organization' : 'Group'
  const label = String(remote.name ?? remote.id)
  if (mode !== 'create') {
    log('INFO', `${kind} ${label} is not available`)
    return undefined
  }
  const parsed = groupParams(true).safeParse({
    id: remote.id,
    name: remote.name,
    title: remote.title,
    description: remote.description,
    image_url: remote.image_url,
  })
  if (!parsed.success) {
    log('ERROR', `Could not create ${kind.toLowerCase()} ${label} from the remote one`)
    return undefined
  }
  try {
    const row = await saveGroup(ctx, { isOrg, params: parsed.data, partial: false })
    log('INFO', `${kind} ${label} has been newly created`)
    return { id: row.id, name: row.name }
  } catch (e) {
    // imports run concurrently: another dataset of the run may have just made the same one
    const made = await existing()
    if (made) return made
    log('ERROR', `Could not create ${kind.toLowerCase()} ${label}: ${(e as Error).message}`)
    return undefined
  }
}

/** Python's str.format with the named values (other fields stay as written). */
function formatValue(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{|\}\}|\{(\w+)\}/g, (m, key: string | undefined) =>
    m === '{{' ? '{' : m === '}}' ? '}' : key !== undefined && key in values ? values[key]! : m,
  )
}

/** A remote CKAN dataset dict (package_show's form) as the local dataset dict to write. */
export async function ckanToDataset(obj: { guid: string; content: string }, ctx: ImportContext): Promise<ImportResult> {
  let remote: Dict
  try {
    remote = JSON.parse(obj.content) as Dict
  } catch {
    throw new HarvestError(`The remote record of ${obj.guid} is not JSON`)
  }
  if (!remote || typeof remote !== 'object' || Array.isArray(remote)) throw new HarvestError(`The remote record of ${obj.guid} is not a dataset dict`)
  if (remote.type === 'harvest') return { skip: 'Remote dataset is a harvest source, ignoring' }
  const config = ctx.config
  const d: Dict = { ...remote }
  for (const k of REMOTE_ONLY) delete d[k]
  const remoteId = typeof remote.id === 'string' ? remote.id : obj.guid
  delete d.id

  // tags: the remote's (without its tag ids), then default_tags; clean_tags munges them
  let tags: Dict[] = (Array.isArray(remote.tags) ? (remote.tags as Dict[]) : [])
    .filter((t) => t && typeof t === 'object')
    .map((t) => ({ name: t.name, ...(t.vocabulary_id ? { vocabulary_id: t.vocabulary_id } : {}) }))
  const defaultTags = Array.isArray(config.default_tags) ? (config.default_tags as Dict[]) : []
  for (const t of defaultTags) if (t && !tags.some((x) => x.name === t.name)) tags.push({ ...t })
  if (config.clean_tags === true || config.clean_tags === 'true') {
    const seen = new Set<string>()
    tags = tags
      .map((t): Dict => ({ ...t, name: mungeTag(String(t.name ?? '')) }))
      .filter((t) => {
        const key = `${t.vocabulary_id ?? ''}:${t.name}`
        if (!t.name || seen.has(key)) return false
        seen.add(key)
        return true
      })
  }
  d.tags = tags

  const needsLocal = config.remote_groups === 'only_local' || config.remote_groups === 'create' ||
    config.remote_orgs === 'only_local' || config.remote_orgs === 'create' ||
    (Array.isArray(config.default_groups) && config.default_groups.length > 0)
  const local = needsLocal ? await siteContext(ctx.deps) : undefined

  // groups: dropped unless remote_groups says to keep those that exist here (or to create them)
  const groups: { id: string; name: string }[] = []
  if ((config.remote_groups === 'only_local' || config.remote_groups === 'create') && local) {
    for (const g of Array.isArray(remote.groups) ? (remote.groups as Dict[]) : []) {
      if (!g || typeof g !== 'object') continue
      const found = await localGroup(local, g, false, config.remote_groups, ctx.log)
      if (found && !groups.some((x) => x.id === found.id)) groups.push(found)
    }
  }
  if (local)
    for (const ref of Array.isArray(config.default_groups) ? config.default_groups : []) {
      const g = typeof ref === 'string' ? await findGroup(local, ref) : undefined
      if (g && !g.is_organization && !groups.some((x) => x.id === g.id)) groups.push({ id: g.id, name: g.name })
    }
  d.groups = groups

  // organization: the source's, unless remote_orgs says to use a local one of the remote's
  delete d.owner_org
  if ((config.remote_orgs === 'only_local' || config.remote_orgs === 'create') && local && typeof remote.owner_org === 'string' && remote.owner_org) {
    const embedded = remote.organization && typeof remote.organization === 'object' ? (remote.organization as Dict) : {}
    const org = await localGroup(local, { ...embedded, id: remote.owner_org }, true, config.remote_orgs, ctx.log)
    if (org) d.owner_org = org.id
  }

  // extras: default_extras (with their placeholders filled), over the remote's only with override_extras
  let extras: Extra[] = (Array.isArray(remote.extras) ? (remote.extras as Extra[]) : [])
    .filter((e) => e && typeof e === 'object')
    .map((e) => ({ key: e.key, value: e.value }))
  const defaults = config.default_extras && typeof config.default_extras === 'object' ? (config.default_extras as Dict) : {}
  const override = config.override_extras === true || config.override_extras === 'true'
  const values = {
    dataset_id: remoteId,
    harvest_source_id: ctx.source.id,
    harvest_source_url: ctx.source.url.replace(/^\/+|\/+$/g, ''),
    harvest_source_title: ctx.source.title,
    harvest_job_id: ctx.jobId,
    harvest_object_id: ctx.objectId,
  }
  for (const [key, raw] of Object.entries(defaults)) {
    const existing = extras.some((e) => e.key === key)
    if (existing && !override) continue
    extras = extras.filter((e) => e.key !== key)
    extras.push({ key, value: typeof raw === 'string' ? formatValue(raw, values) : raw })
  }
  d.extras = extras

  d.resources = (Array.isArray(remote.resources) ? (remote.resources as Dict[]) : [])
    .filter((r) => r && typeof r === 'object')
    .map((r) => {
      const out = { ...r }
      for (const k of RESOURCE_REMOTE_ONLY) delete out[k]
      return out
    })
  return { dataset: d, id: remoteId }
}

export const ckanHarvester: Harvester = {
  info: {
    name: 'ckan',
    title: 'CKAN',
    description: 'Harvests remote CKAN instances',
    form_config_interface: 'Text',
  },
  validateConfig: validateCkanConfig,

  async *gather(ctx) {
    const filters = filterTerms(ctx.config)
    const includePrivate = !!authHeaders(ctx.config).authorization
    const root = siteRoot(ctx.source.url)
    if (ctx.previous) {
      // the datasets changed since the last good run (an hour earlier, for clocks apart) ...
      const since = hoursBefore(ctx.previous.gather_started, 1)
      ctx.log('INFO', `Searching for datasets modified since: ${since} UTC`)
      let n = 0
      for await (const d of searchAll(ctx, [...filters, `+metadata_modified:[${since} TO *]`], { includePrivate })) {
        n++
        yield gathered(d)
      }
      if (!n) ctx.log('INFO', `No datasets have been updated on the remote CKAN instance since the last harvest job ${ctx.previous.gather_started}`)
      // ... and those gone from it: the known ones an id listing no longer has
      const known = ctx.knownGuids()
      if (known.length) {
        const listed = new Set<string>()
        for await (const d of searchAll(ctx, filters, { fl: 'id', includePrivate })) listed.add(String(d.id))
        for (const g of known) if (!listed.has(g)) ctx.deleted(g)
      }
      return
    }
    let n = 0
    for await (const d of searchAll(ctx, filters, { includePrivate })) {
      n++
      yield gathered(d)
    }
    // an empty answer more likely means a remote in trouble than a catalogue emptied: nothing is deleted
    if (!n) ctx.error(`No datasets found at CKAN: ${root}`)
    else ctx.fullListing()
  },

  toDataset: ckanToDataset,
  originalUrl: (source, guid) => `${siteRoot(source.url)}/dataset/${guid}`,
}

/** A remote dataset dict as a gathered object. */
export const gathered = (d: Dict) => ({
  guid: String(d.id),
  content: JSON.stringify(d),
  modified: typeof d.metadata_modified === 'string' ? d.metadata_modified : undefined,
})
