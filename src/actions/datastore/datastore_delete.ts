// datastore_delete: deletes matching rows, or the whole table with its aliases.
import { z } from 'zod'
import { pruneVersions } from '../../datastore/versions'
import { defineAction } from '../action'
import { apiAtLeast } from '../../config/api-compat'
import {
  datastoreOf,
  requireWritableUnlessForced,
  setDatastoreActive,
} from '../../datastore/access'
import { authorizeTableWrite } from '../../auth/datastore'
import { includeParam, recordCountParam, resourceIdOf, resourceIdRequired } from '../../datastore/params'
import { requireTable } from '../../datastore/registry'
import { deleteRows, dropTable } from '../../datastore/writes'
import { ckanBool, field, fail } from '../../validation/fields'
import { requestProfile } from '../../jobs/datastore-profile'

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
:param include_deleted_records: (CKAN 2.12) with filters, answer the deleted rows under
  deleted_records, with _id and every column, in _id order, at most
  service.datastore.search.rows_max of them (optional, default: False)
:type include_deleted_records: bool
:param calculate_record_count: accepted for compatibility (true, false or "background"); totals
  are always exact here (optional, default: False)
:type calculate_record_count: bool or string
:returns: resource_id and the filters as sent (and deleted_records)
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
      calculate_record_count: recordCountParam,
      include_deleted_records: includeParam,
    })
    .superRefine(resourceIdRequired),
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const id = resourceIdOf(input)!
    await requireWritableUnlessForced(ctx, id, p.force)
    await requireTable(db, id)
    let deleted
    if (p.filters) {
      const returnMax = p.include_deleted_records
        ? ctx.config.int('service.datastore.search.rows_max')
        : undefined
      deleted = await deleteRows(db, id, p.filters, {
        returnMax,
        textFiltersAsText: apiAtLeast(ctx.config, '2.11'),
        now: ctx.now,
      })
      await pruneVersions(db, id, ctx.config.str('service.datastore.versions.retention'), ctx.now())
      await requestProfile(ctx, id)
    } else {
      await dropTable(db, id)
      await setDatastoreActive(ctx, id, false)
    }
    const out: Record<string, unknown> = { resource_id: id }
    if ('filters' in input) out.filters = input.filters
    if ('calculate_record_count' in input) out.calculate_record_count = p.calculate_record_count
    if (deleted) out.deleted_records = deleted
    return out
  },
})
