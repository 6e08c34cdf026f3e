// A DCAT dataset of an RDF graph → a CKAN dataset dict, as ckanext-dcat's euro_dcat_ap_3 profile
// reads one (its base, DCAT-AP 2 and 3 steps), then, when the site's dataset schema has the
// fields, its euro_dcat_ap_scheming step: extras the schema names become fields, JSON lists become
// lists, publisher/creator/contact/temporal/spatial become repeating subfields. Pure.
import { DataFactory, type Store, type Term } from 'n3'
import { NS } from '../../lib/dcat/ns'
import { wktToGeoJson } from '../../lib/wkt'
import { LICENSES } from '../../model/license'
import { canonicalFormat } from '../../model/resource-format'

const { namedNode } = DataFactory
type Dict = Record<string, any>
type Extra = { key: string; value: unknown }

const iri = (prefix: keyof typeof NS, local: string) => namedNode(NS[prefix] + local)
const TIME = 'http://www.w3.org/2006/time#'
const PROV = 'http://www.w3.org/ns/prov#'
const GEOJSON_IMT = 'https://www.iana.org/assignments/media-types/application/vnd.geo+json'

/** What the mapping needs to know of the site's schema for the dataset type (absent: no schema). */
export interface DcatSchemaInfo {
  datasetFields: Set<string>
  resourceFields: Set<string>
  /** Fields (dataset or resource) whose validators include scheming_multiple_text. */
  multipleText: Set<string>
  /** Dataset fields with repeating subfields → the subfield names. */
  repeating: Map<string, string[]>
  /** Resource fields with repeating subfields. */
  resourceRepeating: Set<string>
}

/** The schema facts from a ckanext-scheming dataset schema (presets already merged). */
export function dcatSchemaInfo(schema: { dataset_fields?: Dict[]; resource_fields?: Dict[] } | undefined): DcatSchemaInfo | undefined {
  if (!schema) return undefined
  const info: DcatSchemaInfo = {
    datasetFields: new Set(),
    resourceFields: new Set(),
    multipleText: new Set(),
    repeating: new Map(),
    resourceRepeating: new Set(),
  }
  const multi = (f: Dict) => String(f.validators ?? '').split(/\s+/).includes('scheming_multiple_text')
  for (const f of schema.dataset_fields ?? []) {
    info.datasetFields.add(f.field_name)
    if (multi(f)) info.multipleText.add(f.field_name)
    if (Array.isArray(f.repeating_subfields)) info.repeating.set(f.field_name, f.repeating_subfields.map((s: Dict) => s.field_name))
  }
  for (const f of schema.resource_fields ?? []) {
    info.resourceFields.add(f.field_name)
    if (multi(f)) info.multipleText.add(f.field_name)
    if (Array.isArray(f.repeating_subfields)) info.resourceRepeating.add(f.field_name)
  }
  return info
}

export interface ParseOptions {
  /** ckan.locale_default: a literal in this language wins. */
  defaultLang?: string
  schema?: DcatSchemaInfo
  /** ckanext.dcat.clean_tags: keywords munged as CKAN tags. */
  cleanTags?: boolean
}

class Reader {
  constructor(
    readonly g: Store,
    readonly lang: string,
  ) {}

  objects(s: Term, p: Term): Term[] {
    return this.g.getObjects(s, p, null)
  }

  object(s: Term, p: Term): Term | undefined {
    return this.objects(s, p)[0]
  }

  /** ckanext-dcat's _object_value: a literal in the default language first, a node's rdfs:label, else the first value; '' when none. */
  value(s: Term, p: Term): string {
    let fallback = ''
    for (const o of this.objects(s, p)) {
      if (o.termType === 'Literal') {
        const lang = (o as Term & { language: string }).language
        if (lang && lang === this.lang) return o.value
        if (fallback === '') fallback = o.value
      } else {
        const label = this.object(o, iri('rdfs', 'label'))
        return label ? label.value : o.value
      }
    }
    return fallback
  }

  /** ckanext-dcat's _object_value_list: every value as text. */
  list(s: Term, p: Term): string[] {
    return this.objects(s, p).map((o) => o.value)
  }

  int(s: Term, p: Term): number | undefined {
    const v = this.value(s, p)
    if (v === '') return undefined
    const n = Number(v)
    return Number.isFinite(n) ? Math.trunc(n) : undefined
  }

