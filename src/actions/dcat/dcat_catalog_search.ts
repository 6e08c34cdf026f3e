// dcat_catalog_search (ckanext-dcat): the same page of the catalogue as dcat_catalog_show.
import { dcatCatalog } from './dcat_catalog_show'

export const dcatCatalogSearch = dcatCatalog({
  name: 'dcat_catalog_search',
  help: `Return the datasets a search finds as an RDF catalogue page, with Hydra paging (ckanext-dcat;
the same answer as dcat_catalog_show).

:param format: the serialization: xml or rdf (RDF/XML, the default), ttl, n3 or jsonld
:type format: string
:param page: the page, from 1 (optional)
:type page: int
:param q: a search query (optional)
:type q: string
:param fq: a filter query (optional)
:type fq: string
:param modified_since: only datasets modified since this ISO 8601 date (optional)
:type modified_since: string
:param profiles: the profiles to serialize with (optional, default: ckanext.dcat.rdf.profiles)
:type profiles: list of strings, or a comma-separated string
:rtype: string`,
})
