// DCAT-AP 3 from the top-level fields a ckanext-scheming schema gives a dataset, under the names
// ckanext-dcat's schemas use (contact, publisher, creator, temporal_coverage, spatial_coverage,
// frequency, theme, access_services, …) and mapped as its euro_dcat_ap_2/3 and
// euro_dcat_ap_scheming profiles map them. Pure: the graph builder passes its `add`.
import { DataFactory, type Term } from 'n3'
import { NS } from './ns'

const { namedNode, literal, blankNode } = DataFactory

type Dict = Record<string, any>
export type Add = (s: Term, p: Term, o: Term | undefined) => void

const iri = (prefix: keyof typeof NS, local: string) => namedNode(NS[prefix] + local)
const a = iri('rdf', 'type')
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return typeof v === 'string' && v.trim() !== '' ? v : undefined
}

/** Some value in the dict is set (ckanext-dcat's _not_empty_dict). */
export const notEmptyDict = (v: unknown): v is Dict => isDict(v) && Object.values(v).some((x) => x !== '' && x !== null && x !== undefined && x !== false && !(Array.isArray(x) && !x.length))

/** A repeating-subfields value whose first item holds something (what the profile checks). */
export const repeating = (v: unknown): Dict[] | undefined => (Array.isArray(v) && v.length && notEmptyDict(v[0]) ? v.filter(notEmptyDict) : undefined)

/** ckanext-dcat's CleanedURIRef: the value trimmed, a few characters percent-encoded. */
export function cleanUri(v: string): string {
  return v.trim().replace(/[ !"$'()*,;<>[\]{|}\\^`]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'))
}

/** An IRI node for an absolute value (a scheme), else undefined: a relative IRI has no place in a document. */
const absoluteNode = (v: unknown) => {
  const s = text(v)
  return s && /^[a-zA-Z][a-zA-Z0-9+.-]*:\S/.test(s.trim()) ? namedNode(cleanUri(s)) : undefined
}

/** ckanext-dcat's URIRefOrLiteral: an http(s) value is an IRI, anything else a literal. */
export function uriOrLiteral(v: unknown, lang?: string) {
  const s = text(v)
  if (s === undefined) return undefined
  return /^https?:\/\//.test(s.trim()) ? namedNode(cleanUri(s)) : literal(s, lang)
}

/**
 * ckanext-dcat's _add_date_triple: YYYY as xsd:gYear, YYYY-MM as xsd:gYearMonth, YYYY-MM-DD as
 * xsd:date, a date and time as xsd:dateTime, anything else a plain literal.
 */
export function dateLiteral(v: unknown) {
  const s = text(v)?.trim()
  if (!s) return undefined
  if (/^\d{4}$/.test(s)) return literal(s, iri('xsd', 'gYear'))
  if (/^\d{4}-\d\d$/.test(s)) return literal(s, iri('xsd', 'gYearMonth'))
  if (/^\d{4}-\d\d-\d\d$/.test(s)) return literal(s, iri('xsd', 'date'))
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)(Z|[+-]\d\d:?\d\d)?$/.exec(s)
  if (m) {
    const time = m[2]!.length === 5 ? `${m[2]}:00` : m[2]
    const zone = m[3] === 'Z' ? '+00:00' : m[3] && !m[3].includes(':') ? `${m[3].slice(0, 3)}:${m[3].slice(3)}` : (m[3] ?? '')
    return literal(`${m[1]}T${time}${zone}`, iri('xsd', 'dateTime'))
  }
  return literal(s)
}

/** ckanext-dcat's _read_list_value: a list, a JSON list, a comma-separated string, or one value. */
export function listItems(v: unknown): unknown[] {
  if (Array.isArray(v)) return v
  if (typeof v === 'number') return [v]
  if (typeof v !== 'string' || v === '') return []
  try {
    const parsed = JSON.parse(v)
    if (Array.isArray(parsed)) return parsed
    if (typeof parsed === 'number') return [parsed]
  } catch {
    // not JSON
  }
  return v.includes(',') ? v.split(',') : [v]
}

/** A decimal literal (xsd:decimal) for a number or numeric text, else a plain literal. */
function decimal(v: unknown) {
  const s = text(v)?.trim()
  if (s === undefined) return undefined
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(s) ? literal(s.replace(/^\+/, ''), iri('xsd', 'decimal')) : literal(s)
}

const mailto = (v: unknown) => {
  const s = text(v)
  return s ? namedNode(cleanUri('mailto:' + s.trim().replace(/^mailto:/, ''))) : undefined
}

/** A literal per language for a fluent dict ({en: "…"}), else one literal. */
function literals(v: unknown) {
  if (isDict(v)) return Object.entries(v).flatMap(([lang, x]) => (Array.isArray(x) ? x : [x]).filter((y) => text(y)).map((y) => literal(String(y), lang)))
  const s = text(v)
  return s ? [literal(s)] : []
}

// ---- GeoJSON → WKT, as geomet's wkt.dumps(…, decimals=4) writes it (ckanext-dcat's default output) ----

function num(n: unknown): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error('not a coordinate')
  const s = String(Math.round(n * 1e4) / 1e4 + 0)
  const [int, frac = ''] = s.split('.')
  return `${int}.${frac.padEnd(4, '0')}`
}
const pt = (c: unknown) => {
  if (!Array.isArray(c) || c.length < 2) throw new Error('not a position')
  return c.map(num).join(' ')
}
const seq = (cs: unknown) => {
  if (!Array.isArray(cs)) throw new Error('not a list')
  return cs.map(pt).join(', ')
}
const rings = (rs: unknown) => {
  if (!Array.isArray(rs)) throw new Error('not a list')
  return rs.map((r) => `(${seq(r)})`).join(', ')
}
const nothing = (c: unknown): boolean => (Array.isArray(c) ? c.every(nothing) && !c.some((x) => typeof x === 'number') : false)

