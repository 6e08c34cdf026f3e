// The graph as Turtle and Notation3 (n3's writer), JSON-LD (compacted on the prefixes, as rdflib's
// auto_compact writes it for ckanext-dcat), RDF/XML (written here: a flat rdf:Description per
// subject), and Croissant's framed JSON-LD (one tree from the dataset, on mlcommons' context).
import { Writer, type Quad } from 'n3'
import { NS } from './graph'

/** The extensions ckanext-dcat serves (`rdf` and `xml` are both RDF/XML). */
export const RDF_FORMATS = ['rdf', 'xml', 'ttl', 'n3', 'jsonld'] as const
export type RdfFormat = (typeof RDF_FORMATS)[number]
export const isRdfFormat = (f: unknown): f is RdfFormat => typeof f === 'string' && (RDF_FORMATS as readonly string[]).includes(f)

/** ckanext-dcat's CONTENT_TYPES, sent as they are (no charset parameter). */
export const MEDIA_TYPES: Record<RdfFormat, string> = {
  rdf: 'application/rdf+xml',
  xml: 'application/rdf+xml',
  n3: 'text/n3',
  ttl: 'text/turtle',
  jsonld: 'application/ld+json',
}

/** The prefixes of NS that the graph uses (one prefix per namespace). */
function usedPrefixes(quads: Quad[]): Record<string, string> {
  const iris = new Set<string>()
  for (const q of quads) {
    iris.add(q.predicate.value)
    if (q.object.termType === 'NamedNode') iris.add(q.object.value)
    if (q.object.termType === 'Literal') iris.add(q.object.datatype.value)
  }
  const out: Record<string, string> = {}
  for (const [prefix, ns] of Object.entries(NS)) if ([...iris].some((i) => i.startsWith(ns))) out[prefix] = ns
  return out
}

export function turtle(quads: Quad[], format: 'Turtle' | 'N3' = 'Turtle'): string {
  let out = ''
  const w = new Writer({ prefixes: usedPrefixes(quads), format })
  w.addQuads(quads)
  // n3's writer calls back at once when it writes to a string
  w.end((err, result) => {
    if (err) throw err
    out = result
  })
  return out
}

const termId = (t: Quad['subject']) => (t.termType === 'BlankNode' ? `_:${t.value}` : t.value)

function curie(iri: string, prefixes: Record<string, string>): string {
  for (const [p, ns] of Object.entries(prefixes)) if (iri.startsWith(ns) && /^[A-Za-z_][\w.-]*$/.test(iri.slice(ns.length))) return `${p}:${iri.slice(ns.length)}`
  return iri
}

type JsonNode = Record<string, unknown>

/** Subject → its node, properties in CURIEs, each value single or a list, as compacted JSON-LD. */
function compactNodes(quads: Quad[], prefixes: Record<string, string>): Map<string, JsonNode> {
  const nodes = new Map<string, JsonNode>()
  for (const q of quads) {
    const id = termId(q.subject as Quad['subject'])
    let node = nodes.get(id)
    if (!node) nodes.set(id, (node = { '@id': id }))
    const o = q.object
    const isType = q.predicate.value === `${NS.rdf}type`
    const key = isType ? '@type' : curie(q.predicate.value, prefixes)
    const value = isType
      ? curie(o.value, prefixes)
      : o.termType === 'Literal'
        ? o.language
          ? { '@language': o.language, '@value': o.value }
          : o.datatype.value === `${NS.xsd}string`
            ? o.value
            : { '@type': curie(o.datatype.value, prefixes), '@value': o.value }
        : { '@id': termId(o as Quad['subject']) }
    const prev = node[key]
    node[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value]
  }
  return nodes
}

/** JSON-LD compacted on the prefixes the graph uses: one node at the top, or an @graph. */
export function jsonLd(quads: Quad[], space?: number): string {
  const prefixes = usedPrefixes(quads)
  const nodes = [...compactNodes(quads, prefixes).values()]
  const doc = nodes.length === 1 ? { '@context': prefixes, ...nodes[0] } : { '@context': prefixes, '@graph': nodes }
  return JSON.stringify(doc, null, space)
}

