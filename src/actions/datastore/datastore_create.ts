// datastore_create: creates or extends the DataStore table of a resource and appends records.
import { z } from 'zod'
import { pruneVersions } from '../../datastore/versions'
import { defineAction } from '../action'
import { apiAtLeast } from '../../config/api-compat'
import { invoke } from '../invoke'
import { resourceCreate } from '../resource/resource_create'
import { ValidationError } from '../../errors'
import { authorizeTableCreate } from '../../auth/datastore'
import { createOrAlter } from '../../datastore/create'
import {
  datastoreOf,
  findResource,
  requireWritable,
  setDatastoreActive,
} from '../../datastore/access'
import { dsList, includeParam, recordCountParam, resourceIdOf, toList } from '../../datastore/params'
import { checkRecordList } from '../../datastore/records'
import { isValidTableName } from '../../datastore/ident'
import { ckanBool, field, fail, MISSING, optBool } from '../../validation/fields'
import { loadJobStatements, needsLoad } from '../../jobs/loader/enqueue'
import { requestProfile } from '../../jobs/datastore-profile'

const fieldItem = z.looseObject({
  id: field((v) => (typeof v === 'string' && v !== '' ? v : fail(MISSING))),
})

const trigger = z.looseObject({
  function: field((v) => (typeof v === 'string' && v !== '' ? v : fail(MISSING))),
  when: field((v) =>
    v === undefined || v === 'before insert or update'
      ? v
      : fail("Value must be one of ['before insert or update']"),
  ),
  for_each: field((v) => (v === undefined || v === 'row' ? v : fail("Value must be one of ['row']"))),
})

/** indexes: a column, a comma string, or a list whose items are columns, comma strings or lists. */
const indexList = field((v) => {
  if (v === undefined || v === null) return undefined
  const items = Array.isArray(v) ? v : [v]
  return items.flatMap((item): string[][] =>
    Array.isArray(item) ? [item.map(String)] : (toList(item) ?? []).map((c) => [c]),
  )
})

const params = z.looseObject({
  resource: z.record(z.string(), z.unknown()).optional(),
  force: ckanBool(false),
  fields: z.array(fieldItem).optional(),
  records: field((v) => v),
  primary_key: dsList,
  indexes: indexList,
  aliases: dsList,
  triggers: z.array(trigger).optional(),
  calculate_record_count: recordCountParam,
  delete_fields: ckanBool(false),
  include_records: includeParam,
  versioned: optBool,
})

