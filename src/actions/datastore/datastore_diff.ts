// datastore_diff (beyond CKAN): the rows added, changed and removed between two versions of a table.
import { z } from 'zod'
import { defineAction } from '../action'
import { authorizeTableRead } from '../../auth/datastore'
import { datastoreReaderOf } from '../../datastore/access'
import { findTableByName, tableNotFound } from '../../datastore/registry'
import { searchTable } from '../../datastore/search'
import { asOfSource, diffVersions, resolveVersion, tableAt, type VersionRow } from '../../datastore/versions'
import { ValidationError } from '../../errors'
import { field, fail, MISSING, naturalNumber, positiveInt, reqString } from '../../validation/fields'

const version = field((v) => (v === undefined || v === null || v === '' ? fail(MISSING) : v))

export const datastoreDiff = defineAction({
  name: 'datastore_diff',
  readOnly: true,
  help: `The rows added, changed and removed between two versions of a versioned DataStore table
(beyond CKAN).

A row is changed when a column that both versions have holds another value; the columns added or
removed in between are listed apart. Rows come in _id order, at most limit per call (added,
changed and removed together); next_after, when not null, is the after of the next page.

:param resource_id: id or alias of the table
:type resource_id: string
:param from: the earlier version: a version number or an ISO timestamp (the last version at or
  before it), as datastore_search's as_of
:type from: int or string
:param to: the later version (at or after from), the same way
:type to: int or string
:param limit: changes per page (optional, default: 100, at most service.datastore.search.rows_max)
:type limit: int
:param after: answer the changes of rows whose _id is greater (optional, default: 0)
:type after: int
:returns: resource_id, from and to (version numbers), fields_added and fields_removed (columns),
  added and removed (rows with _id), changed (dicts of _id, before and after) and next_after
:rtype: dictionary`,
  auth: authorizeTableRead,
  params: z.looseObject({
    resource_id: reqString,
    from: version,
    to: version,
    limit: positiveInt(100),
    after: naturalNumber(0),
  }),
  async run(ctx, p) {
    const db = datastoreReaderOf(ctx)
    const t = await findTableByName(db, p.resource_id)
    if (!t) throw tableNotFound(p.resource_id)
    const a = await resolveVersion(db, t, p.from, 'from', ctx.now())
    const b = await resolveVersion(db, t, p.to, 'to', ctx.now())
    if (a.version > b.version)
      throw ValidationError.field('to', `Version ${b.version} is before version ${a.version} (from)`)
    const limit = Math.min(p.limit!, ctx.config.int('service.datastore.search.rows_max'))
    const read = async (v: VersionRow, ids: number[]) => {
      const at = tableAt(t, v)
      const spec = { source: asOfSource(t, v, ids), plain: true, language: 'english', distinct: false, limit: ids.length, offset: 0 }
      const { plan, rows } = await searchTable(db, at, spec, false)
      return rows.map((r) => Object.fromEntries(plan.columns.map((c, i) => [c.id, r[i]])))
    }
    const diff = await diffVersions(db, t, a, b, { limit, after: p.after! }, read)
    const ids = (v: VersionRow) => new Set(v.columns.map((c) => c.id))
    return {
      resource_id: t.id,
      from: a.version,
      to: b.version,
      fields_added: b.columns.filter((c) => !ids(a).has(c.id)).map((c) => ({ id: c.id, type: c.type })),
      fields_removed: a.columns.filter((c) => !ids(b).has(c.id)).map((c) => ({ id: c.id, type: c.type })),
      added: diff.added,
      changed: diff.changed,
      removed: diff.removed,
      next_after: diff.next,
    }
  },
})