/** JSON for inside an HTML <script>: <, >, & and the line separators as \u escapes. */
export const htmlSafeJson = (json: string) => json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** The JSON-LD context of Croissant 1.0 (mlcommons' terms), with the site's language. */
export function croissantContext(language: string): Record<string, unknown> {
  const cr = (t: string) => `cr:${t}`
  const ctx: Record<string, unknown> = { '@vocab': 'https://schema.org/', '@language': language, sc: 'https://schema.org/', cr: NS.cr, rai: 'http://mlcommons.org/croissant/RAI/', dct: NS.dct }
  for (const t of ['citeAs', 'column', 'excludes', 'extract', 'field', 'fileProperty', 'fileObject', 'fileSet', 'format', 'includes', 'isLiveDataset', 'jsonPath', 'key', 'md5', 'parentField', 'path', 'recordSet', 'references', 'regex', 'repeated', 'replace', 'separator', 'source', 'subField', 'transform'])
    ctx[t] = cr(t)
  ctx.conformsTo = 'dct:conformsTo'
  ctx.data = { '@id': 'cr:data', '@type': '@json' }
  ctx.dataType = { '@id': 'cr:dataType', '@type': '@vocab' }
  ctx.examples = { '@id': 'cr:examples', '@type': '@json' }
  return ctx
}

/**
 * Croissant's JSON-LD: the graph framed on its sc:Dataset (the other nodes embedded where they are
 * first referenced, blank nodes without ids), compacted on `croissantContext` (schema.org terms
 * bare, cr: terms by their names); keys sorted.
 */
export function croissantJsonLd(quads: Quad[], language: string, space = 4): string {
  const context = croissantContext(language)
  const terms = new Map<string, string>()
  for (const [k, v] of Object.entries(context)) {
    const id = typeof v === 'string' ? v : typeof v === 'object' && v ? (v as Record<string, string>)['@id'] : undefined
    if (id?.startsWith('cr:') || id?.startsWith('dct:')) terms.set(id.startsWith('cr:') ? NS.cr + id.slice(3) : NS.dct + id.slice(4), k)
  }
  const vocabTypes = new Set(['dataType'])
  const key = (iri: string) => terms.get(iri) ?? (iri.startsWith(NS.sc) ? iri.slice(NS.sc.length) : iri.startsWith(NS.cr) ? `cr:${iri.slice(NS.cr.length)}` : iri)
  const typeName = (iri: string) => (iri.startsWith(NS.sc) ? iri.slice(NS.sc.length) : iri.startsWith(NS.cr) ? `cr:${iri.slice(NS.cr.length)}` : iri)
  const bySubject = new Map<string, Quad[]>()
  for (const q of quads) {
    const id = termId(q.subject as Quad['subject'])
    ;(bySubject.get(id) ?? bySubject.set(id, []).get(id)!).push(q)
  }
  const root = quads.find((q) => q.predicate.value === `${NS.rdf}type` && q.object.value === `${NS.sc}Dataset`)
  if (!root) return JSON.stringify({ '@context': context }, null, space)
  const embedded = new Set<string>()
  const render = (id: string): JsonNode => {
    embedded.add(id)
    const node: JsonNode = id.startsWith('_:') ? {} : { '@id': id }
    for (const q of bySubject.get(id) ?? []) {
      const o = q.object
      let k: string
      let v: unknown
      if (q.predicate.value === `${NS.rdf}type`) {
        k = '@type'
        v = typeName(o.value)
      } else {
        k = key(q.predicate.value)
        if (o.termType === 'Literal') {
          v = o.language ? { '@language': o.language, '@value': o.value } : o.datatype.value === `${NS.xsd}string` ? { '@value': o.value } : { '@type': o.datatype.value, '@value': o.value }
        } else if (vocabTypes.has(k) && o.value.startsWith(NS.sc)) {
          v = o.value.slice(NS.sc.length)
        } else {
          const ref = termId(o as Quad['subject'])
          v = embedded.has(ref) || !bySubject.has(ref) ? { '@id': ref } : render(ref)
        }
      }
      const prev = node[k]
      node[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
    }
    return sortKeys(node)
  }
  const tree = render(termId(root.subject as Quad['subject']))
  return JSON.stringify({ '@context': sortKeys(context), ...tree }, null, space)
}

function sortKeys(o: JsonNode): JsonNode {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

const xml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#x27;')
// characters XML 1.0 cannot carry at all
const xmlText = (s: string) => xml(s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ''))

function qname(iri: string): string {
  for (const [prefix, ns] of Object.entries(NS)) if (iri.startsWith(ns) && /^[A-Za-z_][\w.-]*$/.test(iri.slice(ns.length))) return `${prefix}:${iri.slice(ns.length)}`
  throw new Error(`no prefix for ${iri}`)
}

export function rdfXml(quads: Quad[]): string {
  const bySubject = new Map<string, Quad[]>()
  for (const q of quads) {
    const id = termId(q.subject as Quad['subject'])
    ;(bySubject.get(id) ?? bySubject.set(id, []).get(id)!).push(q)
  }
  let out = '<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF'
  for (const [prefix, ns] of Object.entries({ rdf: NS.rdf, ...usedPrefixes(quads) })) out += `\n  xmlns:${prefix}="${ns}"`
  out += '>\n'
  for (const [id, list] of bySubject) {
    const subject = id.startsWith('_:') ? `rdf:nodeID="${xml(id.slice(2))}"` : `rdf:about="${xml(id)}"`
    out += `  <rdf:Description ${subject}>\n`
    for (const q of list) {
      const p = qname(q.predicate.value)
      const o = q.object
      if (o.termType === 'NamedNode') out += `    <${p} rdf:resource="${xml(o.value)}"/>\n`
      else if (o.termType === 'BlankNode') out += `    <${p} rdf:nodeID="${xml(o.value)}"/>\n`
      else if (o.termType === 'Literal') {
        const attr = o.language ? ` xml:lang="${xml(o.language)}"` : o.datatype.value !== `${NS.xsd}string` ? ` rdf:datatype="${xml(o.datatype.value)}"` : ''
        out += `    <${p}${attr}>${xmlText(o.value)}</${p}>\n`
      }
    }
    out += '  </rdf:Description>\n'
  }
  return out + '</rdf:RDF>\n'
}

export function serialize(quads: Quad[], format: RdfFormat): string {
  switch (format) {
    case 'ttl':
      return turtle(quads)
    case 'n3':
      return turtle(quads, 'N3')
    case 'jsonld':
      return jsonLd(quads)
    default:
      return rdfXml(quads)
  }
}
