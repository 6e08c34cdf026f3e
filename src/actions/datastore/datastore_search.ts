// datastore_search: rows of a DataStore table (or alias, or _table_metadata) with filters, full text,
// sort and paging; or, with group_by / aggregates (beyond CKAN), one row per group.
import { z } from 'zod'
import { defineAction } from '../action'
import { timeLeft } from '../../context'
import { datastoreReaderOf, findResourceToRead } from '../../datastore/access'
import { requireCanReadResource } from '../../auth/resource'
import { searchParams } from '../../datastore/search-params'
import { findTableByName, tableNotFound } from '../../datastore/registry'
import { invalidQuery } from '../../datastore/query'
import { metadataTable, searchTable, TABLE_METADATA } from '../../datastore/search'
import { formatRecords, links, outFields } from '../../datastore/search-output'
import { aggregateTable } from '../../datastore/aggregate'
import type { OutField } from '../../datastore/formats'
import { ValidationError } from '../../errors'
import { asOfSearch, resolveVersion, tableAt, type VersionRow } from '../../datastore/versions'

/** 'asc' or 'desc' when the rows come in _id order only (keyset paging applies), else undefined. */
function keysetDirection(spec: { sort?: string | string[]; q?: unknown; distinct?: boolean }): 'asc' | 'desc' | undefined {
  const sorts = (typeof spec.sort === 'string' ? spec.sort.split(',') : (spec.sort ?? [])).map((s) => s.trim()).filter(Boolean)
  if (!sorts.length) {
    const ranked = typeof spec.q === 'string' ? spec.q !== '' : !!spec.q && Object.keys(spec.q as object).length > 0
    return ranked || spec.distinct ? undefined : 'asc'
  }
  if (sorts.length !== 1) return undefined
  const m = /^"?_id"?(?:\s+(asc|desc))?$/i.exec(sorts[0]!)
  return m ? ((m[1]?.toLowerCase() as 'asc' | 'desc' | undefined) ?? 'asc') : undefined
}

