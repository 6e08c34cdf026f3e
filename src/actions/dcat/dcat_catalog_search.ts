// dcat_catalog_search (ckanext-dcat): the same page of the catalogue as dcat_catalog_show.
import { CATALOG_PARAMS_HELP, dcatCatalog } from './dcat_catalog_show'

export const dcatCatalogSearch = dcatCatalog({
  name: 'dcat_catalog_search',
  help: `Return the datasets a search finds as an RDF catalogue page, with Hydra paging (ckanext-dcat;
the same answer as dcat_catalog_show).

${CATALOG_PARAMS_HELP}`,
})