  floats(s: Term, p: Term): number[] {
    return this.objects(s, p)
      .map((o) => Number(o.value))
      .filter((n) => Number.isFinite(n))
  }

  has(s: Term, p: Term, o: Term): boolean {
    return this.g.countQuads(s, p, o, null) > 0
  }

  /** A vcard property: its plain value, or a node's vcard:hasValue. */
  vcard(s: Term, p: Term, plain?: Term): string {
    let v = plain ? this.value(s, plain) : ''
    if (!v) {
      const o = this.object(s, p)
      v = o?.termType === 'BlankNode' ? this.value(o, iri('vcard', 'hasValue')) : this.value(s, p)
    }
    return v
  }

  /** ckanext-dcat's _time_interval for DCAT-AP 2: dcat:startDate/endDate, then time:, then schema.org. */
  interval(s: Term, p: Term): [string, string] {
    const nodes = this.objects(s, p)
    for (const [start, end] of [
      [iri('dcat', 'startDate'), iri('dcat', 'endDate')],
      [iri('schema', 'startDate'), iri('schema', 'endDate')],
    ] as const) {
      for (const n of nodes) {
        const a = this.value(n, start)
        const b = this.value(n, end)
        if (a || b) return [a, b]
      }
      if (start.value.startsWith(NS.dcat)) {
        for (const n of nodes) {
          const t = (node: Term | undefined) => {
            if (!node) return ''
            for (const q of ['inXSDDateTimeStamp', 'inXSDDateTime', 'inXSDDate']) {
              const v = this.value(node, namedNode(TIME + q))
              if (v) return v
            }
            return ''
          }
          const a = t(this.object(n, namedNode(TIME + 'hasBeginning')))
          const b = t(this.object(n, namedNode(TIME + 'hasEnd')))
          if (a || b) return [a, b]
        }
      }
    }
    return ['', '']
  }

  agents(s: Term, p: Term): Dict[] {
    return this.objects(s, p).map((ag) => {
      const translations: Record<string, string> = {}
      let fallback = ''
      for (const n of this.objects(ag, iri('foaf', 'name'))) {
        const lang = n.termType === 'Literal' ? (n as Term & { language: string }).language : ''
        if (lang) translations[lang] = n.value
        else if (!fallback) fallback = n.value
      }
      const d: Dict = { uri: ag.termType === 'NamedNode' ? ag.value : '' }
      if (Object.keys(translations).length) {
        d.name_translated = translations
        d.name = translations[this.lang] || fallback || Object.values(translations)[0]
      } else d.name = fallback
      d.email = withoutMailto(this.value(ag, iri('foaf', 'mbox'))) || withoutMailto(this.value(ag, iri('vcard', 'hasEmail')))
      d.url = this.value(ag, iri('foaf', 'homepage'))
      d.type = this.value(ag, iri('dct', 'type'))
      d.identifier = this.value(ag, iri('dct', 'identifier'))
      return d
    })
  }

  contacts(s: Term, p: Term): Dict[] {
    return this.objects(s, p).map((c) => {
      const d: Dict = { uri: c.termType === 'NamedNode' ? c.value : '' }
      d.name = this.vcard(c, iri('vcard', 'hasFN'), iri('vcard', 'fn'))
      const translations: Record<string, string> = {}
      for (const l of this.objects(c, iri('vcard', 'fn'))) {
        const lang = l.termType === 'Literal' ? (l as Term & { language: string }).language : ''
        if (lang) translations[lang] = l.value
      }
      if (Object.keys(translations).length) {
        d.name_translated = translations
        if (translations[this.lang]) d.name = translations[this.lang]
      }
      d.email = withoutMailto(this.vcard(c, iri('vcard', 'hasEmail')))
      d.identifier = this.vcard(c, iri('vcard', 'hasUID'))
      d.url = this.vcard(c, iri('vcard', 'hasURL'))
      return d
    })
  }

  spatial(s: Term, p: Term) {
    const out: { uri?: string; text?: string; geom?: string; bbox?: string; centroid?: string } = {}
    for (const sp of this.objects(s, p)) {
      if (sp.termType === 'NamedNode') out.uri = sp.value
      if (sp.termType === 'Literal') out.text = sp.value
      if (this.has(sp, iri('rdf', 'type'), iri('dct', 'Location'))) {
        out.geom = this.geodata(sp, iri('locn', 'geometry')) ?? out.geom
        out.bbox = this.geodata(sp, iri('dcat', 'bbox')) ?? out.bbox
        out.centroid = this.geodata(sp, iri('dcat', 'centroid')) ?? out.centroid
        for (const l of this.objects(sp, iri('skos', 'prefLabel'))) out.text = l.value
        for (const l of this.objects(sp, iri('rdfs', 'label'))) out.text = l.value
      }
    }
    return out
  }

