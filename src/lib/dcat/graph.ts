// RDF from dataset dicts, profile by profile as ckanext-dcat names them: DCAT-AP 3 (the mapping of
// its euro_dcat_ap profiles), schema.org (schemaorg) and Croissant 1.0 (croissant); a catalogue
// with Hydra paging; quads for the serialisers. Pure: the callers pass the site's settings.
import { DataFactory, type Quad, type Term } from 'n3'
import { NS } from './ns'
import { SchemingDcat, dateLiteral, geoJsonToWkt, repeating, uriOrLiteral } from './scheming'
import { boxPolygon, geoJsonBounds } from '../wkt'

const { namedNode, literal, blankNode, quad } = DataFactory

export { NS }

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)
const iri = (prefix: keyof typeof NS, local: string) => namedNode(NS[prefix] + local)
const a = iri('rdf', 'type')

/** The datatype ckanext-dcat gives GeoJSON literals (GEOJSON_IMT). */
export const GEOJSON_IMT = 'https://www.iana.org/assignments/media-types/application/vnd.geo+json'

/** A dataset's field (a schema's) or else its extra of that key. */
const fieldOrExtra = (d: Dict, key: string): unknown =>
  d[key] ?? ((d.extras ?? []) as Dict[]).find?.((e) => e.key === key)?.value
/** GeoJSON as text: a string as it is, an object as JSON. */
const geoText = (v: unknown) => (typeof v === 'string' ? str(v) : v && typeof v === 'object' ? JSON.stringify(v) : undefined)
const tryJson = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

/** An ISO timestamp as CKAN stores it (UTC, no zone) → xsd:dateTime. */
const dateTime = (v: unknown) => {
  const s = str(v)
  return s && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/.test(s) ? literal(s, iri('xsd', 'dateTime')) : undefined
}

