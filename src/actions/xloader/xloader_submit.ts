// xloader_submit: queues a load of a resource's file into its DataStore table.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeLoader } from '../../auth/datastore'
import { findResource } from '../../datastore/access'
import { NotFound, ValidationError } from '../../errors'
import { loadJobStatements } from '../../jobs/loader/enqueue'
import { ckanBool } from '../../validation/fields'

export const submitParams = z.looseObject({
  resource_id: z.string().min(1).optional(),
  id: z.string().min(1).optional(),
  ignore_hash: ckanBool(false),
})

export const xloaderSubmit = defineAction({
  name: 'xloader_submit',
  readOnly: false,
  help: `Load a resource's file (CSV, TSV or XLSX, uploaded or linked) into the DataStore.

The load runs as a background job; xloader_status shows its progress and outcome. The table's
rows are replaced only once the new ones are complete.

:param resource_id: the resource to load
:type resource_id: string
:param ignore_hash: load even if the file has not changed since the last successful load
    (optional, default: False; an unchanged file leaves the table as it is)
:type ignore_hash: bool
:returns: True when a load was queued, False for a resource without a file (url_type "datastore")
:rtype: bool`,
  auth: authorizeLoader,
  params: submitParams,
  async run(ctx, p) {
    const id = p.resource_id ?? p.id
    if (!id) throw ValidationError.field('resource_id', 'Missing value')
    const res = await findResource(ctx, id)
    if (!res) throw new NotFound('Resource was not found.')
    if (res.url_type === 'datastore' || !res.url) return false
    const stmts = loadJobStatements(ctx, res.id, { ignore_hash: p.ignore_hash })
    if (!stmts.length) return false
    await ctx.writer.write(stmts)
    return true
  },
})
