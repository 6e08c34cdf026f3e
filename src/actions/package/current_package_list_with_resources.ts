// current_package_list_with_resources: whole dataset dicts, most recently modified first.
import { z } from 'zod'
import { and, desc, eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { naturalNumber, positiveInt } from '../../validation/fields'
import { packages } from '../../db/schema'
import { packageDicts } from '../../model/package'

export const currentPackageListWithResources = defineAction({
  name: 'current_package_list_with_resources',
  readOnly: true,
  help: `Return active datasets (packages) with their resources, latest modified first.

Private datasets are included for sysadmins only.

:param limit: how many datasets to return (optional, default: 10)
:type limit: int
:param offset: how many datasets to skip first (optional)
:type offset: int
:param page: deprecated, use offset; the page of \`limit\` datasets to return, from 1. Only
    used when offset is not given (optional)
:type page: int
:rtype: list of dictionaries`,
  auth: 'anyone',
  params: z.object({ limit: naturalNumber(), offset: naturalNumber(0), page: positiveInt() }),
  async run(ctx, params, input) {
    // ckan: without a limit the search default of 10 rows applies
    const limit = Math.min(params.limit ?? 10, ctx.config.int('service.search.rows_max'))
    let offset = params.offset ?? 0
    // ckan: page counts only when offset is absent, and is ignored without a limit
    if (!('offset' in input) && params.page !== undefined)
      offset = params.limit ? (params.page - 1) * params.limit : 0
    if (limit === 0) return []
    const visible = ctx.user?.sysadmin
      ? eq(packages.state, 'active')
      : and(eq(packages.state, 'active'), eq(packages.private, false))
    const rows = await ctx.db
      .select({ id: packages.id })
      .from(packages)
      .where(visible)
      .orderBy(desc(packages.metadata_modified), desc(packages.id))
      .limit(limit)
      .offset(offset)
    const dicts = await packageDicts(
      ctx,
      rows.map((r) => r.id),
    )
    return rows.flatMap((r) => dicts.get(r.id) ?? [])
  },
})
