// The id a caller may give a new dataset, group, organization, user, resource view or extra, and a
// new resource, as service.api_compat rules it.
import { apiAtLeast } from '../config/api-compat'
import type { ActionContext } from '../context'
import { isUuidText } from '../validation/fields'

export const ID_NOT_EXPECTED = 'The input field id was not expected.'

/**
 * Why `id` may not name a new dataset, group, organization, user or resource view (or be given
 * in an extra), or undefined when it may. ckan: 2.11 takes an id from sysadmins only, and only a
 * UUID; 2.9 takes any id (from sysadmins only for datasets, which checkPackage enforces under
 * every setting). Calls made without authorization (the harvester's, CKAN's ignore_auth) keep the
 * remote catalogue's ids. The callers decide what 2.9 and 2.10 do with the ids they ignore.
 */
export function createIdError(ctx: ActionContext, id: string): string | undefined {
  if (!apiAtLeast(ctx.config, '2.11') || ctx.ignoreAuth) return undefined
  if (!ctx.user?.sysadmin) return ID_NOT_EXPECTED
  return isUuidText(id) ? undefined : 'Invalid id provided'
}

/**
 * ckan 2.11: a new resource's id must be a UUID, from anyone ("Invalid id provided", in place of
 * 2.9's check of its characters and length). Only ids not yet the dataset's are checked here: a
 * dataset whose resources kept older ids can still be updated. Calls without authorization (the
 * harvester's) keep 2.9's check.
 */
export function resourceIdsAreUuids(ctx: ActionContext): boolean {
  return apiAtLeast(ctx.config, '2.11') && !ctx.ignoreAuth
}

/** Why a new resource may not have `id` under the site's rules (see resourceIdsAreUuids). */
export function newResourceIdError(ctx: ActionContext, id: string): string | undefined {
  return resourceIdsAreUuids(ctx) && !isUuidText(id) ? 'Invalid id provided' : undefined
}

/**
 * Why an extra may not carry `id` (undefined: it may, and it is ignored). ckan: 2.9 and 2.10
 * ignore an extra's id from anyone; 2.11 refuses it from all but sysadmins, and any but a UUID.
 * The id is never stored: extras get their own.
 */
export function extraIdError(ctx: ActionContext, id: string): string | undefined {
  return apiAtLeast(ctx.config, '2.11') ? createIdError(ctx, id) : undefined
}
