// ckanext-dcat's profile names and what this catalogue writes for each; the documents a dataset and
// a catalogue page make with a list of profiles (ckanext-dcat's RDFSerializer, profile by profile
// on one graph).
import type { Quad } from 'n3'
import { GraphBuilder, type PaginationInfo, type SiteInfo } from './graph'

/** The graph a profile adds to. */
export type ProfileKind = 'dcat_ap' | 'schemaorg' | 'croissant'

/**
 * ckanext-dcat's profiles (its `ckan.rdf.profiles` entry points) → the mapping written here: every
 * DCAT-AP flavour (1, 2, 3, scheming, HealthDCAT-AP) and DCAT-US 3 get the DCAT-AP 3 mapping.
 */
export const PROFILES: Record<string, ProfileKind> = {
  euro_dcat_ap: 'dcat_ap',
  euro_dcat_ap_2: 'dcat_ap',
  euro_dcat_ap_3: 'dcat_ap',
  euro_dcat_ap_scheming: 'dcat_ap',
  euro_health_dcat_ap: 'dcat_ap',
  dcat_us_3: 'dcat_ap',
  schemaorg: 'schemaorg',
  croissant: 'croissant',
}

/** ckanext-dcat's default (ckanext.dcat.rdf.profiles). */
export const DEFAULT_PROFILES = ['euro_dcat_ap_3']

export class UnknownProfiles extends Error {}

/**
 * The kinds of graph for `names` (empty or absent: `defaults`), in order, without repeats; unknown
 * names throw ckanext-dcat's "Unknown RDF profiles: a, b" (sorted).
 */
export function profileKinds(names: readonly string[] | undefined, defaults: readonly string[] = DEFAULT_PROFILES): ProfileKind[] {
  const wanted = names?.length ? names : defaults.length ? defaults : DEFAULT_PROFILES
  const unknown = [...new Set(wanted.filter((n) => !Object.hasOwn(PROFILES, n)))].sort()
  if (unknown.length) throw new UnknownProfiles(`Unknown RDF profiles: ${unknown.join(', ')}`)
  return [...new Set(wanted.map((n) => PROFILES[n]!))]
}

/** `profiles` as the endpoints and actions take it: a comma-separated string or a list. */
export function profileNames(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const list = Array.isArray(v) ? v.map(String) : String(v).split(',')
  const names = list.map((s) => s.trim()).filter(Boolean)
  return names.length ? names : undefined
}

type Dict = Record<string, any>
export interface DocumentSite extends SiteInfo {
  /** the catalogue URI (ckanext.dcat.base_uri, else the site URL), no trailing slash */
  uri: string
  /** ckanext.dcat.output_spatial_format: the literals of a dataset's geometry (wkt, geojson) */
  spatialFormats?: readonly string[]
}

/** DataStore fields per resource id, for Croissant's record sets. */
export type Tables = Map<string, { id: string; type: string; is_index?: boolean }[]>

function addDataset(b: GraphBuilder, kinds: ProfileKind[], d: Dict, site: DocumentSite, tables?: Tables) {
  let node
  for (const k of kinds) {
    if (k === 'dcat_ap') node = b.dataset(d)
    else if (k === 'schemaorg') node = b.schemaOrgDataset(d, site)
    else node = b.croissantDataset(d, site, tables)
  }
  return node!
}

/** One dataset's graph under the profiles. */
export function datasetGraph(kinds: ProfileKind[], d: Dict, site: DocumentSite, tables?: Tables): Quad[] {
  const b = new GraphBuilder(site.url, site.uri, site.spatialFormats)
  addDataset(b, kinds, d, site, tables)
  return b.quads
}

/** A catalogue page's graph: the catalogue, its datasets, and the paging (when there is any). */
export function catalogGraph(kinds: ProfileKind[], site: DocumentSite, datasets: Dict[], pagination?: PaginationInfo): Quad[] {
  const b = new GraphBuilder(site.url, site.uri, site.spatialFormats)
  for (const k of kinds) {
    if (k === 'dcat_ap') b.catalog(site)
    else if (k === 'schemaorg') b.schemaOrgCatalog(site)
  }
  for (const d of datasets) b.listDataset(addDataset(b, kinds, d, site))
  if (pagination) b.paging(pagination)
  return b.quads
}
