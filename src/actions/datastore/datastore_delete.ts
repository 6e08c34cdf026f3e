// datastore_delete: deletes matching rows, or the whole table with its aliases.
import { z } from 'zod'
import { defineAction } from '../action'
import { NotFound } from '../../errors'
import {
  datastoreOf,
  findResource,
  requireCanEditResource,
  requireWritable,
  setDatastoreActive,
} from '../../datastore/access'
import { dsBool, resourceIdOf } from '../../datastore/params'
import { requireTable } from '../../datastore/registry'
import { deleteRows, dropTable } from '../../datastore/writes'
import { field, fail } from '../../validation/fields'

export const datastoreDelete = defineAction({
  name: 'datastore_delete',
  readOnly: false,
  validateFirst: true,
  help: `Delete rows of a DataStore table, or the table itself.

With filters, the matching rows are deleted (filters as in datastore_search; {} deletes every
row). Without filters the table, its aliases and triggers are dropped and the resource's
datastore_active flag is cleared.

:param resource_id: the resource whose table is changed
:type resource_id: string
:param filters: column to value conditions (optional)
:type filters: dictionary
:param force: edit a resource whose url_type is not "datastore" (optional, default: False)
:type force: bool
:returns: resource_id and the filters as sent
:rtype: dictionary`,
  async auth(ctx, input) {
    const id = resourceIdOf(input)
    if (!id) return
    const res = await findResource(ctx, id)
    if (!res) throw new NotFound()
    await requireCanEditResource(ctx, res)
  },
  params: z
    .looseObject({
      filters: field((v) =>
        v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v))
          ? (v as Record<string, unknown> | null | undefined)
          : fail('filters must be either a dict or null.'),
      ),
      force: dsBool(false),
      calculate_record_count: dsBool(false),
    })
    .superRefine((p, c) => {
      if (!resourceIdOf(p)) c.addIssue({ code: 'custom', path: ['resource_id'], message: 'Missing value' })
    }),
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const id = resourceIdOf(input)!
    // ckan: the read-only check looks the resource up; with force only the table has to exist
    if (!p.force) {
      const res = await findResource(ctx, id)
      if (!res) throw new NotFound()
      requireWritable(res, false)
    }
    await requireTable(db, id)
    if (p.filters) await deleteRows(db, id, p.filters)
    else {
      await dropTable(db, id)
      await setDatastoreActive(ctx, id, false)
    }
    const out: Record<string, unknown> = { resource_id: id }
    if ('filters' in input) out.filters = input.filters
    if ('calculate_record_count' in input) out.calculate_record_count = p.calculate_record_count
    return out
  },
})
