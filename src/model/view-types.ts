// The resource view types (CKAN's view plugins): their keys, defaults and which resources each can show.
import type { Config } from '../config/load'
import { ValidationError } from '../errors'
import { MISSING, toBool } from '../validation/fields'
import { asText } from './package-validate'

/** What a "can view" rule looks at: the resource as its dict shows it. */
export interface ViewableResource {
  url: string
  format: string
  url_type: string | null
  datastore_active: boolean
}

/** Site settings the rules depend on (formats, site URL, the resource proxy). */
export interface ViewEnv {
  siteUrl: string
  proxyEnabled: boolean
  imageFormats: string[]
  textFormats: string[]
  xmlFormats: string[]
  jsonFormats: string[]
  jsonpFormats: string[]
}

/** A plugin key's check: sees the raw value (undefined when absent), returns what to store (undefined: nothing). */
export type KeyCheck = (v: unknown) => unknown

export interface ViewType {
  name: string
  /** The title of views created by default. */
  defaultTitle: string
  /** Accepts filter_fields / filter_values (and returns the derived filters). */
  filterable: boolean
  /** Shows DataStore data: created by default only once the resource has a DataStore table. */
  requiresDatastore: boolean
  keys: Record<string, KeyCheck>
  canView(res: ViewableResource, env: ViewEnv): boolean
}

// ckan: ignore_empty + text: absent, null and '' store nothing
const optionalText: KeyCheck = (v) => (v === undefined || v === null || v === '' ? undefined : asText(v))
// ckan: default(x) + boolean_validator
const boolWithDefault =
  (def: boolean): KeyCheck =>
  (v) =>
    v === undefined || v === null || v === '' ? def : toBool(v)
// ckan: ignore_missing: any value is kept as given
const anyValue: KeyCheck = (v) => (v === null ? undefined : v)

/** chart_view's chart types and aggregates (the Chart tab of a resource page offers the same). */
export const CHART_TYPES = ['bar', 'line', 'scatter'] as const
export const CHART_AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const
// a chart's keys are checked one by one: a bad one is refused with its own field's message
const chartKey =
  (key: string, opts: { required?: boolean; oneOf?: readonly string[]; def?: string } = {}): KeyCheck =>
  (v) => {
    const s = v === undefined || v === null ? '' : asText(v).trim()
    if (s === '') {
      if (opts.required) throw ValidationError.field(key, MISSING)
      return opts.def
    }
    if (opts.oneOf && !opts.oneOf.includes(s)) throw ValidationError.field(key, `Must be one of: ${opts.oneOf.join(', ')}`)
    return s
  }

const RECLINE_FORMATS = ['csv', 'xls', 'xlsx', 'ods', 'tsv']
/** ckanext-geoview's GeoJSONView formats. */
export const GEOJSON_FORMATS = ['gjson', 'geojson']

const lower = (s: string | null | undefined) => (s ?? '').toLowerCase()

/** ckan: a table-only resource (created by datastore_create without a URL). */
const datastoreOnly = (r: ViewableResource) =>
  r.url_type === 'datastore' || r.url.includes('_datastore_only_resource')