  /**
   * A geometry as GeoJSON text, as ckanext-dcat's _parse_geodata: a GeoJSON literal (typed with the
   * GeoJSON media type, GeoSPARQL's geoJSONLiteral, or untyped) as it is, else a gsp:wktLiteral
   * turned into GeoJSON (src/lib/wkt.ts).
   */
  private geodata(s: Term, p: Term): string | undefined {
    const found = this.objects(s, p).filter((g) => g.termType === 'Literal')
    const dt = (g: Term) => (g as Term & { datatype: { value: string } }).datatype.value
    for (const g of found) {
      if (![GEOJSON_IMT, NS.gsp + 'geoJSONLiteral', NS.xsd + 'string', ''].includes(dt(g))) continue
      try {
        JSON.parse(g.value)
        return g.value
      } catch {
        // not GeoJSON
      }
    }
    for (const g of found) {
      if (dt(g) !== NS.gsp + 'wktLiteral') continue
      const geo = wktToGeoJson(g.value)
      if (geo) return JSON.stringify(geo)
    }
    return undefined
  }

  /** ckanext-dcat's _distribution_format: the media type and the format label. */
  format(dist: Term): { imt?: string; label?: string } {
    let imt = this.value(dist, iri('dcat', 'mediaType')) || undefined
    let label: string | undefined
    const f = this.object(dist, iri('dct', 'format'))
    if (f?.termType === 'Literal') {
      if (!imt && f.value.includes('/')) imt = f.value
      else label = f.value
    } else if (f) {
      if (this.object(f, iri('rdf', 'type'))?.value === NS.dct + 'IMT') {
        imt ??= this.object(f, iri('rdf', 'value'))?.value
        label = this.value(f, iri('rdfs', 'label')) || undefined
      } else if (f.termType === 'NamedNode') {
        if (f.value.includes('iana.org/assignments/media-types') && !imt) imt = f.value
        else label = f.value
      }
    }
    // CKAN's resource formats: a known media type or label becomes its short name
    if (imt && canonicalFormat(imt) !== imt) label = canonicalFormat(imt)
    else if (label && canonicalFormat(label) !== label) label = canonicalFormat(label)
    return { imt, label }
  }
}

const withoutMailto = (s: string) => s.replace(/^mailto:/, '')

const LICENSE_BY_URL = new Map(LICENSES.filter((l) => l.url).map((l) => [l.url, l.id]))
const LICENSE_BY_TITLE = new Map(LICENSES.map((l) => [l.title, l.id]))

/** CKAN's munge_tag: lowercase, spaces to dashes, only alphanumerics, - _ and . kept. */
const mungeTag = (t: string) => t.toLowerCase().trim().replace(/\s+/g, '-').replace(/[^\p{L}\p{N}\-_.]/gu, '')

