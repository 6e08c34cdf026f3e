// ckanext-dcat's `dcat_json` source type: a DCAT-US 1.1 (Project Open Data) data.json catalogue,
// or a plain list of its dataset entries. Pages as ckanext-dcat's JSON harvester reads them
// (?page=2, 3... while each answers new identifiers); non-public entries are left out, as data.gov
// does. Each entry becomes a dataset: ckanext-dcat's converter for the core fields and its
// extras, the other DCAT-US fields as extras under their own names (or the site schema's fields).
import { sha1 } from '@noble/hashes/legacy.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { LICENSES } from '../../../model/license'
import { mungeTitleToName, type DcatSchemaInfo } from '../dcat-parse'
import { HarvestError, type Harvester } from '../types'
import { flag, keepIdentity, previousDataset, siteSchema } from './common'

type Dict = Record<string, any>

/** Pages read in one run at most. */
export const DCAT_JSON_MAX_PAGES = 1000

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((x): x is string => !!x) : str(v) ? [str(v)!] : [])

/** The entries of a data.json document (a catalogue's `dataset`, or a list); anything else throws. */
export function dataJsonEntries(doc: unknown, where: string): unknown[] {
  if (Array.isArray(doc)) return doc
  if (isDict(doc)) {
    if (doc.dataset === undefined) return []
    if (Array.isArray(doc.dataset)) return doc.dataset
  }
  throw new HarvestError(`Error parsing file: ${where} is not a DCAT JSON catalogue (an object with a "dataset" list, or a list)`)
}

/** ckanext-dcat's guid for an entry: its identifier, else a hash of its JSON. */
export const entryGuid = (entry: Dict, text: string) => str(entry.identifier) ?? bytesToHex(sha1(utf8ToBytes(text)))

const withPage = (url: string, page: number) => `${url}${url.includes('?') ? '&' : '?'}page=${page}`

const LICENSE_BY_URL = new Map(LICENSES.filter((l) => l.url).map((l) => [l.url, l.id]))

export const dcatJsonHarvester: Harvester = {
  info: {
    name: 'dcat_json',
    title: 'DCAT JSON Harvester',
    description: 'Harvester for DCAT dataset descriptions serialized as JSON',
    form_config_interface: 'Text',
  },

  async *gather(ctx) {
    const listed = new Set<string>()
    for (let page = 1; ; page++) {
      if (page > DCAT_JSON_MAX_PAGES) {
        ctx.error(`Stopped after ${DCAT_JSON_MAX_PAGES} pages`)
        return
      }
      const url = page === 1 ? ctx.source.url : withPage(ctx.source.url, page)
      let got
      try {
        got = await ctx.fetch.text(url, { accept: 'application/json' })
      } catch (e) {
        // a page past the last may answer 404
        if (page > 1 && e instanceof HarvestError && /answered HTTP 404$/.test(e.message)) break
        throw e
      }
      let doc: unknown
      try {
        doc = JSON.parse(got.text)
      } catch (e) {
        throw new HarvestError(`Error parsing file ${got.url}: ${(e as Error).message}`)
      }
      const entries = dataJsonEntries(doc, got.url)
      let fresh = 0
      for (const entry of entries) {
        if (!isDict(entry)) {
          ctx.error(`An entry of ${got.url} is not a JSON object`)
          continue
        }
        const text = JSON.stringify(entry)
        const guid = entryGuid(entry, text)
        if (listed.has(guid)) continue
        listed.add(guid)
        fresh++
        const access = str(entry.accessLevel)
        if (access && access !== 'public') {
          ctx.log('INFO', `Dataset ${guid} is left out: its accessLevel is ${access}`)
          continue
        }
        yield { guid, content: text, modified: str(entry.modified) }
      }
      // an empty page ends the listing, and so does one with nothing new (a server without pages
      // answers page 2 as page 1)
      if (!fresh) break
    }
    ctx.fullListing()
  },

  async toDataset(obj, ctx) {
    let entry: unknown
    try {
      entry = JSON.parse(obj.content)
    } catch {
      throw new HarvestError(`Could not parse content for object ${obj.guid}`)
    }
    if (!isDict(entry)) throw new HarvestError('The harvest object is not a JSON object')
    const access = str(entry.accessLevel)
    if (access && access !== 'public') return { skip: `accessLevel is ${access}` }
    const dataset = dataJsonToDataset(entry, siteSchema(ctx), flag(ctx.config, 'clean_tags'))
    if (!str(dataset.title)) throw new HarvestError('The dataset has no title')
    dataset.name = mungeTitleToName(dataset.title)
    ;(dataset.extras as Dict[]).push({ key: 'guid', value: obj.guid })
    return { dataset: keepIdentity(dataset, await previousDataset(ctx, obj.guid), (r) => str(r.url)) }
  },
}

/** CKAN's munge_tag. */
const mungeTag = (t: string) => t.toLowerCase().trim().replace(/\s+/g, '-').replace(/[^\p{L}\p{N}\-_.]/gu, '')

