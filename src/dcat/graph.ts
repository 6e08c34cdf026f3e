// DCAT-AP 3 as RDF from dataset dicts (the mapping of ckanext-dcat's euro_dcat_ap profile): a
// catalogue with Hydra paging, datasets and distributions; quads for the serialisers.
import { DataFactory, type Quad, type Term } from 'n3'

const { namedNode, literal, blankNode, quad } = DataFactory

export const NS = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  dcat: 'http://www.w3.org/ns/dcat#',
  dct: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  vcard: 'http://www.w3.org/2006/vcard/ns#',
  owl: 'http://www.w3.org/2002/07/owl#',
  hydra: 'http://www.w3.org/ns/hydra/core#',
  adms: 'http://www.w3.org/ns/adms#',
} as const

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)
const iri = (prefix: keyof typeof NS, local: string) => namedNode(NS[prefix] + local)
const a = iri('rdf', 'type')

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

export const datasetUri = (base: string, d: Dict) => str(d.extras?.find?.((e: Dict) => e.key === 'uri')?.value) ?? `${base}/dataset/${d.id}`

export class GraphBuilder {
  readonly quads: Quad[] = []
  constructor(private readonly base: string) {}

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
    const node = namedNode(datasetUri(base, d))
    this.add(node, a, iri('dcat', 'Dataset'))
    this.add(node, iri('dct', 'title'), literal(str(d.title) ?? d.name))
    this.add(node, iri('dct', 'description'), literal(str(d.notes) ?? str(d.title) ?? d.name))
    this.add(node, iri('dct', 'identifier'), literal(str(d.extras?.find?.((e: Dict) => e.key === 'identifier')?.value) ?? d.id))
    for (const t of (d.tags ?? []) as Dict[]) this.add(node, iri('dcat', 'keyword'), literal(String(t.name)))
    this.add(node, iri('dct', 'issued'), dateTime(d.metadata_created))
    this.add(node, iri('dct', 'modified'), dateTime(d.metadata_modified))
    this.add(node, iri('owl', 'versionInfo'), str(d.version) ? literal(d.version) : undefined)
    const landing = absolute(d.url, base)
    if (landing) {
      const doc = namedNode(landing)
      this.add(node, iri('dcat', 'landingPage'), doc)
      this.add(doc, a, iri('foaf', 'Document'))
    }
    const org = d.organization as Dict | null
    if (org) this.add(node, iri('dct', 'publisher'), this.agent(str(org.title) ?? org.name, `${base}/organization/${encodeURIComponent(org.name)}`))
    const contactName = str(d.maintainer) ?? str(d.author)
    const contactEmail = str(d.maintainer_email) ?? str(d.author_email)
    if (contactName || contactEmail) {
      const kind = blankNode()
      this.add(node, iri('dcat', 'contactPoint'), kind)
      this.add(kind, a, iri('vcard', 'Kind'))
      if (contactName) this.add(kind, iri('vcard', 'fn'), literal(contactName))
      if (contactEmail && /^[^@\s]+@[^@\s]+$/.test(contactEmail)) this.add(kind, iri('vcard', 'hasEmail'), namedNode(`mailto:${contactEmail}`))
    }
    const license = absolute(d.license_url, base)
    for (const r of (d.resources ?? []) as Dict[]) {
      const dist = namedNode(`${base}/dataset/${d.id}/resource/${r.id}`)
      this.add(node, iri('dcat', 'distribution'), dist)
      this.add(dist, a, iri('dcat', 'Distribution'))
      this.add(dist, iri('dct', 'title'), str(r.name) ? literal(r.name) : undefined)
      this.add(dist, iri('dct', 'description'), str(r.description) ? literal(r.description) : undefined)
      const url = absolute(r.url, base)
      // DCAT-AP: an access URL always; an upload or a DataStore dump is also a download URL
      this.add(dist, iri('dcat', 'accessURL'), namedNode(url ?? `${base}/dataset/${d.id}/resource/${r.id}`))
      if (url && (r.url_type === 'upload' || r.url_type === 'datastore')) this.add(dist, iri('dcat', 'downloadURL'), namedNode(url))
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
      if (license) {
        const l = namedNode(license)
        this.add(dist, iri('dct', 'license'), l)
        this.add(l, a, iri('dct', 'LicenseDocument'))
      }
      if (typeof r.size === 'number' && Number.isInteger(r.size) && r.size >= 0) this.add(dist, iri('dcat', 'byteSize'), literal(String(r.size), iri('xsd', 'nonNegativeInteger')))
      this.add(dist, iri('dct', 'issued'), dateTime(r.created))
      this.add(dist, iri('dct', 'modified'), dateTime(r.last_modified ?? r.metadata_modified))
    }
    return node
  }

  /** The catalogue record of the site, listing `datasets`. */
  catalog(site: { title: string; description: string }, datasets: Dict[]) {
    const node = namedNode(`${this.base}/`)
    this.add(node, a, iri('dcat', 'Catalog'))
    this.add(node, iri('dct', 'title'), literal(site.title || 'CKAN'))
    this.add(node, iri('dct', 'description'), literal(site.description || site.title || 'CKAN'))
    this.add(node, iri('foaf', 'homepage'), this.document(`${this.base}/`))
    this.add(node, iri('dct', 'publisher'), this.agent(site.title || 'CKAN', `${this.base}/`))
    for (const d of datasets) this.add(node, iri('dcat', 'dataset'), this.dataset(d))
    return node
  }

  /** Hydra paging of a catalogue page (as ckanext-dcat's hydra:PagedCollection). */
  paging(pageUrl: (n: number) => string, page: number, total: number, perPage: number) {
    const node = namedNode(pageUrl(page))
    const last = Math.max(1, Math.ceil(total / perPage))
    this.add(node, a, iri('hydra', 'PagedCollection'))
    this.add(node, iri('hydra', 'totalItems'), literal(String(total), iri('xsd', 'integer')))
    this.add(node, iri('hydra', 'itemsPerPage'), literal(String(perPage), iri('xsd', 'integer')))
    this.add(node, iri('hydra', 'firstPage'), literal(pageUrl(1)))
    this.add(node, iri('hydra', 'lastPage'), literal(pageUrl(last)))
    if (page > 1) this.add(node, iri('hydra', 'previousPage'), literal(pageUrl(page - 1)))
    if (page < last) this.add(node, iri('hydra', 'nextPage'), literal(pageUrl(page + 1)))
  }
}
