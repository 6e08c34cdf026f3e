// The id a caller may give a new dataset, group or organization, as service.api_compat rules it.
import { apiAtLeast } from '../config/api-compat'
import type { ActionContext } from '../context'
import { isUuidText } from '../validation/fields'

export const ID_NOT_EXPECTED = 'The input field id was not expected.'

/**
 * Why `id` may not name a new dataset, group or organization, or undefined when it may. ckan: 2.11
 * takes an id from sysadmins only, and only a UUID; 2.9 takes any id (from sysadmins only for
 * datasets, which checkPackage enforces under every setting). Calls made without authorization
 * (the harvester's, CKAN's ignore_auth) keep the remote catalogue's ids.
 */
export function createIdError(ctx: ActionContext, id: string): string | undefined {
  if (!apiAtLeast(ctx.config, '2.11') || ctx.ignoreAuth) return undefined
  if (!ctx.user?.sysadmin) return ID_NOT_EXPECTED
  return isUuidText(id) ? undefined : 'Invalid id provided'
}