/** WKT for a GeoJSON geometry (object or JSON text); undefined when it is not one. */
export function geoJsonToWkt(g: unknown): string | undefined {
  try {
    const o = typeof g === 'string' ? JSON.parse(g) : g
    return wkt(o)
  } catch {
    return undefined
  }
}

function wkt(o: Dict): string {
  if (!isDict(o) || typeof o.type !== 'string') throw new Error('not GeoJSON')
  if (o.type === 'GeometryCollection') {
    if (!Array.isArray(o.geometries)) throw new Error('no geometries')
    return o.geometries.length ? `GEOMETRYCOLLECTION (${o.geometries.map(wkt).join(',')})` : 'GEOMETRYCOLLECTION EMPTY'
  }
  const c = o.coordinates
  if (!Array.isArray(c)) throw new Error('no coordinates')
  const name = o.type.toUpperCase()
  if (nothing(c)) {
    if (!['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'].includes(o.type)) throw new Error('unknown type')
    return `${name} EMPTY`
  }
  switch (o.type) {
    case 'Point':
      return `POINT (${pt(c)})`
    case 'LineString':
      return `LINESTRING (${seq(c)})`
    case 'Polygon':
      return `POLYGON (${rings(c)})`
    case 'MultiPoint':
      return `MULTIPOINT (${c.map((p) => `(${pt(p)})`).join(', ')})`
    case 'MultiLineString':
      return `MULTILINESTRING (${rings(c)})`
    case 'MultiPolygon':
      return `MULTIPOLYGON (${c.map((p) => `(${rings(p)})`).join(', ')})`
    default:
      throw new Error('unknown type')
  }
}

// ---- the mapping ----

export class SchemingDcat {
  constructor(private readonly add: Add) {}

  /** `predicate` → the value as ckanext-dcat's URIRefOrLiteral, typed `cls` when it is an IRI. */
  private uriOrLit(s: Term, p: Term, v: unknown, cls?: Term) {
    const o = uriOrLiteral(v)
    this.add(s, p, o)
    if (o?.termType === 'NamedNode' && cls) this.add(o, a, cls)
  }

  private list(s: Term, p: Term, v: unknown, cls?: Term) {
    for (const item of listItems(v)) this.uriOrLit(s, p, item, cls)
  }

  /** ckanext-dcat's statements: a literal in a node of `cls` with rdfs:label, an IRI typed `cls`. */
  statement(s: Term, p: Term, v: unknown, cls: Term) {
    const objects = isDict(v) ? Object.entries(v).map(([lang, x]) => uriOrLiteral(x, lang)) : [uriOrLiteral(v)]
    let node: Term | undefined
    for (const o of objects) {
      if (!o) continue
      if (o.termType === 'Literal') {
        if (!node) {
          node = blankNode()
          this.add(s, p, node)
          this.add(node, a, cls)
        }
        this.add(node, iri('rdfs', 'label'), o)
      } else {
        this.add(s, p, o)
        this.add(o, a, cls)
      }
    }
  }

  /** Contact points: each a vcard:Kind with fn, hasEmail, hasUID, hasURL. */
  contacts(s: Term, list: Dict[]) {
    for (const c of list) {
      const node = absoluteNode(c.uri) ?? blankNode()
      this.add(node, a, iri('vcard', 'Kind'))
      this.add(s, iri('dcat', 'contactPoint'), node)
      const names = isDict(c.name_translated) ? literals(c.name_translated) : literals(c.name)
      for (const n of names.length ? names : literals(c.name)) this.add(node, iri('vcard', 'fn'), n)
      this.add(node, iri('vcard', 'hasEmail'), mailto(c.email))
      this.add(node, iri('vcard', 'hasUID'), uriOrLiteral(c.identifier))
      this.add(node, iri('vcard', 'hasURL'), absoluteNode(c.url))
    }
  }

