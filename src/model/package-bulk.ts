// What bulk_update_private/public/delete share: one change applied to many of an org's datasets.
import { z } from 'zod'
import { and, eq, inArray, or } from 'drizzle-orm'
import type { ActionContext } from '../context'
import type { DataDict } from '../data-dict'
import { changeLog, groups, packages } from '../db/schema'
import { NotAuthorized } from '../errors'
import { hasPermission } from '../auth/permissions'
import { reqString, stringList } from '../validation/fields'
import { changeRow } from './changes'
import { forgetPackages } from './package'

export const bulkUpdateParams = z.object({ datasets: stringList, org_id: reqString })

async function findGroupId(ctx: ActionContext, idOrName: unknown): Promise<string | undefined> {
  if (typeof idOrName !== 'string' || !idOrName) return undefined
  const rows = await ctx.db
    .select({ id: groups.id })
    .from(groups)
    .where(or(eq(groups.id, idOrName), eq(groups.name, idOrName)))
    .limit(2)
  return (rows.find((r) => r.id === idOrName) ?? rows[0])?.id
}

/** ckan: only admins of org_id may bulk update; the refusal carries no detail. */
export async function requireBulkUpdateAdmin(ctx: ActionContext, input: DataDict) {
  const orgId = await findGroupId(ctx, input.org_id)
  if (!orgId || !(await hasPermission(ctx, orgId, 'admin'))) throw new NotAuthorized()
}

/**
 * Applies `set` to the listed datasets (by id) that `org_id` owns; others are left alone
 * silently. One batch, with a change-log row per changed dataset. Like CKAN, it records no
 * activity and leaves metadata_modified alone.
 */
export async function bulkUpdateDatasets(
  ctx: ActionContext,
  { datasets, org_id }: z.output<typeof bulkUpdateParams>,
  set: { private: boolean } | { state: 'deleted' },
): Promise<null> {
  const orgId = await findGroupId(ctx, org_id)
  if (!orgId || !datasets?.length) return null
  const owned = and(inArray(packages.id, [...new Set(datasets)]), eq(packages.owner_org, orgId))
  const rows = await ctx.db.select({ id: packages.id }).from(packages).where(owned)
  if (!rows.length) return null
  await ctx.db.batch([
    ctx.db.update(packages).set(set).where(owned),
    ctx.db.insert(changeLog).values(rows.map((r) => changeRow('package', r.id))),
  ])
  forgetPackages(ctx)
  return null
}
