// datastore_upsert: inserts, updates or upserts records of an existing DataStore table.
import { z } from 'zod'
import { defineAction } from '../action'
import {
  datastoreOf,
  requireWritableUnlessForced,
} from '../../datastore/access'
import { authorizeTableWrite } from '../../auth/datastore'
import { resourceIdOf, resourceIdRequired } from '../../datastore/params'
import { checkRecordList } from '../../datastore/records'
import { upsertRecords } from '../../datastore/writes'
import { ckanBool, field, fail } from '../../validation/fields'

const METHODS = ['upsert', 'insert', 'update'] as const

export const datastoreUpsert = defineAction({
  name: 'datastore_upsert',
  readOnly: false,
  validateFirst: true,
  help: `Insert, update or upsert records of a DataStore table.

upsert (the default) updates the row with the same unique key or inserts a new one; insert only
inserts; update only updates, and fails when a key is not found. update and upsert need the
table's primary_key (set with datastore_create) in every record. All records are written or none.

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
:returns: the request as sent
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
    calculate_record_count: ckanBool(false),
  }).superRefine(resourceIdRequired),
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const id = resourceIdOf(input)!
    await requireWritableUnlessForced(ctx, id, p.force)
    const records = p.records === undefined || p.records === null ? [] : checkRecordList(p.records)
    await upsertRecords(db, id, records, p.method, { now: ctx.now, dryRun: p.dry_run })
    const out: Record<string, unknown> = { ...input, resource_id: id }
    delete out.id
    delete out.force
    if ('dry_run' in input) out.dry_run = p.dry_run
    if ('calculate_record_count' in input) out.calculate_record_count = p.calculate_record_count
    return out
  },
})
