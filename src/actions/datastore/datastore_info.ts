// datastore_info: a table's columns (with types and data dictionary) and row count.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { infoKind } from '../../datastore/column-types'
import { datastoreReaderOf, findResourceToRead } from '../../datastore/access'
import { requireCanReadResource } from '../../auth/resource'
import { fieldDict, requireTable } from '../../datastore/registry'
import { quoteIdent } from '../../datastore/ident'
import { resourceIdOf } from '../../datastore/params'
import { MISSING } from '../../validation/fields'

export const datastoreInfo = defineAction({
  name: 'datastore_info',
  readOnly: true,
  validateFirst: true,
  help: `Describe a DataStore table.

:param id: the resource id of the table
:type id: string
:param resource_id: the same, under CKAN 2.11's name (either may be given; id is not needed
  when it is)
:type resource_id: string
:returns: schema (column to "number", "date" or "text"), meta (count: the number of rows) and
  fields (each column's id, type and info, as datastore_search lists them)
:rtype: dictionary`,
  auth: async (ctx, input) => {
    const res = await findResourceToRead(ctx, asText(resourceIdOf(input)))
    if (!res) throw new NotFound()
    await requireCanReadResource(ctx, res)
  },
  // ckan 2.11 reads resource_id, then id; a call with neither keeps 2.9's error under id
  params: z
    .looseObject({})
    .transform((p, c) => {
      const id = resourceIdOf(p)
      if (id === undefined) c.addIssue({ code: 'custom', path: ['id'], message: MISSING })
      return { id: id ?? '' }
    }),
  async run(ctx, p) {
    const db = datastoreReaderOf(ctx)
    // ckan: resource_show comes first, so an alias or unknown id is a plain Not found
    if (!(await findResourceToRead(ctx, p.id))) throw new NotFound()
    const t = await requireTable(db, p.id)
    const { rows } = await db.query(`SELECT count(*) FROM ${quoteIdent(t.id)}`)
    const schema: Record<string, string> = {}
    t.columns.forEach((c, i) => (schema[c.id] = infoKind(t.types[i]!)))
    return {
      schema,
      meta: { count: Number(rows[0]?.[0] ?? 0) },
      fields: [
        { id: '_id', type: 'int' },
        ...t.columns.map(fieldDict),
      ],
    }
  },
})