export const datastoreSearch = defineAction({
  name: 'datastore_search',
  readOnly: true,
  auth: 'anyone',
  help: `Search a DataStore table.

:param resource_id: id or alias of the table to search; "_table_metadata" lists every table and alias
:type resource_id: string
:param filters: conditions to match, column to value (a list of values matches any of them), or
  to a dict of operators: eq, in (a list), gt, gte, lt, lte
:type filters: dictionary
:param q: full-text query over whole rows (a string), or per column (a dict of column to query)
:type q: string or dictionary
:param full_text: (CKAN 2.10) full-text query over whole rows, ranked as rank: it takes the place
  of a q string, and is ANDed with a q dict (whose columns keep their rank <column>)
:type full_text: string
:param plain: treat q and full_text as plain words (default: True); False enables the &, |, !, :*
  and <-> syntax
:type plain: bool
:param language: full-text language (default: english)
:type language: string
:param distinct: return only distinct rows (default: False)
:type distinct: bool
:param fields: columns to return (default: all, in table order)
:type fields: list or comma separated string
:param sort: comma separated columns, each with optional asc/desc and nulls first/last
:type sort: string
:param limit: rows per page (default: 100, at most service.datastore.search.rows_max)
:type limit: int
:param offset: rows to skip (default: 0)
:type offset: int
:param include_total: count all matching rows (default: True)
:type include_total: bool
:param records_format: objects (default), lists, csv or tsv
:type records_format: string
:param include_next_page: return next_page, the filter that gives the next page when the rows are in
  _id order (the default without q): add it to filters instead of raising the offset, at the same
  cost at any depth (default: False)
:type include_next_page: bool
:param group_by: (beyond CKAN) answer one row per group of the matching rows instead of the rows:
  a list of column names and date buckets such as {"column": "ts", "bucket": "month"} (year,
  quarter, month, week, day or hour; on date, timestamp and timestamptz columns; hour on timestamps
  only; weeks start on Monday). A bucket's value is its first instant in the column's type, its
  output name <column>_<bucket> unless given as "as". Filters, q and full_text apply first; sort
  names output columns (default: the group keys in order); limit and offset page over the groups;
  total is the number of groups; fields picks output columns. More groups than
  service.datastore.aggregate.max_groups is refused. Not with distinct or include_next_page. GET
  takes it as a JSON string or as comma separated column names.
:type group_by: list
:param aggregates: (beyond CKAN) values computed per group (over all matching rows without
  group_by): a list of {"function": ..., "column": ..., "as": ...}: count (rows; of a column: its
  non-null values), count_distinct, sum, avg and median (number columns), min and max (scalar
  columns). Default names: count, count_<column>, <function>_<column>. Types: count int8, sum int8
  (integers) or the column's number type, avg numeric (integers and numeric) or float8, median
  float8 (the middle value, or the mean of the two middle ones; numbered by a window function in
  the same pass over the rows, so one sort of the matching rows), min and max the column's type.
  GET takes it as a JSON string.
:type aggregates: list
:param as_of: (beyond CKAN) read the table as it was at a version of datastore_versions_list (a
  number), or at a time (an ISO timestamp, UTC unless it says otherwise: the last version at or
  before it); the table must be versioned (datastore_create versioned: true). Filters, sort,
  fields, paging, distinct, group_by and aggregates work as usual over the rows and columns of that
  version; q and full_text do not. A version not recorded, pruned by
  service.datastore.versions.retention, or later than the present is a Validation Error.
:type as_of: int or string
:returns: fields, records, limit, _links and (with include_total) total; with group_by or
  aggregates, fields are the group keys and aggregates and total is the number of groups
:rtype: dictionary`,
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _p, input) {
    const db = datastoreReaderOf(ctx)
    const p = searchParams(input, ctx.config)
    let table
    if (p.resource_id === TABLE_METADATA) table = metadataTable
    else {
      // the table (by id or alias) is read first: its entry and its name in one query
      const found = await findTableByName(db, p.resource_id)
      if (!found) throw tableNotFound(p.resource_id)
      const res = await findResourceToRead(ctx, found.id)
      if (!res) throw tableNotFound(p.resource_id)
      await requireCanReadResource(ctx, res)
      table = found
    }
    if (p.late) throw p.late
    let asOf: VersionRow | undefined
    if (input.as_of !== undefined && input.as_of !== null && input.as_of !== '') {
      if (table === metadataTable) throw ValidationError.field('as_of', `${TABLE_METADATA} has no versions`)
      asOf = await resolveVersion(db, table, input.as_of, 'as_of', ctx.now())
      if ((typeof p.spec.q === 'string' && p.spec.q !== '') || (p.spec.q && typeof p.spec.q === 'object') || p.spec.fullText)
        throw ValidationError.field('as_of', 'q and full_text are not available with as_of (the full-text index holds the current rows only)')
      Object.assign(p.spec, asOfSearch(table, asOf, p.spec.filters))
      table = tableAt(table, asOf)
    }
    // ckan: _table_metadata has no _full_text column (a per-column q fails in the query instead)
    if (table === metadataTable && ((typeof p.spec.q === 'string' && p.spec.q !== '') || p.spec.fullText))
      throw invalidQuery('column "_full_text" does not exist', `SELECT FROM "${TABLE_METADATA}"`, [])
    const timeoutMs = timeLeft(ctx, ctx.config.int('service.datastore.search.timeout_ms'))
    const msInTimestamp = ctx.config.bool('service.datastore.ms_in_timestamp')
    let outcome: { fields: OutField[]; rows: unknown[][]; total?: number; columns?: { id: string }[] }
    if (p.aggregation) {
      if (table === metadataTable)
        throw ValidationError.field('group_by', `group_by and aggregates take a table, not ${TABLE_METADATA}`)
      const maxGroups = ctx.config.int('service.datastore.aggregate.max_groups')
      outcome = await aggregateTable(db, table, p.spec, p.aggregation, { maxGroups, timeoutMs, msInTimestamp })
    } else {
      // a version's row count is recorded: an unfiltered total as_of it needs no count
      const known = asOf && !p.spec.distinct && !Object.keys(p.spec.filters ?? {}).length ? asOf.total : undefined
      const found = await searchTable(db, table, p.spec, p.include_total && known === undefined, { timeoutMs, msInTimestamp })
      outcome = { ...found, fields: outFields(found.plan.columns), columns: found.plan.columns }
      if (p.include_total && known !== undefined) outcome.total = known
    }
    const fields = outcome.fields
    const result: Record<string, unknown> = {
      ...p.echo,
      include_total: p.include_total,
      limit: p.spec.limit,
      records_format: p.records_format,
      resource_id: table.id,
      total_estimation_threshold: p.total_estimation_threshold,
      fields,
      records: formatRecords(p.records_format, fields, outcome.rows),
      _links: links(ctx.requestUrl, p.spec.offset, p.spec.limit),
    }
    if (asOf) {
      result.as_of = input.as_of
      result.version = asOf.version
    }
    if (p.include_total) {
      result.total = outcome.total
      result.total_was_estimated = false
    }
    // CKAN 2.12 keyset paging: in _id order, the filter that gives the page after this one (its
    // cost does not grow with the depth, unlike offset)
    const idOrder = keysetDirection(p.spec)
    if (p.include_next_page && idOrder && outcome.rows.length && outcome.columns) {
      let at = outcome.columns.findIndex((c) => c.id === '_id')
      let rows = outcome.rows
      if (at < 0) {
        rows = (await searchTable(db, table, { ...p.spec, fields: ['_id'] }, false, { timeoutMs: timeLeft(ctx, ctx.config.int('service.datastore.search.timeout_ms')) })).rows
        at = 0
      }
      const last = rows[rows.length - 1]?.[at]
      if (last !== undefined && last !== null) result.next_page = { _id: { [idOrder === 'desc' ? 'lt' : 'gt']: Number(last) } }
    }
    return result
  },
})