/** The dataset dict ckanext-dcat's default profile (euro_dcat_ap_3) reads from `ref`. */
export function parseDcatDataset(g: Store, ref: Term, opts: ParseOptions = {}): Dict {
  const r = new Reader(g, opts.defaultLang ?? 'en')
  const d: Dict = { extras: [] as Extra[], resources: [] as Dict[] }
  const extras = d.extras as Extra[]
  const dcat = (l: string) => iri('dcat', l)
  const dct = (l: string) => iri('dct', l)

  const url = r.value(ref, dcat('landingPage'))
  if (url) d.url = url
  const version = r.value(ref, iri('owl', 'versionInfo')) || r.value(ref, iri('adms', 'version'))
  if (version) d.version = version
  const title = r.value(ref, dct('title'))
  if (title) d.title = title
  const notes = r.value(ref, dct('description'))
  if (notes) d.notes = notes

  // keywords; one holding commas is split (ckanext-dcat's _keywords)
  const keywords: string[] = []
  for (const k of r.list(ref, dcat('keyword'))) {
    if (k.includes(',')) keywords.push(...k.split(',').map((x) => x.trim()))
    else keywords.push(k)
  }
  d.tags = keywords.filter(Boolean).map((k) => ({ name: opts.cleanTags ? mungeTag(k) : k }))

  for (const [k, p] of [
    ['issued', dct('issued')],
    ['modified', dct('modified')],
    ['identifier', dct('identifier')],
    ['version_notes', iri('adms', 'versionNotes')],
    ['frequency', dct('accrualPeriodicity')],
    ['provenance', dct('provenance')],
    ['dcat_type', dct('type')],
  ] as const) {
    const v = r.value(ref, p)
    if (v) extras.push({ key: k, value: v })
  }
  for (const [k, p] of [
    ['language', dct('language')],
    ['theme', dcat('theme')],
    ['alternate_identifier', iri('adms', 'identifier')],
    ['conforms_to', dct('conformsTo')],
    ['documentation', iri('foaf', 'page')],
    ['related_resource', dct('relation')],
    ['has_version', dct('hasVersion')],
    ['is_version_of', dct('isVersionOf')],
    ['source', dct('source')],
    ['sample', iri('adms', 'sample')],
  ] as const) {
    const v = r.list(ref, p)
    if (v.length) extras.push({ key: k, value: JSON.stringify(v) })
  }

  const schema = opts.schema
  if (!schema?.datasetFields.has('contact')) {
    const contact = r.contacts(ref, dcat('contactPoint'))[0] ?? r.contacts(ref, iri('adms', 'contactPoint'))[0]
    if (contact)
      for (const k of ['uri', 'name', 'email', 'identifier', 'url'])
        if (contact[k]) extras.push({ key: `contact_${k}`, value: contact[k] })
  }
  for (const [agentKey, p] of [
    ['publisher', dct('publisher')],
    ['creator', dct('creator')],
  ] as const) {
    if (schema?.datasetFields.has(agentKey)) continue
    const agent = r.agents(ref, p)[0]
    if (agent)
      for (const k of ['uri', 'name', 'email', 'url', 'type', 'identifier'])
        if (agent[k]) extras.push({ key: `${agentKey}_${k}`, value: agent[k] })
  }

  const [start, end] = r.interval(ref, dct('temporal'))
  if (start) extras.push({ key: 'temporal_start', value: start })
  if (end) extras.push({ key: 'temporal_end', value: end })

  const spatial = r.spatial(ref, dct('spatial'))
  for (const k of ['uri', 'text', 'geom', 'bbox', 'centroid'] as const) {
    const v = spatial[k]
    if (v) extras.push({ key: k === 'geom' ? 'spatial' : `spatial_${k}`, value: v })
  }
  // a location given only by its box: the box is the dataset's geometry (what spatial search reads)
  if (!spatial.geom && spatial.bbox) extras.push({ key: 'spatial', value: spatial.bbox })

  extras.push({ key: 'uri', value: ref.termType === 'NamedNode' ? ref.value : '' })

  const rightsNode = r.object(ref, dct('accessRights'))
  if (rightsNode) {
    const rights =
      rightsNode.termType === 'BlankNode'
        ? r.object(rightsNode, iri('rdf', 'type'))?.value === NS.dct + 'RightsStatement'
          ? r.value(rightsNode, iri('rdfs', 'label'))
          : ''
        : rightsNode.value
    if (rights) extras.push({ key: 'access_rights', value: rights })
  }

  // the licence: the first distribution's licence the register knows (by URL, then title)
  d.license_id = ''
  for (const dist of r.objects(ref, dcat('distribution'))) {
    const lic = r.object(dist, dct('license'))
    if (!lic) continue
    const id = LICENSE_BY_URL.get(lic.value) ?? LICENSE_BY_TITLE.get(r.value(lic, dct('title')))
    if (id) {
      d.license_id = id
      break
    }
  }

  const homepage = r.value(ref, iri('foaf', 'homepage'))
  if (homepage) extras.push({ key: 'homepage', value: homepage })

  // DCAT-AP 2
  const temporalResolution = r.value(ref, dcat('temporalResolution'))
  if (temporalResolution) extras.push({ key: 'temporal_resolution', value: temporalResolution })
  for (const [k, p] of [
    ['is_referenced_by', dct('isReferencedBy')],
    ['applicable_legislation', iri('dcatap', 'applicableLegislation')],
    ['hvd_category', iri('dcatap', 'hvdCategory')],
  ] as const) {
    const v = r.list(ref, p)
    if (v.length) extras.push({ key: k, value: JSON.stringify(v) })
  }
  const resolution = r.floats(ref, dcat('spatialResolutionInMeters'))
  if (resolution.length) extras.push({ key: 'spatial_resolution_in_meters', value: resolution.length === 1 ? resolution[0] : JSON.stringify(resolution) })

  for (const dist of r.objects(ref, dcat('distribution'))) d.resources.push(parseDistribution(r, dist))

  // DCAT-AP 3
  const v3version = r.value(ref, dcat('version'))
  if (v3version) d.version = v3version

  if (schema) applySchema(r, d, ref, schema)
  return d
}

