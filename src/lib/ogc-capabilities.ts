// The parts of an OGC GetCapabilities document that a preview shows: the service's title and
// version, and its layers (name, title, WGS84 box; WMTS tile matrix sets and formats). WMS 1.1.1
// (WMT_MS_Capabilities), WMS 1.3.0 (WMS_Capabilities) and WMTS 1.0.0 (Capabilities); a
// ServiceExceptionReport or ows:ExceptionReport is an error with the service's own message. Read
// with saxes (no DTD or entity expansion: an external entity is never fetched).
import { SaxesParser } from 'saxes'

export type OgcService = 'wms' | 'wmts'

export interface OgcLayer {
  name: string
  title: string
  abstract?: string
  /** [west, south, east, north] in WGS84 degrees, when the document gives it */
  bbox?: [number, number, number, number]
  /** WMTS: the tile matrix sets the layer is served in */
  tileMatrixSets?: string[]
  formats?: string[]
}

export interface OgcCapabilities {
  service: OgcService
  version: string
  title: string
  layers: OgcLayer[]
}

export class CapabilitiesError extends Error {}

interface El {
  name: string // local name, no prefix
  attrs: Record<string, string>
  children: El[]
  text: string
}

const local = (n: string) => n.slice(n.indexOf(':') + 1)
/** At most this many elements are read (a capabilities document of a big server has some thousands). */
const MAX_ELEMENTS = 200_000
const MAX_LAYERS = 1000

function tree(xml: string): El {
  const parser = new SaxesParser({ xmlns: false })
  const root: El = { name: '#root', attrs: {}, children: [], text: '' }
  const stack: El[] = [root]
  let count = 0
  parser.on('opentag', (t) => {
    if (++count > MAX_ELEMENTS) throw new CapabilitiesError(`The capabilities document has more than ${MAX_ELEMENTS} elements`)
    const attrs: Record<string, string> = {}
    for (const [k, v] of Object.entries(t.attributes)) attrs[local(k)] = String(v)
    const el: El = { name: local(t.name), attrs, children: [], text: '' }
    stack[stack.length - 1]!.children.push(el)
    stack.push(el)
  })
  parser.on('closetag', () => void stack.pop())
  parser.on('text', (s) => {
    stack[stack.length - 1]!.text += s
  })
  parser.on('cdata', (s) => {
    stack[stack.length - 1]!.text += s
  })
  try {
    parser.write(xml).close()
  } catch (e) {
    if (e instanceof CapabilitiesError) throw e
    throw new CapabilitiesError(`The capabilities document is not well-formed XML: ${(e as Error).message.split('\n')[0]}`)
  }
  const top = root.children[0]
  if (!top) throw new CapabilitiesError('The capabilities document is empty')
  return top
}

const child = (e: El | undefined, name: string) => e?.children.find((c) => c.name === name)
const children = (e: El | undefined, name: string) => e?.children.filter((c) => c.name === name) ?? []
const textOf = (e: El | undefined) => e?.text.trim() ?? ''
const num = (s: string | undefined) => (s !== undefined && s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : undefined)

function box(w?: number, s?: number, e?: number, n?: number): [number, number, number, number] | undefined {
  return w !== undefined && s !== undefined && e !== undefined && n !== undefined ? [w, s, e, n] : undefined
}

/** An exception report's messages, or undefined when the document is not one. */
function exception(top: El): string | undefined {
  if (top.name === 'ServiceExceptionReport')
    return children(top, 'ServiceException').map((x) => [x.attrs.code, textOf(x)].filter(Boolean).join(': ')).join('; ') || 'ServiceExceptionReport'
  if (top.name === 'ExceptionReport')
    return (
      children(top, 'Exception')
        .map((x) => [x.attrs.exceptionCode, ...children(x, 'ExceptionText').map(textOf)].filter(Boolean).join(': '))
        .join('; ') || 'ExceptionReport'
    )
  return undefined
}