/** An absolute http(s) URL (a relative one is made absolute on `base`), else undefined. */
function absolute(u: unknown, base: string): string | undefined {
  const s = str(u)
  if (!s) return undefined
  try {
    const url = new URL(s, base + '/')
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

/** ckanext-dcat's dataset URI: a `uri` field, an extra `uri`, else <catalogue URI>/dataset/<id>. */
export const datasetUri = (base: string, d: Dict) =>
  str(d.uri) ?? str(d.extras?.find?.((e: Dict) => e.key === 'uri' && e.value !== 'None')?.value) ?? `${base}/dataset/${d.id}`

/** ckanext-dcat's resource URI: a `uri` field, else <catalogue URI>/dataset/<dataset id>/resource/<id>. */
export const resourceUri = (base: string, d: Dict, r: Dict) =>
  (str(r.uri) && r.uri !== 'None' ? str(r.uri) : undefined) ?? `${base}/dataset/${r.package_id ?? d.id}/resource/${r.id}`

/** What ckanext-dcat's pagination_info holds (absent keys are not written). */
export interface PaginationInfo {
  count: number
  items_per_page: number
  current: string
  first: string
  last: string
  next?: string
  previous?: string
}

/** The site as the profiles see it (ckan.site_title, site_description, site_url). */
export interface SiteInfo {
  title: string
  description: string
  /** the site's URL, no trailing slash (web pages, organization pages) */
  url: string
}

export class GraphBuilder {
  readonly quads: Quad[] = []
  /**
   * `base`: the site URL (links to pages); `uriBase`: the catalogue URI that dataset and resource
   * URIs start with (ckanext.dcat.base_uri, else the site URL), no trailing slash.
   */
  constructor(
    private readonly base: string,
    private readonly uriBase: string = base,
    private readonly spatialFormats: readonly string[] = ['wkt', 'geojson'],
  ) {}

  /**
   * A geometry's literals, as ckanext-dcat's _add_spatial_value_to_graph writes them: WKT (4
   * decimals, gsp:wktLiteral) and GeoJSON (typed with the GeoJSON media type's IANA IRI), as the
   * formats setting asks; nothing for a value that is not a GeoJSON geometry.
   */
  private geoLiterals(s: Term, p: Term, geojson: string) {
    let value: unknown
    try {
      value = JSON.parse(geojson)
    } catch {
      return
    }
    if (!value || typeof value !== 'object' || typeof (value as Dict).type !== 'string') return
    if (this.spatialFormats.includes('wkt')) {
      const w = geoJsonToWkt(value)
      this.add(s, p, w ? literal(w, iri('gsp', 'wktLiteral')) : undefined)
    }
    if (this.spatialFormats.includes('geojson')) this.add(s, p, literal(JSON.stringify(value), namedNode(GEOJSON_IMT)))
  }

  /**
   * dct:spatial of a dataset's `spatial` geometry (an extra or a schema field, GeoJSON): a
   * dct:Location with locn:geometry, and dcat:bbox / dcat:centroid from `spatial_bbox` /
   * `spatial_centroid` (ckanext-dcat's names); without a spatial_bbox the geometry's bounding box
   * is written (ckanext-dcat writes dcat:bbox only from spatial_bbox). A `spatial_uri` names the
   * location, a `spatial_text` labels it.
   */
  private spatial(node: Term, d: Dict) {
    const geom = geoText(fieldOrExtra(d, 'spatial'))
    let bbox = geoText(fieldOrExtra(d, 'spatial_bbox'))
    const centroid = geoText(fieldOrExtra(d, 'spatial_centroid'))
    const label = str(fieldOrExtra(d, 'spatial_text'))
    const uri = str(fieldOrExtra(d, 'spatial_uri'))
    if (!geom && !bbox && !centroid && !label && !uri) return
    if (!bbox && geom) {
      const b = geoJsonBounds(tryJson(geom))
      if (b) bbox = JSON.stringify(boxPolygon(b))
    }
    const loc = uri && /^https?:\/\//.test(uri) ? namedNode(uri) : blankNode()
    this.add(node, iri('dct', 'spatial'), loc)
    this.add(loc, a, iri('dct', 'Location'))
    if (label) this.add(loc, iri('skos', 'prefLabel'), literal(label))
    if (geom) this.geoLiterals(loc, iri('locn', 'geometry'), geom)
    if (bbox) this.geoLiterals(loc, iri('dcat', 'bbox'), bbox)
    if (centroid) this.geoLiterals(loc, iri('dcat', 'centroid'), centroid)
  }

  private add(s: Term, p: Term, o: Term | undefined) {
    if (o) this.quads.push(quad(s as never, p as never, o as never))
  }

  private agent(name: string, homepage?: string) {
    const node = blankNode()
    this.add(node, a, iri('foaf', 'Agent'))
    this.add(node, iri('foaf', 'name'), literal(name))
    if (homepage) this.add(node, iri('foaf', 'homepage'), this.document(homepage))
    return node
  }

  /** A foaf:Document (the range DCAT-AP gives homepages and landing pages). */
  private document(url: string) {
    const doc = namedNode(url)
    this.add(doc, a, iri('foaf', 'Document'))
    return doc
  }

  /** The dataset with its distributions; returns its IRI node. */
  dataset(d: Dict) {
    const base = this.base
    const node = namedNode(datasetUri(this.uriBase, d))
    this.add(node, a, iri('dcat', 'Dataset'))
    this.add(node, iri('dct', 'title'), literal(str(d.title) ?? d.name))
    this.add(node, iri('dct', 'description'), literal(str(d.notes) ?? str(d.title) ?? d.name))
    // a schema's `identifier`, `issued` and `modified` fields (ckanext-dcat's names) come first
    // (always a literal, as DCAT-AP 3's shapes want it; ckanext-dcat makes an http value an IRI)
    this.add(node, iri('dct', 'identifier'), literal(str(d.identifier) ?? str(d.extras?.find?.((e: Dict) => e.key === 'identifier')?.value) ?? d.id))
    for (const t of (d.tags ?? []) as Dict[]) this.add(node, iri('dcat', 'keyword'), literal(String(t.name)))
    this.add(node, iri('dct', 'issued'), dateLiteral(d.issued) ?? dateTime(d.metadata_created))
    this.add(node, iri('dct', 'modified'), dateLiteral(d.modified) ?? dateTime(d.metadata_modified))
    this.add(node, iri('owl', 'versionInfo'), str(d.version) ? literal(d.version) : undefined)
    const landing = absolute(d.url, base)
    if (landing) {
      const doc = namedNode(landing)
      this.add(node, iri('dcat', 'landingPage'), doc)
      this.add(doc, a, iri('foaf', 'Document'))
    }
    const schema = new SchemingDcat((s, p, o) => this.add(s, p, o))
    // publisher and contact points: a schema's `publisher` and `contact` lists, else the
    // organization and the maintainer (or author)
    const org = d.organization as Dict | null
    const publishers = repeating(d.publisher)
    if (publishers) schema.agents(node, iri('dct', 'publisher'), publishers)
    else if (org) this.add(node, iri('dct', 'publisher'), this.agent(str(org.title) ?? org.name, `${base}/organization/${encodeURIComponent(org.name)}`))
    const contacts = repeating(d.contact)
    const contactName = contacts ? undefined : (str(d.maintainer) ?? str(d.author))
    const contactEmail = contacts ? undefined : (str(d.maintainer_email) ?? str(d.author_email))
    if (contacts) schema.contacts(node, contacts)
    if (contactName || contactEmail) {
      const kind = blankNode()
      this.add(node, iri('dcat', 'contactPoint'), kind)
      this.add(kind, a, iri('vcard', 'Kind'))
      if (contactName) this.add(kind, iri('vcard', 'fn'), literal(contactName))
      if (contactEmail && /^[^@\s]+@[^@\s]+$/.test(contactEmail)) this.add(kind, iri('vcard', 'hasEmail'), namedNode(`mailto:${contactEmail}`))
    }
    schema.dataset(node, d)
    this.spatial(node, d)
    const license = absolute(d.license_url, base)
    for (const r of (d.resources ?? []) as Dict[]) {
      const dist = namedNode(resourceUri(this.uriBase, d, r))
      this.add(node, iri('dcat', 'distribution'), dist)
      this.add(dist, a, iri('dcat', 'Distribution'))
      this.add(dist, iri('dct', 'title'), str(r.name) ? literal(r.name) : undefined)
      this.add(dist, iri('dct', 'description'), str(r.description) ? literal(r.description) : undefined)
      const url = absolute(r.url, base)
      // DCAT-AP: an access URL always (a schema's `access_url` first); an upload or a DataStore
      // dump is also a download URL (a schema's `download_url` first)
      const accessUrl = absolute(r.access_url, base)
      const downloadUrl = absolute(r.download_url, base)
      this.add(dist, iri('dcat', 'accessURL'), namedNode(accessUrl ?? url ?? `${base}/dataset/${d.id}/resource/${r.id}`))
      if (downloadUrl) this.add(dist, iri('dcat', 'downloadURL'), namedNode(downloadUrl))
      else if (url && (r.url_type === 'upload' || r.url_type === 'datastore')) this.add(dist, iri('dcat', 'downloadURL'), namedNode(url))
      const format = str(r.format)
      if (format) {
        const f = blankNode()
        this.add(dist, iri('dct', 'format'), f)
        this.add(f, a, iri('dct', 'MediaTypeOrExtent'))
        this.add(f, iri('rdfs', 'label'), literal(format))
      }
      const mime = str(r.mimetype)
      if (mime && /^[\w.+-]+\/[\w.+-]+$/.test(mime)) {
        const m = namedNode(`https://www.iana.org/assignments/media-types/${mime}`)
        this.add(dist, iri('dcat', 'mediaType'), m)
        this.add(m, a, iri('dct', 'MediaType'))
      }
      // the resource's own `license` (a schema field) before the dataset's
      const own = uriOrLiteral(r.license)
      const l = own ?? (license ? namedNode(license) : undefined)
      this.add(dist, iri('dct', 'license'), l)
      if (l?.termType === 'NamedNode') this.add(l, a, iri('dct', 'LicenseDocument'))
      if (typeof r.size === 'number' && Number.isInteger(r.size) && r.size >= 0) this.add(dist, iri('dcat', 'byteSize'), literal(String(r.size), iri('xsd', 'nonNegativeInteger')))
      this.add(dist, iri('dct', 'issued'), dateLiteral(r.issued) ?? dateTime(r.created))
      this.add(dist, iri('dct', 'modified'), dateLiteral(r.modified) ?? dateTime(r.last_modified ?? r.metadata_modified))
      schema.distribution(dist, r)
    }
    return node
  }

  /** The catalogue's own node (its URI is the catalogue URI, as ckanext-dcat's catalog_uri()). */
  catalogNode() {
    return namedNode(this.uriBase)
  }

  /** The dcat:Catalog record of the site (euro_dcat_ap profiles). */
  catalog(site: { title: string; description: string }) {
    const node = this.catalogNode()
    this.add(node, a, iri('dcat', 'Catalog'))
    this.add(node, iri('dct', 'title'), literal(site.title || 'CKAN'))
    this.add(node, iri('dct', 'description'), literal(site.description || site.title || 'CKAN'))
    this.add(node, iri('foaf', 'homepage'), this.document(`${this.base}/`))
    this.add(node, iri('dct', 'publisher'), this.agent(site.title || 'CKAN', `${this.base}/`))
    return node
  }

  /** dcat:dataset from the catalogue to each dataset node (every profile, as ckanext-dcat). */
  listDataset(dataset: Term) {
    this.add(this.catalogNode(), iri('dcat', 'dataset'), dataset)
  }

  /**
   * Hydra paging of a catalogue page, as ckanext-dcat writes it: a hydra:PagedCollection named by
   * the current page's URL, with both the deprecated predicates (firstPage, nextPage, …) and
   * their successors (first, next, …); URLs as plain literals, counts as xsd:integer.
   */
  paging(info: PaginationInfo) {
    const node = namedNode(info.current)
    this.add(node, a, iri('hydra', 'PagedCollection'))
    const pairs: [keyof PaginationInfo, string[]][] = [
      ['next', ['nextPage', 'next']],
      ['previous', ['previousPage', 'previous']],
      ['first', ['firstPage', 'first']],
      ['last', ['lastPage', 'last']],
      ['count', ['totalItems']],
      ['items_per_page', ['itemsPerPage']],
    ]
    for (const [key, predicates] of pairs) {
      const v = info[key]
      if (v === undefined || v === '' || v === 0) continue
      for (const p of predicates) this.add(node, iri('hydra', p), typeof v === 'number' ? literal(String(v), iri('xsd', 'integer')) : literal(v))
    }
  }

  // ---- schema.org (ckanext-dcat's schemaorg profile) ----

  /** A schema:Dataset, http://schema.org/ as that profile writes it. */
  schemaOrgDataset(d: Dict, site: SiteInfo) {
    const s = (local: string) => iri('schema', local)
    const node = namedNode(datasetUri(this.uriBase, d))
    this.add(node, a, s('Dataset'))
    this.add(node, s('name'), literal(str(d.title) ?? d.name))
    this.add(node, s('description'), str(d.notes) ? literal(d.notes) : undefined)
    this.add(node, s('identifier'), literal(str(d.extras?.find?.((e: Dict) => e.key === 'identifier')?.value) ?? d.id))
    this.add(node, s('version'), str(d.version) ? literal(d.version) : undefined)
    this.add(node, s('url'), literal(`${site.url}/dataset/${d.name}`))
    this.add(node, s('datePublished'), dateTime(d.metadata_created))
    this.add(node, s('dateModified'), dateTime(d.metadata_modified))
    this.add(node, s('license'), str(d.license_url) ? literal(d.license_url) : str(d.license_title) ? literal(d.license_title) : undefined)
    for (const t of (d.tags ?? []) as Dict[]) this.add(node, s('keywords'), literal(String(t.name)))
    const catalog = blankNode()
    this.add(node, s('includedInDataCatalog'), catalog)
    this.add(catalog, a, s('DataCatalog'))
    this.add(catalog, s('name'), literal(site.title || 'CKAN'))
    this.add(catalog, s('description'), site.description ? literal(site.description) : undefined)
    this.add(catalog, s('url'), literal(site.url))
    const org = d.organization as Dict | null
    if (org) {
      const pub = blankNode()
      this.add(node, s('publisher'), pub)
      this.add(pub, a, s('Organization'))
      this.add(pub, s('name'), literal(str(org.title) ?? org.name))
      this.add(pub, s('url'), literal(`${site.url}/organization/${org.name}`))
    }
    for (const g of (d.groups ?? []) as Dict[]) {
      const about = blankNode()
      this.add(node, s('about'), about)
      this.add(about, a, s('Thing'))
      this.add(about, s('name'), literal(str(g.title) ?? g.name))
      this.add(about, s('url'), literal(`${site.url}/group/${g.name}`))
    }
    for (const r of (d.resources ?? []) as Dict[]) {
      const dist = namedNode(resourceUri(this.uriBase, d, r))
      this.add(node, s('distribution'), dist)
      this.add(dist, a, s('DataDownload'))
      this.add(dist, s('name'), str(r.name) ? literal(r.name) : undefined)
      this.add(dist, s('description'), str(r.description) ? literal(r.description) : undefined)
      this.add(dist, s('encodingFormat'), str(r.format) ? literal(r.format) : str(r.mimetype) ? literal(r.mimetype) : undefined)
      this.add(dist, s('contentUrl'), str(r.url) ? literal(r.url) : undefined)
      this.add(dist, s('datePublished'), dateTime(r.created))
      this.add(dist, s('dateModified'), dateTime(r.last_modified ?? r.metadata_modified))
      if (typeof r.size === 'number' && Number.isInteger(r.size) && r.size >= 0) this.add(dist, s('contentSize'), literal(String(r.size)))
    }
    return node
  }

  /** The catalogue as a schema:DataCatalog (schemaorg profile). */
  schemaOrgCatalog(site: SiteInfo) {
    const node = this.catalogNode()
    this.add(node, a, iri('schema', 'DataCatalog'))
    this.add(node, iri('schema', 'name'), literal(site.title || 'CKAN'))
    this.add(node, iri('schema', 'description'), site.description ? literal(site.description) : undefined)
    this.add(node, iri('schema', 'url'), literal(site.url))
    return node
  }

  // ---- Croissant 1.0 (ckanext-dcat's croissant profile) ----

  /**
   * A Croissant dataset: https://schema.org/ terms with mlcommons' cr: vocabulary, each resource a
   * cr:FileObject, and each DataStore table (`tables`: resource id → its fields) a cr:RecordSet.
   */
  croissantDataset(d: Dict, site: SiteInfo, tables: Map<string, { id: string; type: string; is_index?: boolean }[]> = new Map()) {
    const s = (local: string) => iri('sc', local)
    const cr = (local: string) => iri('cr', local)
    const node = namedNode(datasetUri(this.uriBase, d))
    this.add(node, a, s('Dataset'))
    this.add(node, iri('dct', 'conformsTo'), literal('http://mlcommons.org/croissant/1.0'))
    this.add(node, s('name'), literal(str(d.title) ?? d.name))
    this.add(node, s('description'), str(d.notes) ? literal(d.notes) : undefined)
    this.add(node, s('version'), str(d.version) ? literal(d.version) : undefined)
    this.add(node, cr('citeAs'), str(d.cite_as) ? literal(d.cite_as) : undefined)
    this.add(node, s('license'), str(d.license) ? literal(d.license) : str(d.license_url) ? literal(d.license_url) : str(d.license_title) ? literal(d.license_title) : undefined)
    this.add(node, s('datePublished'), dateTime(d.issued ?? d.metadata_created))
    this.add(node, s('dateModified'), dateTime(d.modified ?? d.metadata_modified))
    this.add(node, s('url'), literal(`${site.url}/dataset/${d.name}`))
    const catalog = blankNode()
    this.add(node, s('includedInDataCatalog'), catalog)
    this.add(catalog, a, s('DataCatalog'))
    this.add(catalog, s('name'), literal(site.title))
    this.add(catalog, s('description'), literal(site.description))
    this.add(catalog, s('url'), literal(site.url))
    for (const g of (d.groups ?? []) as Dict[]) {
      const about = blankNode()
      this.add(node, s('about'), about)
      this.add(about, a, s('Thing'))
      this.add(about, s('name'), literal(String(g.name)))
      this.add(about, s('url'), literal(`${site.url}/group/${g.id}`))
    }
    for (const t of (d.tags ?? []) as Dict[]) this.add(node, s('keywords'), literal(String(t.name)))
    // the creator: the organization when the dataset names none (as the profile does)
    const org = d.organization as Dict | null
    if (org) {
      const creator = namedNode(String(org.id))
      this.add(node, s('creator'), creator)
      this.add(creator, a, s('Organization'))
      this.add(creator, s('name'), literal(str(org.title) ?? org.name))
      const email = str(d.maintainer_email) ?? str(d.author_email)
      this.add(creator, s('email'), email ? literal(email) : undefined)
      this.add(creator, s('url'), literal(site.url))
    }
    for (const r of (d.resources ?? []) as Dict[]) {
      const file = namedNode(resourceUri(this.uriBase, d, r))
      this.add(node, s('distribution'), file)
      this.add(file, a, cr('FileObject'))
      this.add(file, s('name'), str(r.name) ? literal(r.name) : undefined)
      const hash = str(r.hash)
      if (hash && (hash.length === 32 || hash.length === 64)) this.add(file, s(hash.length === 32 ? 'md5' : 'sha256'), literal(hash))
      this.add(file, s('description'), str(r.description) ? literal(r.description) : undefined)
      this.add(file, s('encodingFormat'), str(r.mimetype) ? literal(r.mimetype) : str(r.format) ? literal(r.format) : undefined)
      this.add(file, s('contentUrl'), str(r.url) ? literal(r.url) : undefined)
      if (r.size !== null && r.size !== undefined && r.size !== '' && r.size !== 0) this.add(file, s('contentSize'), literal(String(r.size)))
      const fields = tables.get(r.id)
      if (!fields?.length) continue
      const records = namedNode(`${r.id}/records`)
      this.add(records, a, cr('RecordSet'))
      for (const f of fields) {
        const field = namedNode(`${r.id}/records/${f.id}`)
        this.add(records, cr('field'), field)
        this.add(field, a, cr('Field'))
        const type = CROISSANT_TYPES[f.type]
        if (type) this.add(field, cr('dataType'), s(type))
        const source = blankNode()
        this.add(field, cr('source'), source)
        this.add(source, cr('fileObject'), file)
        const extract = blankNode()
        this.add(source, cr('extract'), extract)
        this.add(extract, cr('column'), literal(f.id))
        if (f.is_index) this.add(records, cr('key'), field)
      }
      this.add(node, cr('recordSet'), records)
    }
    return node
  }
}

/** DataStore column types → schema.org data types (ckanext-dcat's Croissant mapping). */
const CROISSANT_TYPES: Record<string, string> = {
  text: 'Text',
  int: 'Integer',
  int4: 'Integer',
  int8: 'Integer',
  float: 'Float',
  float4: 'Float',
  float8: 'Float',
  numeric: 'Float',
  'double precision': 'Float',
  timestamp: 'Date',
}