function parseDistribution(r: Reader, dist: Term): Dict {
  const res: Dict = {}
  const dcat = (l: string) => iri('dcat', l)
  const dct = (l: string) => iri('dct', l)
  for (const [k, p] of [
    ['access_url', dcat('accessURL')],
    ['download_url', dcat('downloadURL')],
    ['issued', dct('issued')],
    ['modified', dct('modified')],
    ['status', iri('adms', 'status')],
    ['license', dct('license')],
    ['rights', dct('rights')],
    ['name', dct('title')],
    ['description', dct('description')],
  ] as const) {
    const v = r.value(dist, p)
    if (v) res[k] = v
  }
  res.url = r.value(dist, dcat('downloadURL')) || r.value(dist, dcat('accessURL'))
  for (const [k, p] of [
    ['language', dct('language')],
    ['documentation', iri('foaf', 'page')],
    ['conforms_to', dct('conformsTo')],
  ] as const) {
    const v = r.list(dist, p)
    if (v.length) res[k] = JSON.stringify(v)
  }
  const { imt, label } = r.format(dist)
  if (imt) res.mimetype = imt
  if (label || imt) res.format = label ?? imt
  const size = r.int(dist, dcat('byteSize'))
  if (size !== undefined) res.size = size
  for (const sum of r.objects(dist, iri('spdx', 'checksum'))) {
    const algorithm = r.value(sum, iri('spdx', 'algorithm'))
    const value = r.value(sum, iri('spdx', 'checksumValue'))
    if (algorithm) res.hash_algorithm = algorithm
    if (value) res.hash = value
  }
  res.uri = dist.termType === 'NamedNode' ? dist.value : ''
  // DCAT-AP 2
  for (const [k, p] of [
    ['availability', iri('dcatap', 'availability')],
    ['compress_format', dcat('compressFormat')],
    ['package_format', dcat('packageFormat')],
    ['temporal_resolution', dcat('temporalResolution')],
  ] as const) {
    const v = r.value(dist, p)
    if (v) res[k] = v
  }
  const resolution = r.floats(dist, dcat('spatialResolutionInMeters'))
  if (resolution.length) res.spatial_resolution_in_meters = resolution.length === 1 ? resolution[0] : JSON.stringify(resolution)
  const legislation = r.list(dist, iri('dcatap', 'applicableLegislation'))
  if (legislation.length) res.applicable_legislation = JSON.stringify(legislation)
  const services = r.objects(dist, dcat('accessService')).map((s) => {
    const sd: Dict = {}
    for (const [k, p] of [
      ['availability', iri('dcatap', 'availability')],
      ['title', dct('title')],
      ['endpoint_description', dcat('endpointDescription')],
      ['license', dct('license')],
      ['access_rights', dct('accessRights')],
      ['description', dct('description')],
      ['identifier', dct('identifier')],
      ['modified', dct('modified')],
    ] as const) {
      const v = r.value(s, p)
      if (v) sd[k] = v
    }
    for (const [k, p] of [
      ['endpoint_url', dcat('endpointURL')],
      ['serves_dataset', dcat('servesDataset')],
      ['conforms_to', dct('conformsTo')],
      ['format', dct('format')],
      ['language', dct('language')],
      ['rights', dct('rights')],
      ['landing_page', dcat('landingPage')],
      ['keyword', dcat('keyword')],
      ['applicable_legislation', iri('dcatap', 'applicableLegislation')],
      ['theme', dcat('theme')],
    ] as const) {
      const v = r.list(s, p)
      if (v.length) sd[k] = v
    }
    const contacts = r.contacts(s, dcat('contactPoint'))
    if (contacts.length) sd.contact = contacts
    const publishers = r.agents(s, dct('publisher'))
    if (publishers.length) sd.publisher = publishers
    const creators = r.agents(s, dct('creator'))
    if (creators.length) sd.creator = creators
    sd.uri = s.termType === 'NamedNode' ? s.value : ''
    return sd
  })
  if (services.length) res.access_services = JSON.stringify(services)
  return res
}

