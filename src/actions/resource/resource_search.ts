// resource_search: resources whose fields match field:term criteria, from public datasets only.
import { z } from 'zod'
import { defineAction } from '../action'
import { resourceCriteria, searchResources } from '../../model/resource-search'
import { jsonObject, naturalNumber } from '../../validation/fields'

export const resourceSearch = defineAction({
  name: 'resource_search',
  readOnly: true,
  help: `Search the resources of the site's active public datasets.

Returns a dictionary with "count", the number of matching resources, and "results", the
requested page of them as resource dictionaries.

Each criterion has the form "<field>:<term>". The field is one of the resource columns
(url, format, description, hash, name, resource_type, mimetype, mimetype_inner, size,
created, last_modified, metadata_modified, cache_url, cache_last_updated, url_type) or an
extra resource field allowed by the service.extra_resource_fields option. A term matches
when it is contained in the value, ignoring case; hash terms must be a prefix of the hash,
and size and date fields must be equal. All criteria must match.

:param query: the criteria
:type query: string or list of strings
:param fields: deprecated: a dictionary of field to terms (a string of terms is split on
    whitespace); cannot be combined with query
:type fields: dict
:param order_by: a resource field to sort the results by, ascending (optional)
:type order_by: string
:param offset: how many matching resources to skip (optional)
:type offset: int
:param limit: the most resources to return (optional)
:type limit: int
:rtype: dictionary`,
  auth: 'anyone',
  params: z.object({
    query: z.unknown().optional(),
    fields: jsonObject,
    order_by: z.unknown().optional(),
    offset: naturalNumber(),
    limit: naturalNumber(),
  }),
  async run(ctx, p) {
    return searchResources(ctx, {
      criteria: resourceCriteria(p.query, p.fields),
      orderBy: typeof p.order_by === 'string' ? p.order_by : undefined,
      offset: p.offset,
      limit: p.limit,
    })
  },
})
