// datastore_delete: deletes matching rows, or the whole table with its aliases.
import { z } from 'zod'
import { defineAction } from '../action'
import {
  datastoreOf,
  requireWritableUnlessForced,
  setDatastoreActive,
} from '../../datastore/access'
import { authorizeTableWrite } from '../../auth/datastore'
import { resourceIdOf, resourceIdRequired } from '../../datastore/params'
import { requireTable } from '../../datastore/registry'
import { deleteRows, dropTable } from '../../datastore/writes'
import { ckanBool, field, fail } from '../../validation/fields'

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
  auth: authorizeTableWrite,
  params: z
    .looseObject({
      filters: field((v) =>
        v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v))
          ? (v as Record<string, unknown> | null | undefined)
          : fail('filters must be either a dict or null.'),
      ),
      force: ckanBool(false),
      calculate_record_count: ckanBool(false),
    })
    .superRefine(resourceIdRequired),
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const id = resourceIdOf(input)!
    await requireWritableUnlessForced(ctx, id, p.force)
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