export const datastoreCreate = defineAction({
  name: 'datastore_create',
  readOnly: false,
  validateFirst: true,
  help: `Add a DataStore table to a resource, or extend it.

Called again on the same resource it appends records, adds fields (or drops them, with
delete_fields), and replaces the aliases, indexes, primary key and triggers that are given. The
table is created in the DataStore database, named by the resource id, and the resource's
datastore_active flag is set.

:param resource_id: the resource the table belongs to (or use resource)
:type resource_id: string
:param resource: a resource dict for resource_create, to create the resource in the same call
  (it needs package_id)
:type resource: dictionary
:param force: edit a resource whose url_type is not "datastore" (optional, default: False)
:type force: bool
:param fields: the columns: dicts with id, type (guessed from the first record when absent) and
  info (the data dictionary: label, notes, type_override and any other keys)
:type fields: list of dictionaries
:param records: rows to insert, dicts of column id to value
:type records: list of dictionaries
:param primary_key: the column(s) of the unique key
:type primary_key: list or comma separated string
:param indexes: columns to index (an item can be a list for a composite index)
:type indexes: list or comma separated string
:param aliases: read-only names for the table
:type aliases: list or comma separated string
:param triggers: trigger functions to run on each inserted or updated row: dicts with "function"
:type triggers: list of dictionaries
:param delete_fields: drop the existing columns that fields leaves out, and let fields name the
  existing columns in any order (CKAN 2.11; optional, default: False, when columns left out are
  kept, and fields must list the existing columns first and in order, as in CKAN 2.9, unless the
  site speaks CKAN 2.11 (api_compat), where any order is taken)
:type delete_fields: bool
:param include_records: (CKAN 2.12) answer the inserted rows as written under records, with
  _id and every column after the table's triggers (optional, default: False)
:type include_records: bool
:param versioned: (beyond CKAN) keep the table's versions: every write batch (records, schema
  changes, upserts, deletes, trigger runs, a load) makes a version that datastore_search reads with
  as_of and datastore_diff compares; storage grows with the changed rows only. False stops it and
  drops the history (optional, default: unchanged; new tables are not versioned)
:type versioned: bool
:param calculate_record_count: accepted for compatibility (true, false or "background"); totals
  are always exact here (optional, default: False)
:type calculate_record_count: bool or string
:returns: the request without the records, with resource_id and method "insert" (and records
  with include_records)
:rtype: dictionary`,
  auth: authorizeTableCreate,
  params,
  async run(ctx, p, input) {
    const db = datastoreOf(ctx)
    const givenId = resourceIdOf(input)
    if (p.resource && givenId) throw ValidationError.field('resource', 'resource cannot be used with resource_id')
    if (!p.resource && !givenId) throw ValidationError.field('resource_id', 'resource_id or resource required')
    const first = Array.isArray(p.records) ? (p.records[0] as unknown) : undefined
    if (first !== undefined && (typeof first !== 'object' || first === null || Array.isArray(first)))
      throw ValidationError.field('records', 'The first row is not a json object')
    const records = p.records === undefined || p.records === null ? undefined : checkRecordList(p.records)

    const out: Record<string, unknown> = { ...input }
    delete out.records
    delete out.id
    let id: string
    if (p.resource?.url) {
      // ckan: with a file to load the resource is created as given and the loader fills the
      // table (resource_create enqueues it); the answer is the request with the new resource
      const created = (await invoke({ ...ctx, ignoreAuth: true }, resourceCreate, p.resource)) as Record<
        string,
        unknown
      >
      // a format the loader does not list: the job says so in xloader_status
      if (!needsLoad(undefined, created)) await ctx.writer.write(loadJobStatements(ctx, String(created.id)))
      return { ...out, resource: { ...p.resource, ...created }, resource_id: created.id, method: 'insert' }
    }
    if (p.resource) {
      const created = (await invoke(
        { ...ctx, ignoreAuth: true },
        resourceCreate,
        { ...p.resource, url: '_datastore_only_resource', url_type: 'datastore' },
      )) as Record<string, unknown>
      id = String(created.id)
      out.resource = { ...p.resource, ...created }
    } else {
      id = givenId!
      const res = await findResource(ctx, id)
      if (!res) throw ValidationError.field('resource_id', 'Not found: Resource')
      requireWritable(res, p.force)
      delete out.force
    }
    if (!isValidTableName(id)) throw ValidationError.field('resource_id', `"${id}" is not a valid table name`)

    const { fields, records: written } = await createOrAlter(
      db,
      {
        id,
        fields: p.fields as never,
        records,
        primary_key: p.primary_key,
        indexes: p.indexes,
        aliases: p.aliases,
        triggers: p.triggers as never,
        delete_fields: p.delete_fields,
        include_records: p.include_records,
        fields_in_any_order: apiAtLeast(ctx.config, '2.11'),
        blank_is_null: apiAtLeast(ctx.config, '2.11'),
        versioned: p.versioned,
      },
      ctx.now,
    )
    await pruneVersions(db, id, ctx.config.str('service.datastore.versions.retention'), ctx.now())
    await setDatastoreActive(ctx, id, true)
    await requestProfile(ctx, id)
    if (p.fields) out.fields = fields
    // ckan 2.12: include_records is not echoed; the rows come back only where records were given
    delete out.include_records
    if (written) out.records = written
    out.resource_id = id
    out.method = 'insert'
    return out
  },
})
