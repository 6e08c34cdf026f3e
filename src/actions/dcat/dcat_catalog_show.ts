// dcat_catalog_show (ckanext-dcat): a page of the catalogue (the public datasets the search finds)
// serialized as RDF, with Hydra paging. dcatCatalog also makes dcat_catalog_search.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { optString } from '../../validation/fields'
import { catalogGraph } from '../../lib/dcat/profiles'
import type { PaginationInfo } from '../../lib/dcat/graph'
import { serialize } from '../../lib/dcat/serialize'
import { packageSearch } from '../package/package_search'
import { invoke } from '../invoke'
import { dcatSite, formatOf, kindsFor } from './dcat_dataset_show'

type Dict = Record<string, any>

export const WRONG_PAGE = 'Page param must be a positive integer starting in 1'
export const WRONG_DATE = 'Wrong modified date format. Use ISO-8601 format'

/** ckanext-dcat's page: absent, empty or 0 is 1; otherwise a whole number from 1. */
export function pageOf(v: unknown): number {
  if (v === undefined || v === null || v === '' || v === 0) return 1
  const n = typeof v === 'number' ? Math.trunc(v) : typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number.parseInt(v, 10) : NaN
  if (!Number.isSafeInteger(n) || n < 1) throw ValidationError.message(WRONG_PAGE)
  return n
}

/** The catalogue endpoint's path for a format (ckanext.dcat.catalog_endpoint). */
export const catalogPath = (ctx: ActionContext, format: string) =>
  (ctx.config.str('ckanext.dcat.catalog_endpoint') || '/catalog.{_format}').replace('{_format}', format)

const params = z.object({
  format: optString,
  _format: optString,
  page: z.unknown().optional(),
  q: optString,
  fq: optString,
  modified_since: optString,
  profiles: z.unknown().optional(),
})

/** ckanext-dcat's catalogue: package_search as the caller, one page, serialized under the profiles. */
export function dcatCatalog({ name, help }: { name: 'dcat_catalog_show' | 'dcat_catalog_search'; help: string }) {
  return defineAction({
    name,
    readOnly: true,
    help,
    auth: 'anyone',
    params,
    async run(ctx, p, input) {
      const format = formatOf(p)
      const kinds = kindsFor(ctx, p.profiles)
      const perPage = Math.max(1, ctx.config.int('ckanext.dcat.datasets_per_page') || 100)
      const page = pageOf(p.page)
      const fqList = ['-dataset_type:harvest', '-dataset_type:showcase']
      if (p.modified_since) {
        const t = Date.parse(p.modified_since)
        if (Number.isNaN(t)) throw ValidationError.message(WRONG_DATE)
        fqList.push(`metadata_modified:[${new Date(t).toISOString()} TO NOW]`)
      }
      const found = (await invoke(ctx, packageSearch, {
        q: p.q || '*:*',
        ...(p.fq ? { fq: p.fq } : {}),
        fq_list: fqList,
        rows: perPage,
        start: perPage * (page - 1),
        sort: 'metadata_modified desc, name asc',
      })) as Dict
      const site = dcatSite(ctx)
      return serialize(catalogGraph(kinds, site, found.results, pagination(ctx, site.uri, format, input, page, perPage, found)), format)
    },
  })
}

/** ckanext-dcat's pagination_info: none for an empty result; page URLs keep modified_since, profiles, q and fq. */
function pagination(ctx: ActionContext, uri: string, format: string, input: Dict, page: number, perPage: number, found: Dict): PaginationInfo | undefined {
  const count = Number(found.count)
  if (!count) return undefined
  const kept = ['modified_since', 'profiles', 'q', 'fq']
    .filter((k) => input[k] !== undefined && input[k] !== null && input[k] !== '')
    .map((k) => `${k}=${encodeURIComponent(Array.isArray(input[k]) ? input[k].join(',') : String(input[k]))}`)
  const url = (n: number) => `${uri}${catalogPath(ctx, format)}?${[...kept, `page=${n}`].join('&')}`
  const last = Math.ceil(count / perPage) || 1
  const info: PaginationInfo = { count, items_per_page: perPage, current: url(page), first: url(1), last: url(last) }
  if (page > 1) info.previous = url((page - 1) * perPage + found.results.length <= count ? page - 1 : last)
  if (page * perPage < count) info.next = url(page + 1)
  return info
}

/** The parameters both catalogue actions take, as their help lists them. */
export const CATALOG_PARAMS_HELP = `:param format: the serialization: xml or rdf (RDF/XML, the default), ttl, n3 or jsonld
:type format: string
:param page: the page, from 1 (optional; ckanext.dcat.datasets_per_page datasets a page)
:type page: int
:param q: a search query (optional)
:type q: string
:param fq: a filter query (optional)
:type fq: string
:param modified_since: only datasets modified since this ISO 8601 date (optional)
:type modified_since: string
:param profiles: the profiles to serialize with (optional, default: ckanext.dcat.rdf.profiles)
:type profiles: list of strings, or a comma-separated string
:rtype: string`

export const dcatCatalogShow = dcatCatalog({
  name: 'dcat_catalog_show',
  help: `Return a page of the catalogue serialized as RDF, with Hydra paging (ckanext-dcat).

${CATALOG_PARAMS_HELP}`,
})
