// group_package_show: the datasets of a group or organization that the caller may see, newest first.
import { z } from 'zod'
import { defineAction } from '../action'
import { idOrName, isMissing, toInt, FieldFail } from '../../validation/fields'
import { datasetDicts, groupDatasetIds, loadGroup } from '../../model/group'
import { requireCanReadGroup } from '../../auth/group'

const LIMIT_MSG = 'Limit must be a positive integer'

/** ckan: a given, non-zero limit must be a non-negative integer; absent or 0 → 10. */
function readLimit(v: unknown): number | undefined | FieldFail {
  if (isMissing(v) || v === 0 || v === '0') return undefined
  const n = toInt(v)
  return n instanceof FieldFail || n < 0 ? new FieldFail(LIMIT_MSG) : n
}

export const groupPackageShow = defineAction({
  name: 'group_package_show',
  readOnly: true,
  help: `Return the datasets of a group or organization, most recently modified first.

Only datasets the caller may see are listed: a group's public datasets, and an
organization's datasets with the private ones for its members.

:param id: the id or name of the group or organization
:type id: string
:param limit: the maximum number of datasets to return (optional, default: 10)
:type limit: int
:rtype: list of dictionaries`,
  // ckan: the limit is checked before the group is looked up
  validateFirst: true,
  auth: async (ctx, input) => requireCanReadGroup(ctx, await loadGroup(ctx, input.id)),
  params: z.object({ id: idOrName, limit: z.unknown().optional() }).superRefine((p, c) => {
    if (readLimit(p.limit) instanceof FieldFail)
      c.addIssue({ code: 'custom', message: LIMIT_MSG, path: [] })
  }),
  async run(ctx, params) {
    const g = await loadGroup(ctx, params.id)
    const limit = Math.min(
      (readLimit(params.limit) as number | undefined) ?? 10,
      ctx.config.int('service.search.rows_max'),
    )
    return datasetDicts(ctx, await groupDatasetIds(ctx, g, limit))
  },
})
