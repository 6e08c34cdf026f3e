// datastore_upsert: inserts, updates or upserts records of an existing DataStore table.
import { z } from 'zod'
import { pruneVersions } from '../../datastore/versions'
import { defineAction } from '../action'
import { apiAtLeast } from '../../config/api-compat'
import {
  datastoreOf,
  requireWritableUnlessForced,
} from '../../datastore/access'
import { authorizeTableWrite } from '../../auth/datastore'
import { includeParam, recordCountParam, resourceIdOf, resourceIdRequired } from '../../datastore/params'
import { checkRecordList } from '../../datastore/records'
import { upsertRecords } from '../../datastore/writes'
import { ckanBool, field, fail } from '../../validation/fields'
import { requestProfile } from '../../jobs/datastore-profile'

const METHODS = ['upsert', 'insert', 'update'] as const

export const datastoreUpsert = defineAction({
  name: 'datastore_upsert',
  readOnly: false,
  validateFirst: true,
  help: `Insert, update or upsert records of a DataStore table.

upsert (the default) updates the row with the same unique key or inserts a new one; insert only
inserts; update only updates, and fails when a key is not found. update and upsert need the
table's primary_key (set with datastore_create) in every record; under api_compat 2.10 and later
a record with _id is found by its _id instead (the key columns it sends are written too), so a
table without a primary key can be updated. Under api_compat 2.11 "" for a column of any type but
text is written as null. All records are written or none.

:param resource_id: the resource whose table is changed
:type resource_id: string
:param records: the rows, dicts of column id to value
:type records: list of dictionaries
:param method: upsert, insert or update (optional, default: upsert)
:type method: string
:param force: edit a resource whose url_type is not "datastore" (optional, default: False)
:type force: bool
:param dry_run: check the records and write nothing (optional, default: False)
:type dry_run: bool
:param include_records: (CKAN 2.12) true: records in the answer are the rows as written, each
  once, with _id and every column after the table's triggers (a dry run answers them too);
  false: no records in the answer (optional; when not sent, the records as sent come back, as
  in CKAN 2.9 to 2.11)
:type include_records: bool
:param calculate_record_count: accepted for compatibility (true, false or "background"); totals
  are always exact here (optional, default: False)
:type calculate_record_count: bool or string
:returns: the request as sent (see include_records)
:rtype: dictionary`,
  auth: authorizeTableWrite,
  params: z.looseObject({
    resource_id: field((v) => v),
    id: field((v) => v),
    records: field((v) => v),
    method: field((v) =>
      v === undefined || v === null || (METHODS as readonly unknown[]).includes(v)
        ? ((v ?? 'upsert') as (typeof METHODS)[number])
        : fail("Value must be one of ['upsert', 'insert', 'update']"),
    ),
    force: ckanBool(false),
    dry_run: ckanBool(false),
    calculate_record_count: recordCountParam,
    include_records: includeParam,
  }).superRefine(resourceIdRequired),
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const id = resourceIdOf(input)!
    await requireWritableUnlessForced(ctx, id, p.force)
    const records = p.records === undefined || p.records === null ? [] : checkRecordList(p.records)
    const written = await upsertRecords(db, id, records, p.method, {
      now: ctx.now,
      dryRun: p.dry_run,
      includeRecords: p.include_records,
      rules: { byId: apiAtLeast(ctx.config, '2.10'), blankIsNull: apiAtLeast(ctx.config, '2.11') },
    })
    if (!p.dry_run) {
      await pruneVersions(db, id, ctx.config.str('service.datastore.versions.retention'), ctx.now())
      await requestProfile(ctx, id)
    }
    const out: Record<string, unknown> = { ...input, resource_id: id }
    delete out.id
    delete out.force
    // ckan 2.12: include_records is not echoed; true answers the written rows, false none. Not
    // sent: the records as sent, the answer of 2.9 to 2.11 (2.12 leaves them out)
    if (p.include_records !== undefined) {
      delete out.include_records
      if (p.include_records && 'records' in input && input.records !== null) out.records = written ?? []
      else delete out.records
    }
    if ('dry_run' in input) out.dry_run = p.dry_run
    if ('calculate_record_count' in input) out.calculate_record_count = p.calculate_record_count
    return out
  },
})
