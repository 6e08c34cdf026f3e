// What bulk_update_private/public/delete share: one change applied to many of an org's datasets.
import { z } from 'zod'
import { and, eq, inArray, or } from 'drizzle-orm'
import type { ActionContext } from '../context'
import { activities, changeLog, groups, packages } from '../db/schema'
import { rawInsert } from '../db/raw-insert'
import { reqString, stringList } from '../validation/fields'
import { changeRow, packageDetail } from './changes'
import { packageActivityRow, recordsPrivateActivity } from './activity'
import { forgetPackages, packageDicts } from './package'

export const bulkUpdateParams = z.object({ datasets: stringList, org_id: reqString })

/** The id of the group or organization with this id or name (ids first), if any. */
export async function findGroupId(ctx: ActionContext, idOrName: unknown): Promise<string | undefined> {
  if (typeof idOrName !== 'string' || !idOrName) return undefined
  const rows = await ctx.db
    .select({ id: groups.id })
    .from(groups)
    .where(or(eq(groups.id, idOrName), eq(groups.name, idOrName)))
    .limit(2)
  return (rows.find((r) => r.id === idOrName) ?? rows[0])?.id
}

/**
 * Applies `set` to the listed datasets (by id) that `org_id` owns; others are left alone
 * silently. One batch, with a change-log row per changed dataset, and, like CKAN, no change to
 * metadata_modified. Each dataset that is public afterwards gets a "changed package" activity
 * ("deleted package" when this deletes it); datasets private afterwards record none before
 * api_compat 2.11, as package_update records none for private datasets.
 */
export async function bulkUpdateDatasets(
  ctx: ActionContext,
  { datasets, org_id }: z.output<typeof bulkUpdateParams>,
  set: { private: boolean } | { state: 'deleted' },
): Promise<null> {
  const orgId = await findGroupId(ctx, org_id)
  if (!orgId || !datasets?.length) return null
  const owned = and(inArray(packages.id, [...new Set(datasets)]), eq(packages.owner_org, orgId))
  const rows = await ctx.db
    .select({ id: packages.id, private: packages.private, state: packages.state })
    .from(packages)
    .where(owned)
  if (!rows.length) return null
  const dicts = await packageDicts(ctx, rows.map((r) => r.id))
  const acts = rows.flatMap((r) => {
    const after = { ...r, ...set }
    const dict = dicts.get(r.id)
    if (after.private && !recordsPrivateActivity(ctx)) return []
    if (!dict || (r.state === 'deleted' && after.state === 'deleted')) return []
    const type = after.state === 'deleted' ? 'deleted package' : 'changed package'
    const act = packageActivityRow(ctx, type, r.id, JSON.stringify({ ...dict, ...set }))
    return act ? [act] : []
  })
  await ctx.writer.write([
    ctx.db.update(packages).set(set).where(owned),
    ctx.db.insert(changeLog).values(rows.map((r) => changeRow('package', r.id, 'upsert', packageDetail({ ...r, ...set }, r)))),
    ...(acts.length ? [rawInsert(activities, acts)] : []),
  ])
  forgetPackages(ctx)
  return null
}
