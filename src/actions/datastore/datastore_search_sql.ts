// datastore_search_sql: one read-only SELECT over DataStore tables, time-limited.
import { z } from 'zod'
import { defineAction } from '../action'
import { BadRequest, ValidationError } from '../../errors'
import { datastoreReaderOf } from '../../datastore/access'
import { sqlSearchRules } from '../../auth/datastore'
import { searchSql } from '../../datastore/sql-search'
import { reqString } from '../../validation/fields'
import { zodToErrorDict } from '../../validation/zod-errors'

const sqlParams = z.object({ sql: reqString })

export const datastoreSearchSql = defineAction({
  name: 'datastore_search_sql',
  readOnly: true,
  auth: 'anyone',
  help: `Run one SQL SELECT statement over DataStore tables.

Tables are named by resource id (double-quote ids and mixed-case column names). Joins, CTEs and
aggregates work; common PostgreSQL spellings ("col"::int, ILIKE, public."<id>") are accepted. You
must be allowed to read every resource the query reads. Writes, system tables and functions off the
allow-list are refused; each query has a time limit (service.datastore.sqlsearch.timeout_ms).

:param sql: a single SQL select statement
:type sql: string
:returns: sql, fields (id and type of each column) and records; records_truncated when more than
  service.datastore.search.rows_max rows matched
:rtype: dictionary`,
  // Checked in run: a switched-off action must not even validate its parameters.
  params: z.looseObject({}),
  async run(ctx, input) {
    // ckan: with sqlsearch disabled the action is not registered at all
    if (!ctx.config.bool('service.datastore.sqlsearch.enabled'))
      throw new BadRequest('Action name not known: datastore_search_sql')
    const parsed = sqlParams.safeParse(input)
    if (!parsed.success) throw new ValidationError(zodToErrorDict(parsed.error))
    return searchSql(ctx, datastoreReaderOf(ctx), parsed.data.sql, sqlSearchRules(ctx))
  },
})