  /** Publishers or creators: each a foaf:Agent with name, homepage, type, email, identifier. */
  agents(s: Term, p: Term, list: Dict[]) {
    for (const ag of list) {
      const node = absoluteNode(ag.uri) ?? blankNode()
      this.add(node, a, iri('foaf', 'Agent'))
      this.add(s, p, node)
      const translated = isDict(ag.name_translated) ? literals(ag.name_translated) : []
      for (const n of translated) this.add(node, iri('foaf', 'name'), n)
      const name = text(ag.name)
      if (name && !translated.some((t) => t.value === name)) this.add(node, iri('foaf', 'name'), literal(name))
      this.add(node, iri('foaf', 'homepage'), absoluteNode(ag.url))
      this.add(node, iri('dct', 'type'), uriOrLiteral(ag.type))
      this.add(node, iri('vcard', 'hasEmail'), mailto(ag.email))
      this.add(node, iri('dct', 'identifier'), uriOrLiteral(ag.identifier))
    }
  }

  /** The dataset-level fields the schema adds (those the core mapping already writes excepted). */
  dataset(node: Term, d: Dict) {
    const dct = (l: string) => iri('dct', l)
    const dcat = (l: string) => iri('dcat', l)
    this.add(node, iri('adms', 'versionNotes'), text(d.version_notes) ? literal(d.version_notes) : undefined)
    this.uriOrLit(node, dct('accrualPeriodicity'), d.frequency, dct('Frequency'))
    this.uriOrLit(node, dct('type'), d.dcat_type)
    this.add(node, dcat('temporalResolution'), text(d.temporal_resolution) ? literal(String(d.temporal_resolution).trim(), iri('xsd', 'duration')) : undefined)
    for (const v of listItems(d.spatial_resolution_in_meters)) this.add(node, dcat('spatialResolutionInMeters'), decimal(v))
    // lists (euro_dcat_ap_base, _2, _3)
    this.list(node, dct('language'), d.language, dct('LinguisticSystem'))
    for (const t of listItems(d.theme)) this.add(node, dcat('theme'), absoluteNode(t) ?? uriOrLiteral(t))
    this.list(node, dct('conformsTo'), d.conforms_to, dct('Standard'))
    this.list(node, iri('foaf', 'page'), d.documentation, iri('foaf', 'Document'))
    this.list(node, dct('relation'), d.related_resource, iri('rdfs', 'Resource'))
    this.list(node, dct('hasVersion'), d.has_version)
    this.list(node, dcat('hasVersion'), d.has_version)
    this.list(node, dct('isVersionOf'), d.is_version_of)
    this.list(node, dct('source'), d.source)
    this.list(node, iri('adms', 'sample'), d.sample, dcat('Distribution'))
    this.list(node, dct('isReferencedBy'), d.is_referenced_by, iri('rdfs', 'Resource'))
    this.list(node, iri('dcatap', 'applicableLegislation'), d.applicable_legislation, iri('eli', 'LegalResource'))
    this.list(node, iri('dcatap', 'hvdCategory'), d.hvd_category)
    // other identifiers, as DCAT-AP 3 writes them
    for (const id of listItems(d.alternate_identifier)) {
      const s = text(id)
      if (!s) continue
      const ident = blankNode()
      this.add(node, iri('adms', 'identifier'), ident)
      this.add(ident, a, iri('adms', 'Identifier'))
      this.add(ident, iri('skos', 'notation'), literal(s))
    }
    if (d.access_rights) this.statement(node, dct('accessRights'), d.access_rights, dct('RightsStatement'))
    if (d.provenance) this.statement(node, dct('provenance'), d.provenance, dct('ProvenanceStatement'))
    const creators = repeating(d.creator)
    if (creators) this.agents(node, dct('creator'), creators)
    for (const period of repeating(d.temporal_coverage) ?? []) {
      const t = blankNode()
      this.add(t, a, dct('PeriodOfTime'))
      this.add(t, dcat('startDate'), dateLiteral(period.start))
      this.add(t, dcat('endDate'), dateLiteral(period.end))
      this.add(node, dct('temporal'), t)
    }
    for (const place of repeating(d.spatial_coverage) ?? []) {
      const loc = absoluteNode(place.uri) ?? blankNode()
      this.add(loc, a, dct('Location'))
      this.add(node, dct('spatial'), loc)
      this.add(loc, iri('skos', 'prefLabel'), text(place.text) ? literal(place.text) : undefined)
      for (const [key, p] of [
        ['geom', iri('locn', 'Geometry')],
        ['bbox', dcat('bbox')],
        ['centroid', dcat('centroid')],
      ] as const) {
        const w = place[key] ? geoJsonToWkt(place[key]) : undefined
        this.add(loc, p, w ? literal(w, iri('gsp', 'wktLiteral')) : undefined)
      }
    }
    for (const rel of repeating(d.qualified_relation) ?? []) {
      const r = absoluteNode(rel.uri) ?? blankNode()
      this.add(r, a, dcat('Relationship'))
      this.add(node, dcat('qualifiedRelation'), r)
      this.uriOrLit(r, dct('relation'), rel.relation, iri('rdfs', 'Resource'))
      this.uriOrLit(r, dcat('hadRole'), rel.role, dcat('Role'))
    }
  }

