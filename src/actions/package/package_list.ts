// package_list: the names of all active public datasets, in name order.
import { z } from 'zod'
import { and, asc, eq } from 'drizzle-orm'
import { defineAction } from '../action'
import { naturalNumber } from '../../validation/fields'
import { packages } from '../../db/schema'

export const packageList = defineAction({
  name: 'package_list',
  readOnly: true,
  help: `Return the names of the site's datasets (packages).

Only active, public datasets are listed, sorted by name.

:param limit: how many names to return at most (optional, default: all)
:type limit: int
:param offset: how many names to skip first, for paging (optional)
:type offset: int
:rtype: list of strings`,
  auth: 'anyone',
  params: z.object({ limit: naturalNumber(), offset: naturalNumber() }),
  async run(ctx, { limit, offset }) {
    let q = ctx.db
      .select({ name: packages.name })
      .from(packages)
      .where(and(eq(packages.state, 'active'), eq(packages.private, false)))
      .orderBy(asc(packages.name))
      .$dynamic()
    // ckan: a limit or offset of 0 means none
    if (limit || offset) q = q.limit(limit || Number.MAX_SAFE_INTEGER).offset(offset ?? 0)
    return (await q).map((r) => r.name)
  },
})