/** ckanext-dcat's euro_dcat_ap_scheming step: the schema's fields filled from what was read. */
function applySchema(r: Reader, d: Dict, ref: Term, schema: DcatSchemaInfo) {
  let extras = d.extras as Extra[]
  const moved = new Set<string>()
  for (const e of extras)
    if (schema.datasetFields.has(e.key)) {
      d[e.key] = e.value
      moved.add(e.key)
    }
  extras = extras.filter((e) => !moved.has(e.key))
  const parseList = (dict: Dict) => {
    for (const k of Object.keys(dict))
      if (schema.multipleText.has(k) && typeof dict[k] === 'string') {
        try {
          dict[k] = JSON.parse(dict[k])
        } catch {
          // kept as text
        }
      }
  }
  parseList(d)
  for (const res of d.resources as Dict[]) parseList(res)

  // repeating subfields from the flat extras (temporal_start → temporal_coverage[0].start...)
  const renamed: Record<string, string> = { spatial_coverage: 'spatial', temporal_coverage: 'temporal' }
  for (const [field, subfields] of schema.repeating) {
    const prefix = renamed[field] ?? field
    const item: Dict = {}
    const rest: Extra[] = []
    for (const e of extras) {
      if (e.key.startsWith(`${prefix}_`) && subfields.includes(e.key.slice(prefix.length + 1))) item[e.key.slice(prefix.length + 1)] = e.value
      else if (e.key === 'spatial' && field === 'spatial_coverage') item.geom = e.value
      else rest.push(e)
    }
    if (field === 'temporal_coverage') {
      const periods = r.objects(ref, iri('dct', 'temporal')).flatMap((n) => {
        const start = r.value(n, iri('dcat', 'startDate')) || r.value(n, iri('schema', 'startDate'))
        const end = r.value(n, iri('dcat', 'endDate')) || r.value(n, iri('schema', 'endDate'))
        return start || end ? [{ start, end }] : []
      })
      if (periods.length) {
        d[field] = periods
        extras = rest
        continue
      }
    }
    if (Object.keys(item).length) {
      d[field] ??= [item]
      extras = rest
    }
  }
  d.extras = extras

  const contacts = r.contacts(ref, iri('dcat', 'contactPoint'))
  if (contacts.length && schema.datasetFields.has('contact')) d.contact = contacts.map(pruneTranslations(schema.repeating.get('contact')))
  for (const [k, p] of [
    ['publisher', iri('dct', 'publisher')],
    ['creator', iri('dct', 'creator')],
  ] as const) {
    const agents = r.agents(ref, p)
    if (agents.length && schema.datasetFields.has(k)) d[k] = agents.map(pruneTranslations(schema.repeating.get(k)))
  }
  const relations = r.objects(ref, iri('dcat', 'qualifiedRelation')).map((rel) => ({
    uri: rel.termType === 'NamedNode' ? rel.value : '',
    role: r.value(rel, iri('dcat', 'hadRole')),
    relation: r.value(rel, iri('dct', 'relation')),
  }))
  if (relations.length && schema.datasetFields.has('qualified_relation')) d.qualified_relation = relations
  for (const res of d.resources as Dict[])
    for (const k of schema.resourceRepeating)
      if (typeof res[k] === 'string' && res[k]) {
        try {
          res[k] = JSON.parse(res[k])
        } catch {
          // kept as text
        }
      }
}

/** Translated names are kept only where the schema's subfields have name_translated. */
const pruneTranslations = (subfields: string[] | undefined) => (x: Dict) => {
  if (subfields?.includes('name_translated')) return x
  const { name_translated: _, ...rest } = x
  return rest
}

/** CKAN's munge_title_to_name: a dataset name from a title. */
export function mungeTitleToName(title: string): string {
  let name = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[ .:/]/g, '-')
    .replace(/[^a-zA-Z0-9_-]/g, '')
    .toLowerCase()
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '')
  const max = 100 - 5
  if (name.length > max) {
    const year = /.*?[_-]((?:\d{2,4}[-/])?\d{2,4})$/.exec(name)?.[1]
    name = year ? `${name.slice(0, max - year.length - 1)}-${year}` : name.slice(0, max)
  }
  if (name.length < 2) name = name.padEnd(2, '_')
  return name
}