  /** The resource-level fields the schema adds (access and download URLs, licence and dates excepted). */
  distribution(dist: Term, r: Dict) {
    const dct = (l: string) => iri('dct', l)
    const dcat = (l: string) => iri('dcat', l)
    this.uriOrLit(dist, iri('adms', 'status'), r.status)
    this.uriOrLit(dist, iri('dcatap', 'availability'), r.availability)
    this.uriOrLit(dist, dcat('compressFormat'), r.compress_format, dct('MediaType'))
    this.uriOrLit(dist, dcat('packageFormat'), r.package_format, dct('MediaType'))
    this.list(dist, iri('foaf', 'page'), r.documentation, iri('foaf', 'Document'))
    this.list(dist, dct('language'), r.language, dct('LinguisticSystem'))
    this.list(dist, dct('conformsTo'), r.conforms_to, dct('Standard'))
    this.list(dist, iri('dcatap', 'applicableLegislation'), r.applicable_legislation, iri('eli', 'LegalResource'))
    if (r.rights) this.statement(dist, dct('rights'), r.rights, dct('RightsStatement'))
    this.add(dist, dcat('temporalResolution'), text(r.temporal_resolution) ? literal(String(r.temporal_resolution).trim(), iri('xsd', 'duration')) : undefined)
    for (const v of listItems(r.spatial_resolution_in_meters)) this.add(dist, dcat('spatialResolutionInMeters'), decimal(v))
    const hash = text(r.hash)
    if (hash) {
      const sum = blankNode()
      this.add(sum, a, iri('spdx', 'Checksum'))
      this.add(sum, iri('spdx', 'checksumValue'), literal(hash, iri('xsd', 'hexBinary')))
      this.uriOrLit(sum, iri('spdx', 'algorithm'), r.hash_algorithm, iri('spdx', 'ChecksumAlgorithm'))
      this.add(dist, iri('spdx', 'checksum'), sum)
    }
    let services: unknown = r.access_services
    if (typeof services === 'string') {
      try {
        services = JSON.parse(services)
      } catch {
        services = []
      }
    }
    for (const s of Array.isArray(services) ? services.filter(notEmptyDict) : []) {
      const node = absoluteNode(s.uri) ?? blankNode()
      this.add(dist, dcat('accessService'), node)
      this.add(node, a, dcat('DataService'))
      this.add(node, dct('title'), text(s.title) ? literal(s.title) : undefined)
      this.add(node, dct('description'), text(s.description) ? literal(s.description) : undefined)
      this.uriOrLit(node, dcat('endpointDescription'), s.endpoint_description, iri('rdfs', 'Resource'))
      this.uriOrLit(node, iri('dcatap', 'availability'), s.availability)
      this.uriOrLit(node, dct('license'), s.license)
      this.uriOrLit(node, dct('accessRights'), s.access_rights)
      this.uriOrLit(node, dct('identifier'), s.identifier)
      this.add(node, dct('modified'), dateLiteral(s.modified))
      this.list(node, dcat('endpointURL'), s.endpoint_url, iri('rdfs', 'Resource'))
      this.list(node, dcat('servesDataset'), s.serves_dataset)
      this.list(node, dct('conformsTo'), s.conforms_to)
      this.list(node, dct('format'), s.format)
      this.list(node, dct('language'), s.language)
      this.list(node, dct('rights'), s.rights)
      this.list(node, dcat('landingPage'), s.landing_page)
      this.list(node, iri('dcatap', 'applicableLegislation'), s.applicable_legislation, iri('eli', 'LegalResource'))
      this.list(node, dcat('theme'), s.theme)
      for (const k of listItems(s.keyword)) this.add(node, dcat('keyword'), text(k) ? literal(String(k)) : undefined)
      if (notEmptyDict(s.contact)) this.contacts(node, [s.contact])
      if (notEmptyDict(s.publisher)) this.agents(node, dct('publisher'), [s.publisher])
      const creators = repeating(s.creator)
      if (creators) this.agents(node, dct('creator'), creators)
    }
  }
}
