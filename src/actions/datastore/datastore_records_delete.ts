// datastore_records_delete (CKAN 2.11): deletes matching rows and never the table itself.
import { z } from 'zod'
import { defineAction } from '../action'
import { invoke } from '../invoke'
import { authorizeTableWrite } from '../../auth/datastore'
import { includeParam, recordCountParam, resourceIdRequired } from '../../datastore/params'
import { ckanBool, field, fail } from '../../validation/fields'
import { datastoreDelete } from './datastore_delete'

export const datastoreRecordsDelete = defineAction({
  name: 'datastore_records_delete',
  readOnly: false,
  validateFirst: true,
  help: `Delete rows of a DataStore table, keeping the table, its aliases and triggers.

Unlike datastore_delete, filters are required, so the table cannot be dropped by leaving
them out; {} deletes every row.

:param resource_id: the resource whose rows are deleted
:type resource_id: string
:param filters: column to value conditions, as in datastore_search ({} matches every row)
:type filters: dictionary
:param force: edit a resource whose url_type is not "datastore" (optional, default: False)
:type force: bool
:param include_deleted_records: (CKAN 2.12) answer the deleted rows under deleted_records,
  with _id and every column, in _id order, at most service.datastore.search.rows_max of them
  (optional, default: False)
:type include_deleted_records: bool
:param calculate_record_count: accepted for compatibility (true, false or "background"); totals
  are always exact here (optional, default: False)
:type calculate_record_count: bool or string
:returns: resource_id and the filters as sent (and deleted_records)
:rtype: dictionary`,
  // ckan: the same check as datastore_delete
  auth: authorizeTableWrite,
  params: z
    .looseObject({
      // ckan: not_missing then dict_only, so null is "Must be a dict" rather than missing
      filters: field((v) =>
        v === undefined
          ? fail('Missing value')
          : typeof v === 'object' && v !== null && !Array.isArray(v)
            ? (v as Record<string, unknown>)
            : fail('Must be a dict'),
      ),
      force: ckanBool(false),
      calculate_record_count: recordCountParam,
      include_deleted_records: includeParam,
    })
    .superRefine(resourceIdRequired),
  async run(ctx, _p, input) {
    // filters is a dict here, so datastore_delete deletes rows and keeps the table
    return invoke(ctx, datastoreDelete, input, { skipAuth: true })
  },
})
