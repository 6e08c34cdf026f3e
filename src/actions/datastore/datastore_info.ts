// datastore_info: a table's columns (with types and data dictionary) and row count.
import { asText } from '../../model/package-validate'
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import { infoKind } from '../../datastore/column-types'
import { datastoreReaderOf, findResourceToRead } from '../../datastore/access'
import { requireCanReadResource } from '../../auth/resource'
import { fieldDict, findTableByName, requireTable } from '../../datastore/registry'
import { tableInfo } from '../../datastore/info'
import { apiAtLeast } from '../../config/api-compat'
import type { ActionContext } from '../../context'
import { quoteIdent } from '../../datastore/ident'
import { resourceIdOf } from '../../datastore/params'
import { MISSING } from '../../validation/fields'

/** ckan 2.10: the table behind a table id or an alias, else Not Found in CKAN's words. */
async function tableOf(ctx: ActionContext, name: string) {
  const t = await findTableByName(datastoreReaderOf(ctx), name)
  if (!t) throw new NotFound(`Resource/Alias "${name}" was not found.`)
  return t
}

export const datastoreInfo = defineAction({
  name: 'datastore_info',
  readOnly: true,
  validateFirst: true,
  help: `Describe a DataStore table.

:param id: the resource id of the table (under api_compat 2.10 and later, or an alias of it)
:type id: string
:param resource_id: the same, under CKAN 2.11's name (either may be given; id is not needed
  when it is)
:type resource_id: string
:returns: under api_compat 2.9: schema (column to "number", "date" or "text"), meta (count: the
  number of rows) and fields (each column's id, type and info, as datastore_search lists them,
  _id first); under 2.10 and later, as CKAN 2.10: meta (id, count, table_type, size, db_size,
  idx_size in bytes, aliases) and fields (the columns without _id, each with schema:
  native_type, notnull, index_name, is_index, uniquekey)
:rtype: dictionary`,
  auth: async (ctx, input) => {
    let id = asText(resourceIdOf(input))
    // ckan 2.10: the table (or the table behind an alias) is found first, then the resource
    if (apiAtLeast(ctx.config, '2.10')) id = (await tableOf(ctx, id)).id
    const res = await findResourceToRead(ctx, id)
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
    if (apiAtLeast(ctx.config, '2.10')) {
      const t = await tableOf(ctx, p.id)
      if (!(await findResourceToRead(ctx, t.id))) throw new NotFound()
      return tableInfo(db, t)
    }
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
