// A catalogue read through CKAN's Action API: a CKAN 2.9–2.11 site (import-ckan, over HTTP) or
// this project itself (export, through its own actions). Lists are paged the way each CKAN
// version allows; a version that ignores limit/offset (2.9's user_list) is detected by a page
// adding nothing new.
import { SourceError, uploadFileName, type Dict, type SourceCall, type SourceFile, type SourceSchemas, type SourceTable, type TransferSource } from './source'

export interface CkanSourceOptions {
  label: string
  call: SourceCall
  /** The bytes of an uploaded resource's file. */
  download(resource: Dict): Promise<SourceFile | { missing: string }>
  /** Rows a DataStore page asks for (CKAN caps it at ckan.datastore.search.rows_max, 32,000). */
  tablePage?: number
}

const LIST_PAGE = 100
const SEARCH_PAGE = 1000
const ACTIVITY_PAGE = 100
/** Activities read per object at most (CKAN keeps whole streams; the newest are the ones read). */
const ACTIVITY_MAX = 10_000

export class CkanSource implements TransferSource {
  readonly label: string
  private readonly call: SourceCall
  private readonly tablePage: number

  constructor(private readonly opts: CkanSourceOptions) {
    this.label = opts.label
    this.call = opts.call
    this.tablePage = opts.tablePage ?? 5000
  }

  async describe() {
    try {
      const s = await this.call('status_show', {})
      return { ckanVersion: typeof s?.ckan_version === 'string' ? s.ckan_version : undefined }
    } catch {
      return {}
    }
  }

  /**
   * Pages a list action by limit/offset until a page is empty or adds nothing new. A site may
   * cap the limit below what was asked (2.10's ckan.user_list_limit), so the next offset is
   * where the page really ended, and a short page is not the end.
   */
  private async *paged(name: string, params: Dict, key: (v: any) => string): AsyncIterable<any> {
    const seen = new Set<string>()
    for (let offset = 0; ; ) {
      const page: any[] = await this.call(name, { ...params, limit: LIST_PAGE, offset })
      offset += page?.length ?? 0
      let fresh = 0
      for (const v of page ?? []) {
        const k = key(v)
        if (seen.has(k)) continue
        seen.add(k)
        fresh++
        yield v
      }
      if (!page?.length || fresh === 0) return
    }
  }

  async *users() {
    for await (const u of this.paged('user_list', { all_fields: true }, (u) => (typeof u === 'string' ? u : u.id)))
      yield typeof u === 'string' ? await this.call('user_show', { id: u }) : u
  }

  /** The group or organization types the site's schemas add to CKAN's own. */
  private async typesOf(kind: 'organization' | 'group'): Promise<string[]> {
    const schemas = await this.schemas()
    const types = (schemas?.[kind] ?? []).map((s) => String(s.group_type ?? s.organization_type ?? kind))
    return [...new Set([kind, ...types])]
  }

  private async *groupsOf(kind: 'organization' | 'group') {
    for (const type of await this.typesOf(kind))
      for await (const name of this.paged(`${kind}_list`, { all_fields: false, type }, (n) => String(n)))
      yield await this.call(`${kind}_show`, {
        id: typeof name === 'string' ? name : name.id,
        include_users: true,
        include_datasets: false,
        include_extras: true,
        include_groups: true,
        include_tags: false,
        include_followers: false,
      })
  }

  organizations() {
    return this.groupsOf('organization')
  }

  groups() {
    return this.groupsOf('group')
  }

  async *vocabularies() {
    for (const v of (await this.call('vocabulary_list', {})) ?? []) yield v
  }

  private search(start: number, rows: number) {
    return this.call('package_search', {
      q: '*:*',
      include_private: true,
      include_drafts: true,
      rows,
      start,
      // the oldest first: a dataset created during the copy comes last instead of shifting pages
      sort: 'metadata_created asc, id asc',
    })
  }

  async datasetCount() {
    return Number((await this.search(0, 0)).count ?? 0)
  }

  async *datasets() {
    const seen = new Set<string>()
    // rows may be capped below what was asked (ckan.search.rows_max): the page ends where it ends
    for (let start = 0; ; ) {
      const page = await this.search(start, SEARCH_PAGE)
      const results: Dict[] = page.results ?? []
      start += results.length
      for (const d of results) {
        if (seen.has(d.id)) continue
        seen.add(d.id)
        yield d
      }
      if (!results.length || start >= Number(page.count ?? 0)) return
    }
  }

  async views(resource: Dict) {
    try {
      return ((await this.call('resource_view_list', { id: resource.id })) ?? []) as Dict[]
    } catch (e) {
      if (e instanceof SourceError) return []
      throw e
    }
  }

  async table(resource: Dict): Promise<SourceTable | null> {
    let head: Dict
    try {
      head = await this.call('datastore_search', { resource_id: resource.id, limit: 0 })
    } catch (e) {
      if (e instanceof SourceError && (e.type === 'Not Found' || e.type === '404')) return null
      throw e
    }
    const fields = ((head.fields ?? []) as Dict[])
      .filter((f) => f.id !== '_id')
      .map((f) => ({ id: f.id, type: f.type, ...(f.info ? { info: f.info } : {}) }))
    const total = Number(head.total ?? 0)
    const call = this.call
    const size = this.tablePage
    return {
      fields,
      async *pages() {
        // a site may cap the limit (ckan.datastore.search.rows_max): the next page starts where this one ended
        for (let offset = 0; offset < total; ) {
          const page = await call('datastore_search', { resource_id: resource.id, limit: size, offset, sort: '_id' })
          const records = ((page.records ?? []) as Dict[]).map(({ _id, ...rest }) => rest)
          if (!records.length) return
          offset += records.length
          yield records
        }
      },
    }
  }

