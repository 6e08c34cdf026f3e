// Resource lookups and writes: each change rewrites its dataset's dict, change log and activity in one batch.
import { and, eq, gt, sql } from 'drizzle-orm'
import { datasetChanged, noteChanged } from './changed-entities'
import { activities, changeLog, packages, resourceViews, resources } from '../db/schema'
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { isMissing, MISSING } from '../validation/fields'
import { activityRow, recordsPrivateActivity } from './activity'
import { changeRow } from './changes'
import { resourceDefaultViews } from './default-views'
import type { RawStatement } from '../db/executor'
import { loadPackage, packageDict, type PackageDict, type PackageRow } from './package'
import { runWrite } from './package-write'
import { checkResource } from './package-validate'
import { newResourceIdError, resourceIdsAreUuids } from './create-id'
import { mergeResource } from './resource-merge'
import { resourceToDict, type ResourceRow } from './resource'
import { syncResourceFile, uploadKeyFor } from './resource-file'

import type { Stmt } from './write-batcher'
import { datasetOutput, mergeErrors, resourceInput } from '../scheming/dataset'

/** A raw id parameter: a Validation Error when absent. */
export function requireId(input: Record<string, unknown>, key = 'id'): string {
  const v = input[key]
  if (isMissing(v) || typeof v === 'object') throw new ValidationError({ [key]: [MISSING] })
  return String(v)
}

/** The resource row with this id, in any state; memoised per request. NotFound(`notFound`) if none. */
export function loadResource(
  ctx: ActionContext,
  id: string,
  notFound?: string,
): Promise<ResourceRow> {
  const key = `resource:${id}`
  let p = ctx.memo.get(key) as Promise<ResourceRow> | undefined
  if (!p) {
    p = ctx.db
      .select()
      .from(resources)
      .where(eq(resources.id, id))
      .limit(1)
      .then(([row]) => {
        if (!row) throw new NotFound(notFound)
        return row
      })
    ctx.memo.set(key, p)
    p.catch(() => ctx.memo.delete(key))
  }
  return p
}

/** The resource as its dataset's dict shows it; NotFound when the dataset does not list it. */
export async function shownResource(ctx: ActionContext, res: ResourceRow) {
  const dict = await packageDict(ctx, res.package_id)
  const shown = dict.resources.find((r) => r.id === res.id)
  if (!shown) throw new NotFound('Resource was not found.')
  return { dict, shown }
}

/** What a resource write causes elsewhere (`before` undefined: the resource is new). */
export type ResourceWriteEffects = (
  ctx: ActionContext,
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  /** The file this write stores (moved into place only after the batch commits). */
  upload?: { sha256: string; size: number },
) => RawStatement[]

/**
 * Writes `row` (a new or changed resource of `pkg`) with the dataset bump, change log, activity
 * and default views, and returns the resource dict. Validation errors are the resource's own.
 */