function wmsLayers(layer: El | undefined, inherited: OgcLayer['bbox'], out: OgcLayer[]) {
  if (!layer || out.length >= MAX_LAYERS) return
  const ex = child(layer, 'EX_GeographicBoundingBox')
  const ll = child(layer, 'LatLonBoundingBox')
  const own = ex
    ? box(num(textOf(child(ex, 'westBoundLongitude'))), num(textOf(child(ex, 'southBoundLatitude'))), num(textOf(child(ex, 'eastBoundLongitude'))), num(textOf(child(ex, 'northBoundLatitude'))))
    : ll
      ? box(num(ll.attrs.minx), num(ll.attrs.miny), num(ll.attrs.maxx), num(ll.attrs.maxy))
      : undefined
  const bbox = own ?? inherited
  const name = textOf(child(layer, 'Name'))
  // a layer without a name is a category: only its named sublayers can be requested
  if (name) {
    const abstract = textOf(child(layer, 'Abstract'))
    out.push({ name, title: textOf(child(layer, 'Title')) || name, ...(abstract ? { abstract } : {}), ...(bbox ? { bbox } : {}) })
  }
  for (const sub of children(layer, 'Layer')) wmsLayers(sub, bbox, out)
}

function wmtsLayers(contents: El | undefined): OgcLayer[] {
  return children(contents, 'Layer')
    .slice(0, MAX_LAYERS)
    .map((l) => {
      const wgs = child(l, 'WGS84BoundingBox')
      const lower = textOf(child(wgs, 'LowerCorner')).split(/\s+/).map(Number)
      const upper = textOf(child(wgs, 'UpperCorner')).split(/\s+/).map(Number)
      const bbox = wgs ? box(lower[0], lower[1], upper[0], upper[1]) : undefined
      const name = textOf(child(l, 'Identifier'))
      const abstract = textOf(child(l, 'Abstract'))
      return {
        name,
        title: textOf(child(l, 'Title')) || name,
        ...(abstract ? { abstract } : {}),
        ...(bbox && bbox.every(Number.isFinite) ? { bbox } : {}),
        tileMatrixSets: children(l, 'TileMatrixSetLink').map((s) => textOf(child(s, 'TileMatrixSet'))).filter(Boolean),
        formats: children(l, 'Format').map(textOf).filter(Boolean),
      }
    })
    .filter((l) => l.name)
}

/** Reads a capabilities document; throws CapabilitiesError with a message for the page. */
export function parseCapabilities(xml: string): OgcCapabilities {
  const top = tree(xml)
  const failure = exception(top)
  if (failure) throw new CapabilitiesError(`The service answered with an exception: ${failure}`)
  if (top.name === 'WMS_Capabilities' || top.name === 'WMT_MS_Capabilities') {
    const layers: OgcLayer[] = []
    const capability = child(top, 'Capability')
    for (const l of children(capability, 'Layer')) wmsLayers(l, undefined, layers)
    return { service: 'wms', version: top.attrs.version ?? '', title: textOf(child(child(top, 'Service'), 'Title')), layers }
  }
  if (top.name === 'Capabilities') {
    const ident = child(top, 'ServiceIdentification')
    return { service: 'wmts', version: top.attrs.version ?? '', title: textOf(child(ident, 'Title')), layers: wmtsLayers(child(top, 'Contents')) }
  }
  throw new CapabilitiesError(`The document is not a WMS or WMTS capabilities document (its root element is ${top.name})`)
}

/**
 * The GetCapabilities request of a service URL: the URL's own query kept, SERVICE / REQUEST (and
 * WMS's VERSION) set when absent, in any case. A URL that already asks for GetCapabilities (or a
 * WMTS RESTful WMTSCapabilities.xml) is used as it is.
 */
export function capabilitiesUrl(url: string, service: OgcService): string {
  const u = new URL(url)
  if (/WMTSCapabilities\.xml$/i.test(u.pathname)) return u.href
  const has = (k: string) => [...u.searchParams.keys()].some((x) => x.toLowerCase() === k)
  if (!has('service')) u.searchParams.set('SERVICE', service.toUpperCase())
  if (!has('request')) u.searchParams.set('REQUEST', 'GetCapabilities')
  if (service === 'wms' && !has('version')) u.searchParams.set('VERSION', '1.3.0')
  return u.href
}
