// Reading RDF documents: RDF/XML, Turtle (and its N-Triples, N-Quads and TriG relatives) and JSON-LD
// into quads, the format told by a name, a media type or a look at the text; the Hydra link to a
// catalogue's next page; a dataset's own part of a graph, written as stable N-Triples (blank
// nodes labelled by their content, so an unchanged dataset reads the same every time).
import { Parser as N3Parser, Store, Writer, DataFactory, type Quad, type Term } from 'n3'
import { RdfXmlParser } from 'rdfxml-streaming-parser'
import { JsonLdParser } from 'jsonld-streaming-parser'
import { NS } from './ns'

const { namedNode, blankNode, quad: makeQuad } = DataFactory

export type RdfFormat = 'xml' | 'turtle' | 'n3' | 'nt' | 'nquads' | 'trig' | 'json-ld'

/** The names `rdf_format` takes (rdflib's parser names and the media types), each to its parser. */
const FORMAT_NAMES: Record<string, RdfFormat> = {
  xml: 'xml',
  'pretty-xml': 'xml',
  'application/rdf+xml': 'xml',
  turtle: 'turtle',
  ttl: 'turtle',
  'text/turtle': 'turtle',
  'application/x-turtle': 'turtle',
  n3: 'n3',
  'text/n3': 'n3',
  nt: 'nt',
  nt11: 'nt',
  ntriples: 'nt',
  'n-triples': 'nt',
  'application/n-triples': 'nt',
  nquads: 'nquads',
  'application/n-quads': 'nquads',
  trig: 'trig',
  'application/trig': 'trig',
  'json-ld': 'json-ld',
  jsonld: 'json-ld',
  'application/ld+json': 'json-ld',
}

/** The names `rdf_format` accepts, sorted. */
export const RDF_FORMAT_NAMES = Object.keys(FORMAT_NAMES).sort()

/** The parser for a format name or a media type (parameters ignored), else undefined. */
export function rdfFormatNamed(name: string | undefined): RdfFormat | undefined {
  if (!name) return undefined
  return FORMAT_NAMES[name.split(';')[0]!.trim().toLowerCase()]
}

/** A guess from the text itself: JSON is JSON-LD, markup is RDF/XML, anything else Turtle. */
export function sniffRdfFormat(text: string): RdfFormat {
  const s = text.replace(/^\uFEFF/, '').trimStart()
  if (s.startsWith('{') || s.startsWith('[')) return 'json-ld'
  // N-Triples and Turtle lines may start with <http://…>; markup starts with a tag name or <?, <!
  if (s.startsWith('<?') || s.startsWith('<!') || /^<[A-Za-z_][\w.-]*(:[\w.-]+)?[\s/>]/.test(s)) return 'xml'
  return 'turtle'
}

/**
 * The parser for a document: the configured format, else the media type when it names an RDF
 * one, else a look at the text. Generic types (application/json, application/xml, text/plain...)
 * are looked at.
 */
export function rdfFormatFor(configured: string | undefined, contentType: string, text: string): RdfFormat {
  const fromConfig = rdfFormatNamed(configured)
  if (fromConfig) return fromConfig
  const fromType = rdfFormatNamed(contentType)
  if (fromType) return fromType
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  if (type === 'application/json') return 'json-ld'
  if (type === 'application/xml' || type === 'text/xml') return 'xml'
  return sniffRdfFormat(text)
}

export class RdfSyntaxError extends Error {}

/** What JSON-LD needs to read a remote @context (the caller's guarded fetch), else none are read. */
export interface ContextLoader {
  load(url: string): Promise<unknown>
}

const N3_FORMATS: Partial<Record<RdfFormat, string>> = {
  turtle: 'Turtle',
  n3: 'N3',
  nt: 'N-Triples',
  nquads: 'N-Quads',
  trig: 'TriG',
}

/** Every quad of a document; a document that cannot be read throws an RdfSyntaxError. */
export async function parseRdf(text: string, format: RdfFormat, opts: { baseIRI?: string; contexts?: ContextLoader } = {}): Promise<Quad[]> {
  const n3Format = N3_FORMATS[format]
  if (n3Format) {
    try {
      return new N3Parser({ format: n3Format, baseIRI: opts.baseIRI }).parse(text)
    } catch (e) {
      throw new RdfSyntaxError((e as Error).message)
    }
  }
  if (format === 'json-ld') {
    // a truncated document would leave the streaming parser waiting: JSON is checked first
    try {
      JSON.parse(text)
    } catch (e) {
      throw new RdfSyntaxError(`not JSON: ${(e as Error).message}`)
    }
    const loader = {
      load: async (url: string) => {
        if (!opts.contexts) throw new Error(`remote contexts are not read (${url})`)
        return (await opts.contexts.load(url)) as never
      },
    }
    return stream(new JsonLdParser({ baseIRI: opts.baseIRI, documentLoader: loader as never }), text)
  }
  const xml = new RdfXmlParser({ baseIRI: opts.baseIRI })
  // the parser does not close its XML reader at the end, so an unclosed document would pass
  return stream(xml, text, () => (xml as unknown as { saxParser: { close(): void } }).saxParser.close())
}

interface QuadStream {
  on(event: 'data', f: (q: Quad) => void): unknown
  on(event: 'error', f: (e: Error) => void): unknown
  on(event: 'end', f: () => void): unknown
  write(chunk: string): unknown
  end(): unknown
}

