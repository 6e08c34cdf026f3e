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
import { ckanBool, MISSING } from '../../validation/fields'
import { readProfile } from '../../datastore/profile'
import { isVersioned } from '../../datastore/versions'
import { requestProfile } from '../../jobs/datastore-profile'
import type { DsTable } from '../../datastore/registry'
import type { DatastoreReader } from '../../datastore/store'

/** ckan 2.10: the table behind a table id or an alias, else Not Found in CKAN's words. */
async function tableOf(ctx: ActionContext, name: string) {
  const t = await findTableByName(datastoreReaderOf(ctx), name)
  if (!t) throw new NotFound(`Resource/Alias "${name}" was not found.`)
  return t
}

const includeProfile = ckanBool(false)

/**
 * The table's stored column profile: `current` (of this version), `stale` (of an earlier one: a
 * new one is queued) or `pending` (none yet: queued). Never computed here: a read answers at once.
 */
async function profileAnswer(ctx: ActionContext, db: DatastoreReader, t: DsTable) {
  const stored = await readProfile(db, t.id)
  const status = !stored ? 'pending' : stored.version === t.version ? 'current' : 'stale'
  // a table written before profiles existed, or whose job was lost: queued now
  if (status !== 'current') await requestProfile(ctx, t.id, { afterWrite: false })
  return {
    status,
    table_version: t.version,
    ...(stored
      ? { version: stored.version, computed: stored.computed, seconds: stored.seconds, rows: stored.profile.rows, columns: stored.profile.columns }
      : {}),
  }
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
:param include_profile: also answer each column's profile (beyond CKAN; optional, default
  False): profile has status ("current", "stale": of an earlier version of the table while a
  new one is computed, "pending": none yet), table_version and the version it describes,
  computed, seconds, rows, and columns, each with id, type, count (non-null values),
  null_count, distinct (distinct_estimated when taken from a sample), min, max, mean (numbers),
  top (the 10 most frequent values with their counts; none when 90 % of the values or more are
  all different) and histogram (numbers and dates: 20
  equal-width bins, each from, to and count)
:type include_profile: bool
:returns: under api_compat 2.9: schema (column to "number", "date" or "text"), meta (count: the
  number of rows) and fields (each column's id, type and info, as datastore_search lists them,
  _id first); under 2.10 and later, as CKAN 2.10: meta (id, count, table_type, size, db_size,
  idx_size in bytes, aliases) and fields (the columns without _id, each with schema:
  native_type, notnull, index_name, is_index, uniquekey). Beyond CKAN, a versioned table's meta
  adds versioned (true) and version (the current one, as datastore_versions_list numbers them)
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
      const profile = includeProfile.safeParse(p.include_profile)
      if (!profile.success) c.addIssue({ code: 'custom', path: ['include_profile'], message: profile.error.issues[0]?.message ?? 'Invalid value' })
      return { id: id ?? '', include_profile: profile.success ? profile.data : false }
    }),
  async run(ctx, p) {
    const db = datastoreReaderOf(ctx)
    if (apiAtLeast(ctx.config, '2.10')) {
      const t = await tableOf(ctx, p.id)
      if (!(await findResourceToRead(ctx, t.id))) throw new NotFound()
      const info = await tableInfo(db, t)
      Object.assign(info.meta, versionMeta(t))
      return p.include_profile ? { ...info, profile: await profileAnswer(ctx, db, t) } : info
    }
    // ckan: resource_show comes first, so an alias or unknown id is a plain Not found
    if (!(await findResourceToRead(ctx, p.id))) throw new NotFound()
    const t = await requireTable(db, p.id)
    const { rows } = await db.query(`SELECT count(*) FROM ${quoteIdent(t.id)}`)
    const schema: Record<string, string> = {}
    t.columns.forEach((c, i) => (schema[c.id] = infoKind(t.types[i]!)))
    return {
      schema,
      meta: { count: Number(rows[0]?.[0] ?? 0), ...versionMeta(t) },
      fields: [
        { id: '_id', type: 'int' },
        ...t.columns.map(fieldDict),
      ],
      ...(p.include_profile ? { profile: await profileAnswer(ctx, db, t) } : {}),
    }
  },
})

/** Beyond CKAN: a versioned table says so, with its current version (nothing for the others). */
const versionMeta = (t: DsTable) => (isVersioned(t) ? { versioned: true, version: t.version } : {})
