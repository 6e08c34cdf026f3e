// Who may see and run harvest sources (ckanext-harvest's auth): what package_show, package_create,
// package_update and package_delete allow on the source dataset, with ckanext-harvest's messages.
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import type { PackageRow } from '../model/package'
import { authorizePackageCreate, canEditPackage, canReadPackage } from './package'
import type { DataDict } from '../data-dict'
import { requireLoggedIn } from './caller'

/** ckanext-harvest harvest_source_show: package_show's rule on the source. */
export async function requireCanReadSource(ctx: ActionContext, source: PackageRow) {
  if (ctx.ignoreAuth) return
  if (!(await canReadPackage(ctx, source)))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to read harvest source ${source.id}`)
}

export const canReadSource = (ctx: ActionContext, source: PackageRow) =>
  ctx.ignoreAuth ? Promise.resolve(true) : canReadPackage(ctx, source)

/** ckanext-harvest harvest_source_create: package_create's rule (in the organization given). */
export async function requireCanCreateSource(ctx: ActionContext, raw: DataDict) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  requireLoggedIn(ctx, 'harvest_source_create')
  try {
    await authorizePackageCreate(ctx, raw)
  } catch (e) {
    if (e instanceof NotAuthorized)
      throw new NotAuthorized(`User ${callerName(ctx)} not authorized to create harvest sources`)
    throw e
  }
}

/** Sysadmins only (lists across every source, the harvest log), with ckanext-harvest's wording. */
export function requireHarvestSysadmin(ctx: ActionContext, what: string) {
  if (ctx.ignoreAuth || ctx.user?.sysadmin) return
  throw new NotAuthorized(`Only sysadmins can ${what}`)
}

export const canEditSource = (ctx: ActionContext, source: PackageRow) =>
  ctx.ignoreAuth ? Promise.resolve(true) : canEditPackage(ctx, source)

/**
 * ckanext-harvest harvest_source_update (and what forwards to it: clearing, job history, job
 * lists, reports, aborting): package_update's rule on the source.
 */
export async function requireCanEditSource(ctx: ActionContext, source: PackageRow, message?: string) {
  if (await canEditSource(ctx, source)) return
  throw new NotAuthorized(message ?? `User ${callerName(ctx)} not authorized to update harvest source ${source.id}`)
}

/** ckanext-harvest harvest_job_create: package_update's rule on the source. */
export const requireCanRunSource = (ctx: ActionContext, source: PackageRow) =>
  requireCanEditSource(ctx, source, `User not authorized to create a job for source ${source.id}`)

/** ckanext-harvest harvest_job_show / harvest_job_report. */
export const requireCanSeeJobs = (ctx: ActionContext, source: PackageRow) =>
  requireCanEditSource(ctx, source, `User ${callerName(ctx)} not authorized to see jobs from source ${source.id}`)

/** ckanext-harvest harvest_job_list. */
export const requireCanListJobs = (ctx: ActionContext, source: PackageRow) =>
  requireCanEditSource(ctx, source, `User ${callerName(ctx)} not authorized to list jobs for source ${source.id}`)

/** ckanext-harvest harvest_source_delete: package_delete's rule on the source. */
export async function requireCanDeleteSource(ctx: ActionContext, source: PackageRow) {
  if (ctx.ignoreAuth) return
  if (!(await canEditPackage(ctx, source, 'delete_dataset')))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to delete harvest source ${source.id}`)
}
