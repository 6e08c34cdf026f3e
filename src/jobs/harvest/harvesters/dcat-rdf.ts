// ckanext-dcat's `dcat_rdf` source type: a DCAT catalogue as RDF (RDF/XML, Turtle, N-Triples,
// JSON-LD...), page after page while it links a Hydra next page; each dcat:Dataset kept as its own
// part of the graph (N-Triples) and read into a dataset dict by the DCAT-AP mapping.
import { Parser as N3Parser, Store } from 'n3'
import { datasetNodes, datasetQuads, canonicalNTriples, nextPage, parseRdf, rdfFormatFor, rdfFormatNamed, RdfSyntaxError, RDF_FORMAT_NAMES } from '../../../lib/dcat/rdf-read'
import { mungeTitleToName, parseDcatDataset } from '../dcat-parse'
import { NS } from '../../../lib/dcat/ns'
import { HarvestError, type Harvester } from '../types'
import { flag, keepIdentity, previousDataset, siteSchema } from './common'

/** Pages read in one run at most (a catalogue whose next links never end). */
export const DCAT_RDF_MAX_PAGES = 1000

const ACCEPT = 'application/rdf+xml, text/turtle;q=0.9, application/ld+json;q=0.9, application/n-triples;q=0.8, */*;q=0.5'

const firstValue = (store: Store, s: Parameters<Store['getObjects']>[0], p: string) => store.getObjects(s, NS.dct + p, null)[0]?.value ?? ''

export const dcatRdfHarvester: Harvester = {
  info: {
    name: 'dcat_rdf',
    title: 'Generic DCAT RDF Harvester',
    description: 'Harvester for DCAT datasets from an RDF graph',
    form_config_interface: 'Text',
  },

  validateConfig(config) {
    if ('rdf_format' in config) {
      if (typeof config.rdf_format !== 'string') throw new Error('rdf_format must be a string')
      if (!rdfFormatNamed(config.rdf_format)) throw new Error(`rdf_format should be one of: ${RDF_FORMAT_NAMES.join(', ')}`)
    }
  },

  async *gather(ctx) {
    const configured = typeof ctx.config.rdf_format === 'string' ? ctx.config.rdf_format : undefined
    const contexts = { load: (url: string) => ctx.fetch.json(url, { headers: { accept: 'application/ld+json, application/json' } }) }
    const pages = new Set<string>()
    let url: string | undefined = ctx.source.url
    let previousText: string | undefined
    while (url) {
      if (pages.size >= DCAT_RDF_MAX_PAGES) {
        ctx.error(`Stopped after ${DCAT_RDF_MAX_PAGES} pages; ${url} and the pages after it were not read`)
        return
      }
      pages.add(url)
      const got = await ctx.fetch.text(url, { accept: ACCEPT })
      if (previousText !== undefined && got.text === previousText) {
        ctx.log('WARNING', `${got.url} is the same as the page before it: no more pages read`)
        break
      }
      previousText = got.text
      const format = rdfFormatFor(configured, got.contentType, got.text)
      let quads
      try {
        quads = await parseRdf(got.text, format, { baseIRI: got.url, contexts })
      } catch (e) {
        if (e instanceof RdfSyntaxError) throw new HarvestError(`Error parsing the RDF file ${got.url} (${format}): ${e.message}`)
        throw e
      }
      const store = new Store(quads)
      for (const node of datasetNodes(store)) {
        // ckanext-dcat's guid: the dataset's URI, else its dct:identifier, else the source URL and a name from the title
        let guid = node.termType === 'NamedNode' ? node.value : firstValue(store, node, 'identifier')
        if (!guid) {
          const title = firstValue(store, node, 'title')
          if (!title) {
            ctx.error(`A dataset on ${got.url} has no URI, no dct:identifier and no title: it cannot be told apart, so it is left out`)
            continue
          }
          guid = `${ctx.source.url.replace(/\/+$/, '')}/${mungeTitleToName(title)}`
        }
        yield { guid, content: canonicalNTriples(datasetQuads(store, node)), modified: firstValue(store, node, 'modified') || undefined }
      }
      const next = nextPage(store)
      url = next ? new URL(next, got.url).href : undefined
      if (url && pages.has(url)) {
        ctx.log('WARNING', `${got.url} links back to ${url}: no more pages read`)
        break
      }
    }
    ctx.fullListing()
  },

  async toDataset(obj, ctx) {
    const store = new Store(new N3Parser({ format: 'N-Triples' }).parse(obj.content))
    const node = datasetNodes(store)[0]
    if (!node) throw new HarvestError('The harvest object holds no dcat:Dataset')
    const dataset = parseDcatDataset(store, node, {
      defaultLang: ctx.deps.config.str('service.locale_default') || 'en',
      schema: siteSchema(ctx),
      cleanTags: flag(ctx.config, 'clean_tags'),
    })
    if (typeof dataset.title !== 'string' || !dataset.title.trim()) throw new HarvestError('The dataset has no dct:title')
    dataset.name = mungeTitleToName(dataset.title)
    const extras = dataset.extras as { key: string; value: unknown }[]
    extras.push({ key: 'guid', value: obj.guid })
    return { dataset: keepIdentity(dataset, await previousDataset(ctx, obj.guid), (r) => (r.uri ? String(r.uri) : undefined)) }
  },

  originalUrl: (_source, guid) => (/^https?:\/\//.test(guid) ? guid : undefined),
}
