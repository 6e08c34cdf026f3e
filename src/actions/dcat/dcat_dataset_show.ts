// dcat_dataset_show (ckanext-dcat): one dataset serialized as RDF under the requested profiles.
import { z } from 'zod'
import { defineAction } from '../action'
import type { ActionContext } from '../../context'
import { ValidationError } from '../../errors'
import { optString, reqString } from '../../validation/fields'
import { loadPackage, packageDict } from '../../model/package'
import { requireCanReadPackage } from '../../auth/package'
import { datasetGraph, profileKinds, profileNames, UnknownProfiles, type DocumentSite, type ProfileKind, type Tables } from '../../lib/dcat/profiles'
import { croissantJsonLd, isRdfFormat, serialize, type RdfFormat } from '../../lib/dcat/serialize'
import { datastoreInfo } from '../datastore/datastore_info'
import { invoke } from '../invoke'

type Dict = Record<string, any>

/** The site as the DCAT profiles see it (title, description, URL, catalogue URI). */
export function dcatSite(ctx: ActionContext): DocumentSite {
  const url = ctx.config.str('service.site_url').replace(/\/+$/, '')
  return {
    title: ctx.config.str('service.site_title'),
    description: ctx.config.str('service.site_description'),
    url,
    uri: (ctx.config.str('ckanext.dcat.base_uri') || url).replace(/\/+$/, ''),
    spatialFormats: ctx.config.list('ckanext.dcat.output_spatial_format'),
  }
}

/** The profiles' graph kinds; ckanext-dcat's "Unknown RDF profiles: …" as a Validation Error. */
export function kindsFor(ctx: ActionContext, profiles: unknown, defaults = ctx.config.list('ckanext.dcat.rdf.profiles')): ProfileKind[] {
  try {
    return profileKinds(profileNames(profiles), defaults)
  } catch (e) {
    if (e instanceof UnknownProfiles) throw ValidationError.message(e.message)
    throw e
  }
}

/** ckanext-dcat reads `format` (RDF/XML when absent); `_format` is taken too. */
export function formatOf(p: { format?: string | null; _format?: string | null }): RdfFormat {
  const f = p.format || p._format || 'xml'
  if (!isRdfFormat(f)) throw ValidationError.message(`Unknown RDF format: ${f}`)
  return f
}

/** The DataStore fields of a dataset's active tables (Croissant's record sets), read without auth as ckanext-dcat does. */
async function tablesOf(ctx: ActionContext, d: Dict): Promise<Tables> {
  const tables: Tables = new Map()
  for (const r of (d.resources ?? []) as Dict[]) {
    if (!r.datastore_active || r.datastore_active === 'false') continue
    try {
      const info = (await invoke(ctx, datastoreInfo, { id: r.id }, { skipAuth: true })) as Dict
      tables.set(r.id, ((info.fields ?? []) as Dict[]).filter((f) => f.id !== '_id').map((f) => ({ id: String(f.id), type: String(f.type) })))
    } catch {
      // no DataStore, or no table: no record set
    }
  }
  return tables
}

/** A dataset dict under the profiles, in `format`; Croissant alone in JSON-LD is its framed form. */
export async function datasetDocument(ctx: ActionContext, d: Dict, kinds: ProfileKind[], format: RdfFormat): Promise<string> {
  const tables = kinds.includes('croissant') ? await tablesOf(ctx, d) : undefined
  const quads = datasetGraph(kinds, d, dcatSite(ctx), tables)
  if (format === 'jsonld' && kinds.length === 1 && kinds[0] === 'croissant') return croissantJsonLd(quads, ctx.config.str('service.locale_default') || 'en')
  return serialize(quads, format)
}

export const dcatDatasetShow = defineAction({
  name: 'dcat_dataset_show',
  // ckanext-dcat does not mark it side-effect free: POST only, as there
  readOnly: false,
  allowAnonymous: true,
  help: `Return the RDF serialization of a dataset (ckanext-dcat).

:param id: the id or name of the dataset
:type id: string
:param format: the serialization: xml or rdf (RDF/XML, the default), ttl, n3 or jsonld
:type format: string
:param profiles: the profiles to serialize with (optional, default: ckanext.dcat.rdf.profiles):
    euro_dcat_ap, euro_dcat_ap_2, euro_dcat_ap_3, euro_dcat_ap_scheming, euro_health_dcat_ap,
    dcat_us_3, schemaorg, croissant
:type profiles: list of strings, or a comma-separated string
:rtype: string`,
  // as package_show: a private dataset only to those who may read it
  auth: async (ctx, input) => requireCanReadPackage(ctx, await loadPackage(ctx, input.id ?? input.name_or_id, { field: 'name_or_id' })),
  params: z.object({
    id: reqString.optional(),
    name_or_id: reqString.optional(),
    format: optString,
    _format: optString,
    profiles: z.unknown().optional(),
  }),
  async run(ctx, params) {
    const format = formatOf(params)
    const kinds = kindsFor(ctx, params.profiles)
    const row = await loadPackage(ctx, params.id ?? params.name_or_id, { field: 'name_or_id' })
    return datasetDocument(ctx, await packageDict(ctx, row.id), kinds, format)
  },
})