/** Scheme, host and port of a URL as CKAN's compare_domains sees them (host-less URLs are relative). */
function domainOf(url: string): string | undefined {
  let u = url.toLowerCase()
  if (!/^[a-z][a-z0-9+.-]*:/.test(u) && !u.startsWith('/')) u = '//' + u
  const m = /^(?:([a-z][a-z0-9+.-]*):)?(?:\/\/([^/?#]*))?/.exec(u)
  if (!m) return undefined
  const netloc = (m[2] ?? '').replace(/^.*@/, '')
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(netloc)
  if (!hp) return undefined
  return `${m[1] ?? 'http'}|${hp[1] || ''}|${hp[2] || ''}`
}

/** ckan on_same_domain: the resource URL has the site URL's scheme, host and port. */
export function onSameDomain(siteUrl: string, url: string): boolean {
  const a = domainOf(siteUrl)
  return a !== undefined && a === domainOf(url)
}

export const VIEW_TYPES: readonly ViewType[] = [
  {
    name: 'image_view',
    defaultTitle: 'Image',
    filterable: false,
    requiresDatastore: false,
    keys: { image_url: optionalText },
    canView: (r, env) => env.imageFormats.includes(lower(r.format)),
  },
  {
    name: 'webpage_view',
    defaultTitle: 'Website',
    filterable: false,
    requiresDatastore: false,
    keys: { page_url: optionalText },
    // ckan: the URL's extension is compared as it is, the format in lower case
    canView: (r) =>
      ['html', 'htm'].includes(lower(r.format)) || ['html', 'htm'].includes(r.url.split('.').pop()!),
  },
  {
    name: 'text_view',
    defaultTitle: 'Text',
    filterable: false,
    requiresDatastore: false,
    keys: {},
    // ckan: JSONP loads from anywhere; other text needs the resource proxy or the site's own domain
    canView(r, env) {
      const f = lower(r.format)
      if (env.jsonpFormats.includes(f)) return true
      if ([...env.textFormats, ...env.xmlFormats, ...env.jsonFormats].includes(f))
        return env.proxyEnabled || onSameDomain(env.siteUrl, r.url)
      return false
    },
  },
  {
    name: 'recline_view',
    defaultTitle: 'Data Explorer',
    filterable: true,
    requiresDatastore: false,
    keys: {},
    canView: (r) => r.datastore_active || datastoreOnly(r) || RECLINE_FORMATS.includes(lower(r.format)),
  },
  {
    name: 'recline_grid_view',
    defaultTitle: 'Table',
    filterable: true,
    requiresDatastore: true,
    keys: {},
    canView: (r) => r.datastore_active || datastoreOnly(r),
  },
  {
    name: 'datatables_view',
    defaultTitle: 'Table',
    filterable: true,
    requiresDatastore: true,
    keys: {
      responsive: boolWithDefault(false),
      show_fields: anyValue,
      filterable: boolWithDefault(true),
    },
    canView: (r) => r.datastore_active,
  },
  // ckanext-geoview's types. The server reads the data (the file, the DataStore table, the
  // service's capabilities), as the resource proxy would for the browser, so the format alone
  // decides (geoview also asks for the site's own domain or the resource proxy).
  {
    name: 'geojson_view',
    defaultTitle: 'GeoJSON',
    filterable: false,
    requiresDatastore: false,
    keys: {},
    // created by hand, it also shows a DataStore table with lat/lon or geometry columns
    canView: (r) => GEOJSON_FORMATS.includes(lower(r.format)),
  },
  {
    name: 'wms_view',
    defaultTitle: 'WMS',
    filterable: false,
    requiresDatastore: false,
    keys: {},
    canView: (r) => lower(r.format) === 'wms',
  },
  {
    name: 'wmts_view',
    defaultTitle: 'WMTS',
    filterable: false,
    requiresDatastore: false,
    keys: {},
    canView: (r) => lower(r.format) === 'wmts',
  },
  // beyond CKAN: a chart of a DataStore table drawn by the server (src/web/charts.tsx); the columns
  // are checked against the table when it is drawn, since a table's columns may change after
  {
    name: 'chart_view',
    defaultTitle: 'Chart',
    filterable: false,
    requiresDatastore: true,
    keys: {
      chart_type: chartKey('chart_type', { oneOf: CHART_TYPES, def: 'bar' }),
      x: chartKey('x', { required: true }),
      y: chartKey('y'),
      group_by: chartKey('group_by'),
      aggregate: chartKey('aggregate', { oneOf: CHART_AGGREGATES }),
    },
    // never made by default: a chart needs its columns chosen
    canView: () => false,
  },
]

const BY_NAME = new Map(VIEW_TYPES.map((t) => [t.name, t]))

/** The view type of this name if its plugin is enabled (service.views.plugins), else undefined. */
export function enabledViewType(config: Config, name: string): ViewType | undefined {
  return config.list('service.views.plugins').includes(name) ? BY_NAME.get(name) : undefined
}

/**
 * ckan get_default_view_plugins: the enabled types named in service.views.default_views, in that
 * order, that need the DataStore (`datastore`) or do not.
 */
export function defaultViewTypes(config: Config, datastore: boolean): ViewType[] {
  const out: ViewType[] = []
  for (const name of config.list('service.views.default_views')) {
    const t = enabledViewType(config, name)
    if (t && t.requiresDatastore === datastore && !out.includes(t)) out.push(t)
  }
  return out
}

/** The config of a view of this type given no keys (the keys' defaults), as default views get. */
export function defaultConfig(type: ViewType): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  for (const [key, check] of Object.entries(type.keys)) {
    const v = check(undefined)
    if (v !== undefined) config[key] = v
  }
  return config
}

export function viewEnv(config: Config): ViewEnv {
  // ckan: an empty text-format option falls back to the default list
  const formats = (key: string, def: string[]) => {
    const v = config.list(key)
    return v.length ? v : def
  }
  return {
    siteUrl: config.str('service.site_url'),
    proxyEnabled: config.list('service.plugins').includes('resource_proxy'),
    imageFormats: config.list('service.preview.image_formats'),
    textFormats: formats('service.preview.text_formats', ['text/plain', 'txt', 'plain']),
    xmlFormats: formats('service.preview.xml_formats', ['xml', 'rdf', 'rdf+xml', 'owl+xml', 'atom', 'rss']),
    jsonFormats: formats('service.preview.json_formats', ['json']),
    jsonpFormats: formats('service.preview.jsonp_formats', ['jsonp']),
  }
}

/** The "can view" input of a resource dict (package_show's form). */
export function viewableOf(res: Record<string, unknown>): ViewableResource {
  return {
    url: typeof res.url === 'string' ? res.url : '',
    format: typeof res.format === 'string' ? res.format : '',
    url_type: typeof res.url_type === 'string' ? res.url_type : null,
    datastore_active: res.datastore_active === true,
  }
}