  private schemasRead?: Promise<SourceSchemas | null>

  schemas(): Promise<SourceSchemas | null> {
    return (this.schemasRead ??= this.readSchemas())
  }

  private async readSchemas(): Promise<SourceSchemas | null> {
    const out: SourceSchemas = { dataset: [], organization: [], group: [] }
    for (const kind of ['dataset', 'organization', 'group'] as const) {
      let types: string[]
      try {
        types = (await this.call(`scheming_${kind}_schema_list`, {})) ?? []
      } catch (e) {
        if (e instanceof SourceError) continue // no ckanext-scheming there
        throw e
      }
      for (const type of types) out[kind].push(await this.call(`scheming_${kind}_schema_show`, { type, expanded: true }))
    }
    return out.dataset.length + out.organization.length + out.group.length ? out : null
  }

  file(resource: Dict) {
    return this.opts.download(resource)
  }

  async activities(kind: 'package' | 'organization' | 'group', id: string) {
    const out: Dict[] = []
    try {
      for (let offset = 0; offset < ACTIVITY_MAX; offset += ACTIVITY_PAGE) {
        const page: Dict[] = (await this.call(`${kind}_activity_list`, { id, limit: ACTIVITY_PAGE, offset })) ?? []
        out.push(...page)
        if (page.length < ACTIVITY_PAGE) break
      }
    } catch (e) {
      // not readable with this key, or the site has no activity plugin (2.10+ without it)
      if (e instanceof SourceError) return []
      throw e
    }
    // CKAN 2.9's lists cut `data` down to titles: the whole object is read from activity_show
    for (const [i, a] of out.entries()) {
      if (!reduced(a.data)) continue
      try {
        const whole = await this.call('activity_show', { id: a.id, include_data: true })
        if (whole && typeof whole === 'object' && !reduced(whole.data)) out[i] = { ...a, data: whole.data }
      } catch (e) {
        if (!(e instanceof SourceError)) throw e
      }
    }
    return out.reverse()
  }
}

/** Whether an activity's data is a list's summary ({package: {title}}) rather than the object. */
function reduced(data: unknown): boolean {
  if (!data || typeof data !== 'object') return false
  const d = data as Dict
  const obj = (d.package ?? d.group) as Dict | undefined
  return !!obj && typeof obj === 'object' && obj.id === undefined
}

/**
 * Calls a CKAN site's actions over HTTP with an API key (or token) in the Authorization header;
 * a network error or a 5xx is tried again (3 times, 1 s then 3 s apart).
 */
export function httpCall(baseUrl: string, apiKey: string | undefined, fetchFn: typeof fetch = fetch): SourceCall {
  const base = baseUrl.replace(/\/+$/, '')
  return async (name, params) => {
    let lastError: unknown
    for (const wait of [0, 1000, 3000]) {
      if (wait) await new Promise((r) => setTimeout(r, wait))
      let res: Response
      try {
        res = await fetchFn(`${base}/api/3/action/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: apiKey } : {}) },
          body: JSON.stringify(params),
        })
      } catch (e) {
        lastError = e
        continue
      }
      const text = await res.text()
      let body: Dict | undefined
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      if (body && typeof body.success === 'boolean') {
        if (body.success) return body.result
        const err = (body.error ?? {}) as Dict
        const type = String(err.__type ?? res.status)
        const message =
          typeof err.message === 'string'
            ? err.message
            : Object.entries(err)
                .filter(([k]) => k !== '__type')
                .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : JSON.stringify(v)}`)
                .join('; ')
        if (res.status >= 500) {
          lastError = new SourceError(`${name}: ${message || type}`, type)
          continue
        }
        throw new SourceError(`${name}: ${message || type}`, type)
      }
      lastError = new SourceError(`${name}: HTTP ${res.status} without CKAN's answer`, String(res.status))
      if (res.status < 500) throw lastError
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError))
  }
}

/**
 * Downloads an uploaded resource's file from a CKAN site with the API key, from CKAN's download
 * route on the address the copy was given (`baseUrl`), whatever host the resource's URL names: the
 * site's own site_url may be another name for it, and a URL the source names is never fetched
 * (a source cannot make this process read an address of its own network).
 */
export function httpDownload(baseUrl: string, apiKey: string | undefined, fetchFn: typeof fetch = fetch) {
  const base = baseUrl.replace(/\/+$/, '')
  return async (resource: Dict): Promise<SourceFile | { missing: string }> => {
    if (typeof resource.package_id !== 'string' || typeof resource.id !== 'string')
      return { missing: 'the resource names no dataset' }
    const url = `${base}/dataset/${encodeURIComponent(resource.package_id)}/resource/${encodeURIComponent(resource.id)}/download/${encodeURIComponent(uploadFileName(resource))}`
    let res: Response
    try {
      res = await fetchFn(url, { headers: apiKey ? { authorization: apiKey } : {} })
    } catch (e) {
      return { missing: `download failed: ${(e as Error).message}` }
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel()
      return { missing: `download answered HTTP ${res.status}` }
    }
    const size = Number(res.headers.get('content-length'))
    return {
      body: res.body,
      contentType: res.headers.get('content-type') ?? undefined,
      ...(Number.isFinite(size) && size > 0 ? { size } : {}),
    }
  }
}
