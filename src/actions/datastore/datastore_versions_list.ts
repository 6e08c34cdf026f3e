// datastore_versions_list (beyond CKAN): the recorded versions of a versioned DataStore table.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeTableRead } from '../../auth/datastore'
import { datastoreReaderOf } from '../../datastore/access'
import { findTableByName, tableNotFound } from '../../datastore/registry'
import { listVersions } from '../../datastore/versions'
import { ValidationError } from '../../errors'
import { naturalNumber, positiveInt, reqString } from '../../validation/fields'

export const datastoreVersionsList = defineAction({
  name: 'datastore_versions_list',
  readOnly: true,
  help: `List the versions of a versioned DataStore table, newest first (beyond CKAN).

Every write batch on a table created with versioned: true makes a version: datastore_create with
records or a schema change, datastore_upsert, datastore_delete with filters,
datastore_run_triggers and a load by the loader. datastore_search reads a version with as_of and
datastore_diff compares two. Versions older than service.datastore.versions.retention are pruned.

:param resource_id: id or alias of the table
:type resource_id: string
:param limit: versions per page (optional, default: 100, at most 1000)
:type limit: int
:param offset: versions to skip (optional, default: 0)
:type offset: int
:returns: resource_id, current_version, total (versions kept) and versions: dicts with version,
  timestamp (UTC), kind (create, insert, upsert, update, delete, run_triggers or load), total
  (rows at that version), added, changed and removed (rows, against the version before) and
  fields (the columns at that version)
:rtype: dictionary`,
  auth: authorizeTableRead,
  params: z.looseObject({
    resource_id: reqString,
    limit: positiveInt(100),
    offset: naturalNumber(0),
  }),
  async run(ctx, p) {
    const db = datastoreReaderOf(ctx)
    const t = await findTableByName(db, p.resource_id)
    if (!t) throw tableNotFound(p.resource_id)
    if (!t.versioned)
      throw ValidationError.field('resource_id', 'The table is not versioned (datastore_create with versioned: true)')
    const { versions, total } = await listVersions(db, t.id, Math.min(p.limit!, 1000), p.offset!)
    return {
      resource_id: t.id,
      current_version: t.version,
      total,
      versions: versions.map((v) => ({
        version: v.version,
        timestamp: v.at,
        kind: v.kind,
        total: v.total,
        added: v.added,
        changed: v.changed,
        removed: v.removed,
        fields: v.columns.map((c) => ({ id: c.id, type: c.type })),
      })),
    }
  },
})