export async function saveResource(
  ctx: ActionContext,
  pkg: PackageRow,
  raw: Record<string, unknown>,
  existing: ResourceRow | undefined,
  /**
   * Statements the change causes beyond the catalogue, written in the same batch: the actions
   * pass the loader's rule (jobs/loader/enqueue.ts `loadOnResourceWrite`).
   */
  effects: ResourceWriteEffects = () => [],
): Promise<Record<string, unknown>> {
  // the dataset type's schema (scheming): its resource fields checked, then the core checks
  const schema = ctx.schemas?.dataset(pkg.type)
  const typed = schema ? resourceInput(schema, raw, !existing) : undefined
  const checked = checkResource(typed?.res ?? raw, { uuidIds: resourceIdsAreUuids(ctx) })
  const { res } = checked
  const errors = typed ? mergeErrors(typed.errors, checked.errors) : checked.errors
  const idError = res.core.id && !existing ? newResourceIdError(ctx, res.core.id as string) : undefined
  if (idError) errors.id = [idError]
  else if (res.core.id && !existing) {
    const [clash] = await ctx.db
      .select()
      .from(resources)
      .where(eq(resources.id, res.core.id as string))
      .limit(1)
    if (clash?.state === 'active') errors.id = ['Resource id already exists.']
    else existing = clash
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  const dict = await packageDict(ctx, pkg.id)
  const now = ctx.now()
  const position =
    existing?.state === 'active' && existing.package_id === pkg.id
      ? existing.position
      : dict.resources.reduce((m, r) => Math.max(m, (r.position as number) + 1), 0)
  const row = mergeResource(existing, res, {
    id: (res.core.id as string) ?? ctx.newId(),
    packageId: pkg.id,
    position,
    now,
    mimetypeGuess: ctx.config.str('service.mimetype_guess'),
  })
  if (res.upload) uploadKeyFor(row)
  const stmt = existing
    ? ctx.db.update(resources).set(row).where(eq(resources.id, row.id))
    : ctx.db.insert(resources).values(row)
  const siteUrl = ctx.config.str('service.site_url')
  const shown = resourceToDict(row, siteUrl)
  const before = dict.resources.find((r) => r.id === row.id)
  const others = dict.resources.filter((r) => r.id !== row.id)
  const list = [...others, shown].sort((a, b) => (a.position as number) - (b.position as number))
  const views = resourceDefaultViews(ctx, before, shown)
  const load = effects(ctx, before, shown, res.upload)
  // changes_list: the resource itself, and its DataStore table when one appears or goes
  const logged = [changeRow('resource', row.id, 'upsert', existing?.state === 'active' ? 'updated' : 'created')]
  const hadTable = existing?.state === 'active' && !!existing.datastore_active
  if (hadTable !== !!row.datastore_active) logged.push(changeRow('datastore', row.id, row.datastore_active ? 'upsert' : 'delete', row.datastore_active ? 'created' : 'deleted'))
  const log = ctx.db.insert(changeLog).values(logged)
  await commitDatasetChange(ctx, pkg, dict, list, now, [stmt, ...views, ...load, log])
  if (ctx.changed && (!before || datasetChanged(before, shown))) noteChanged(ctx, 'packages', pkg.id)
  await syncResourceFile(ctx, existing, row, res.upload)
  const out = resourceToDict(row, siteUrl)
  return schema ? (datasetOutput(schema, { resources: [out] }).resources as Record<string, unknown>[])[0]! : out
}

/** Marks a resource deleted and closes the gap in its dataset's positions. */
export async function deleteResource(ctx: ActionContext, res: ResourceRow) {
  const pkg = await loadPackage(ctx, res.package_id)
  const dict = await packageDict(ctx, pkg.id)
  const now = ctx.now()
  const stmts: Stmt[] = [
    ctx.db
      .update(resources)
      .set({ state: 'deleted', metadata_modified: now })
      .where(eq(resources.id, res.id)),
    // Views go with their resource.
    ctx.db.delete(resourceViews).where(eq(resourceViews.resource_id, res.id)),
    ctx.db.insert(changeLog).values([
      changeRow('resource', res.id, 'delete', 'deleted'),
      ...(res.state === 'active' && res.datastore_active ? [changeRow('datastore', res.id, 'delete', 'deleted')] : []),
    ]),
  ]
  if (res.state === 'active')
    stmts.push(
      ctx.db
        .update(resources)
        .set({ position: sql`${resources.position} - 1` })
        .where(
          and(
            eq(resources.package_id, pkg.id),
            eq(resources.state, 'active'),
            gt(resources.position, res.position),
          ),
        ),
    )
  const list = dict.resources
    .filter((r) => r.id !== res.id)
    .map((r) =>
      (r.position as number) > res.position ? { ...r, position: (r.position as number) - 1 } : r,
    )
  await commitDatasetChange(ctx, pkg, dict, list, now, stmts)
  if (res.state === 'active') noteChanged(ctx, 'packages', pkg.id)
  // ckan keeps the file; here it goes with the resource so nothing is left without a record
  await syncResourceFile(ctx, res, { ...res, url_type: null }, undefined)
}

/** The dataset side of a resource change: metadata_modified, change log, activity, caches. */
async function commitDatasetChange(
  ctx: ActionContext,
  pkg: PackageRow,
  dict: PackageDict,
  list: Record<string, unknown>[],
  now: string,
  stmts: Stmt[],
) {
  const next: PackageDict = {
    ...dict,
    metadata_modified: now,
    num_resources: list.length,
    resources: list,
  }
  stmts.push(ctx.db.update(packages).set({ metadata_modified: now }).where(eq(packages.id, pkg.id)))
  stmts.push(ctx.db.insert(changeLog).values(changeRow('package', pkg.id)))
  // ckan: resource changes are "changed package" activities; private datasets record none
  // before 2.11
  if (!pkg.private || recordsPrivateActivity(ctx)) {
    const act = activityRow(ctx, 'changed package', pkg.id, { package: next })
    if (act) stmts.push(ctx.db.insert(activities).values(act))
  }
  await runWrite(ctx, stmts, [pkg.id])
}