/** Feeds `text` to a streaming parser and gathers its quads (as n3 terms, so a Store matches them). */
function stream(parser: QuadStream, text: string, close?: () => void): Promise<Quad[]> {
  return new Promise((resolve, reject) => {
    const out: Quad[] = []
    let done = false
    parser.on('data', (q) => void out.push(q))
    parser.on('error', (e) => {
      if (done) return
      done = true
      reject(new RdfSyntaxError(e.message))
    })
    parser.on('end', () => {
      if (done) return
      done = true
      resolve(out)
    })
    try {
      parser.write(text)
      close?.()
      if (!done) parser.end()
    } catch (e) {
      if (!done) {
        done = true
        reject(new RdfSyntaxError((e as Error).message))
      }
    }
  })
}

const RDF_TYPE = NS.rdf + 'type'
const HYDRA = NS.hydra

/**
 * The catalogue's next page, as ckanext-dcat reads it: hydra:next (else the older
 * hydra:nextPage) of a hydra:PartialCollectionView or hydra:PagedCollection.
 */
export function nextPage(store: Store): string | undefined {
  for (const type of ['PartialCollectionView', 'PagedCollection']) {
    for (const node of store.getSubjects(namedNode(RDF_TYPE), namedNode(HYDRA + type), null)) {
      for (const p of ['next', 'nextPage']) {
        const o = store.getObjects(node, namedNode(HYDRA + p), null)[0]
        if (o) return o.value
      }
    }
  }
  return undefined
}

/** The dcat:Dataset nodes of a graph, in document order. */
export function datasetNodes(store: Store): Term[] {
  return store.getSubjects(namedNode(RDF_TYPE), namedNode(NS.dcat + 'Dataset'), null)
}

/** Nodes a dataset's part of the graph stops at (other datasets, the catalogue, the paging). */
const BOUNDARY_TYPES = new Set([NS.dcat + 'Dataset', NS.dcat + 'Catalog', NS.dcat + 'DatasetSeries', HYDRA + 'PagedCollection', HYDRA + 'PartialCollectionView', HYDRA + 'Collection'])
/** How far from the dataset the statements of named nodes are taken (blank nodes: all). */
const NAMED_DEPTH = 3

/**
 * The statements about a dataset and what it points to (distributions, publisher, contact points,
 * periods, places, licences... blank or named), not going into other datasets or the catalogue.
 */
export function datasetQuads(store: Store, root: Term): Quad[] {
  const out: Quad[] = []
  const seen = new Set<string>([key(root)])
  const queue: [Term, number][] = [[root, 0]]
  while (queue.length) {
    const [node, depth] = queue.shift()!
    for (const q of store.getQuads(node, null, null, null)) {
      out.push(makeQuad(q.subject, q.predicate, q.object))
      const o = q.object
      if (q.predicate.value === RDF_TYPE || (o.termType !== 'BlankNode' && o.termType !== 'NamedNode')) continue
      if (seen.has(key(o))) continue
      seen.add(key(o))
      if (o.termType === 'NamedNode' && depth + 1 > NAMED_DEPTH) continue
      const types = store.getObjects(o, namedNode(RDF_TYPE), null)
      if (types.some((t) => BOUNDARY_TYPES.has(t.value))) continue
      queue.push([o, depth + 1])
    }
  }
  return out
}

const key = (t: Term) => `${t.termType}:${t.value}`

/**
 * N-Triples of `quads`, lines sorted, blank nodes labelled by what they hold (the same content gives
 * the same text whatever labels the parser made up).
 */
export function canonicalNTriples(quads: Quad[]): string {
  const bySubject = new Map<string, Quad[]>()
  for (const q of quads) {
    const k = key(q.subject)
    const list = bySubject.get(k)
    if (list) list.push(q)
    else bySubject.set(k, [q])
  }
  const sigs = new Map<string, string>()
  const sig = (t: Term, path: Set<string>): string => {
    if (t.termType !== 'BlankNode') return termText(t)
    const k = key(t)
    const known = sigs.get(k)
    if (known !== undefined) return known
    if (path.has(k)) return '_:cycle'
    path.add(k)
    const lines = (bySubject.get(k) ?? []).map((q) => `${q.predicate.value} ${sig(q.object, path)}`).sort()
    path.delete(k)
    const s = `[${lines.join(';')}]`
    sigs.set(k, s)
    return s
  }
  // blank nodes ordered by their signature, labels given in that order
  const blanks = new Map<string, Term>()
  for (const q of quads)
    for (const t of [q.subject, q.object]) if (t.termType === 'BlankNode') blanks.set(key(t), t)
  const ordered = [...blanks.values()].map((t) => [key(t), sig(t, new Set())] as const).sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
  const labels = new Map<string, string>()
  ordered.forEach(([k], i) => labels.set(k, `b${i}`))
  const relabel = (t: Term) => (t.termType === 'BlankNode' ? blankNode(labels.get(key(t))!) : t)
  const seen = new Set<string>()
  const lines: string[] = []
  const writer = new Writer({ format: 'N-Triples' })
  for (const q of quads) {
    const line = writer.quadToString(relabel(q.subject) as never, q.predicate as never, relabel(q.object) as never)
    if (seen.has(line)) continue
    seen.add(line)
    lines.push(line)
  }
  return lines.sort().join('')
}

function termText(t: Term): string {
  if (t.termType === 'NamedNode') return `<${t.value}>`
  if (t.termType === 'Literal') {
    const l = t as Term & { language: string; datatype: { value: string } }
    return JSON.stringify(t.value) + (l.language ? `@${l.language}` : `^^${l.datatype.value}`)
  }
  return t.value
}
