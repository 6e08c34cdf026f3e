// The namespaces of the DCAT graphs, with the prefixes the serialisers write.
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
  schema: 'http://schema.org/',
  sc: 'https://schema.org/',
  cr: 'http://mlcommons.org/croissant/',
  // used by the fields of ckanext-dcat's schemas only
  skos: 'http://www.w3.org/2004/02/skos/core#',
  locn: 'http://www.w3.org/ns/locn#',
  gsp: 'http://www.opengis.net/ont/geosparql#',
  spdx: 'http://spdx.org/rdf/terms#',
  dcatap: 'http://data.europa.eu/r5r/',
  eli: 'http://data.europa.eu/eli/ontology#',
} as const