/** A DCAT-US 1.1 dataset entry → a CKAN dataset dict. */
export function dataJsonToDataset(e: Dict, schema?: DcatSchemaInfo, cleanTags = false): Dict {
  const has = (f: string) => !!schema?.datasetFields.has(f)
  const extras: { key: string; value: string }[] = []
  const extra = (key: string, v: unknown) => {
    const value = Array.isArray(v) ? strList(v).join(',') : isDict(v) ? JSON.stringify(v) : str(v)
    if (value) extras.push({ key, value })
  }
  const d: Dict = {
    title: str(e.title),
    notes: str(e.description),
    url: str(e.landingPage),
    tags: strList(e.keyword).map((k) => ({ name: cleanTags ? mungeTag(k) : k })),
    resources: [] as Dict[],
    extras,
  }

  // ckanext-dcat's converter
  for (const k of ['issued', 'modified']) {
    if (has(k)) d[k] = str(e[k])
    else extra(`dcat_${k}`, e[k])
  }
  const publisher = isDict(e.publisher) ? e.publisher : str(e.publisher) ? { name: str(e.publisher) } : undefined
  if (publisher && str(publisher.name)) {
    if (has('publisher')) d.publisher = [{ name: str(publisher.name), email: str(publisher.email) ?? '', identifier: str(publisher.identifier) ?? '' }]
    else {
      extra('dcat_publisher_name', publisher.name)
      extra('dcat_publisher_email', publisher.email)
      extra('dcat_publisher_id', publisher.identifier)
    }
  }
  const creator = isDict(e.creator) ? e.creator : str(e.creator) ? { name: str(e.creator) } : undefined
  if (creator && str(creator.name)) {
    if (has('creator')) d.creator = [{ name: str(creator.name), email: str(creator.email) ?? '', identifier: str(creator.identifier) ?? '' }]
    else {
      extra('dcat_creator_name', creator.name)
      extra('dcat_creator_email', creator.email)
      extra('dcat_creator_id', creator.identifier)
    }
  }
  if (has('language')) d.language = strList(e.language)
  else extra('language', e.language)

  // the rest of DCAT-US 1.1, as data.gov keeps it
  if (has('identifier')) d.identifier = str(e.identifier)
  else extra('identifier', e.identifier)
  const contact = isDict(e.contactPoint) ? e.contactPoint : undefined
  const email = str(contact?.hasEmail)?.replace(/^mailto:/, '')
  if (contact && has('contact')) d.contact = [{ name: str(contact.fn) ?? '', email: email ?? '' }]
  else if (contact) {
    extra('contact_name', contact.fn)
    extra('contact_email', email)
  }
  extra('accessLevel', e.accessLevel)
  extra('bureauCode', e.bureauCode)
  extra('programCode', e.programCode)
  const license = str(e.license)
  const licenseId = license ? LICENSE_BY_URL.get(license) : undefined
  if (licenseId) d.license_id = licenseId
  else extra('license', license)
  if (has('access_rights')) d.access_rights = str(e.rights)
  else extra('rights', e.rights)
  const place = str(e.spatial) ? spatialItem(str(e.spatial)!) : undefined
  if (has('spatial_coverage') && place) d.spatial_coverage = [place]
  // the `spatial` extra holds GeoJSON (ckanext-spatial checks it on write): a box becomes its
  // polygon, as data.gov converts it; a place name goes to `spatial_text` (ckanext-dcat's name)
  else if (place?.bbox ?? place?.geom) extra('spatial', place.bbox ?? place.geom)
  else extra('spatial_text', e.spatial)
  const temporal = str(e.temporal)
  if (has('temporal_coverage') && temporal?.includes('/')) {
    const [start, end] = temporal.split('/')
    d.temporal_coverage = [{ start, end }]
  } else extra('temporal', temporal)
  if (has('theme')) d.theme = strList(e.theme)
  else extra('theme', e.theme)
  if (has('frequency')) d.frequency = str(e.accrualPeriodicity)
  else extra('accrualPeriodicity', e.accrualPeriodicity)
  if (has('conforms_to')) d.conforms_to = strList(e.conformsTo)
  else extra('conformsTo', e.conformsTo)
  if (has('documentation')) d.documentation = strList(e.references)
  else extra('references', e.references)
  for (const k of ['describedBy', 'describedByType', 'dataQuality', 'isPartOf', 'systemOfRecords', 'primaryITInvestmentUII']) extra(k, e[k])
  if (typeof e.dataQuality === 'boolean') extra('dataQuality', String(e.dataQuality))

  for (const dist of Array.isArray(e.distribution) ? e.distribution : []) {
    if (!isDict(dist)) continue
    const r: Dict = {
      name: str(dist.title),
      description: str(dist.description),
      url: str(dist.downloadURL) ?? str(dist.accessURL) ?? '',
      format: str(dist.format) ?? str(dist.mediaType),
    }
    if (str(dist.mediaType)) r.mimetype = str(dist.mediaType)
    if (str(dist.downloadURL)) r.download_url = str(dist.downloadURL)
    if (str(dist.accessURL)) r.access_url = str(dist.accessURL)
    if (str(dist.conformsTo)) r.conforms_to = str(dist.conformsTo)
    if (str(dist.describedBy)) r.describedBy = str(dist.describedBy)
    if (dist.byteSize !== undefined && Number.isInteger(Number(dist.byteSize))) r.size = Number(dist.byteSize)
    for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k]
    d.resources.push(r)
  }
  for (const k of Object.keys(d)) if (d[k] === undefined) delete d[k]
  return d
}

/** data.json's spatial: a bounding box "W,S,E,N" becomes a GeoJSON polygon, anything else a place name. */
function spatialItem(s: string): Dict {
  const parts = s.split(',').map((x) => Number(x.trim()))
  if (parts.length === 4 && parts.every((n) => Number.isFinite(n))) {
    const [w, so, ea, n] = parts as [number, number, number, number]
    return { bbox: JSON.stringify({ type: 'Polygon', coordinates: [[[w, so], [ea, so], [ea, n], [w, n], [w, so]]] }) }
  }
  try {
    const g = JSON.parse(s)
    if (isDict(g) && typeof g.type === 'string') return { geom: s }
  } catch {
    // a place name
  }
  return { text: s }
}
