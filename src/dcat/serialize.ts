// The DCAT graph as Turtle (n3's writer), JSON-LD (expanded form, with the prefixes as @context)
// and RDF/XML (written here: a flat rdf:Description per subject).
import { Writer, type Quad } from 'n3'
import { NS } from './graph'
import { escapeHtml } from '../http/envelope'

export type RdfFormat = 'ttl' | 'jsonld' | 'rdf' | 'xml'

export const MEDIA_TYPES: Record<RdfFormat, string> = {
  ttl: 'text/turtle',
  jsonld: 'application/ld+json',
  rdf: 'application/rdf+xml',
  xml: 'application/rdf+xml',
}

export function turtle(quads: Quad[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const w = new Writer({ prefixes: { ...NS } })
    w.addQuads(quads)
    w.end((err, out) => (err ? reject(err) : resolve(out)))
  })
}

const termId = (t: Quad['subject']) => (t.termType === 'BlankNode' ? `_:${t.value}` : t.value)

export function jsonLd(quads: Quad[]): string {
  const nodes = new Map<string, Record<string, unknown[] | string>>()
  for (const q of quads) {
    const id = termId(q.subject as Quad['subject'])
    let node = nodes.get(id)
    if (!node) nodes.set(id, (node = { '@id': id }))
    const o = q.object
    const key = q.predicate.value === `${NS.rdf}type` ? '@type' : q.predicate.value
    const value =
      key === '@type'
        ? o.value
        : o.termType === 'Literal'
          ? o.language
            ? { '@value': o.value, '@language': o.language }
            : o.datatype.value === `${NS.xsd}string`
              ? { '@value': o.value }
              : { '@value': o.value, '@type': o.datatype.value }
          : { '@id': termId(o as Quad['subject']) }
    ;((node[key] as unknown[] | undefined) ?? (node[key] = [])) as unknown[]
    ;(node[key] as unknown[]).push(value)
  }
  return JSON.stringify({ '@context': { ...NS }, '@graph': [...nodes.values()] })
}

const xml = escapeHtml
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
  for (const [prefix, ns] of Object.entries(NS)) out += `\n  xmlns:${prefix}="${ns}"`
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

export async function serialize(quads: Quad[], format: RdfFormat): Promise<string> {
  return format === 'ttl' ? turtle(quads) : format === 'jsonld' ? jsonLd(quads) : rdfXml(quads)
}
