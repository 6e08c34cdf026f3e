// Who may create, list, see, edit and delete user accounts (CKAN's user auth functions).
import { callerName, type ActionContext } from '../context'
import { NotAuthorized } from '../errors'
import type { DataDict } from '../data-dict'
import { loadUser } from '../model/user'

/** ckan: anonymous callers may read users unless public_user_details is off. */
export function requireCanSeeUsers(ctx: ActionContext) {
  if (!ctx.user && !ctx.config.bool('service.auth.public_user_details')) throw new NotAuthorized()
}

/** ckan user_list auth: filtering by e-mail is for sysadmins (who never reach this rule). */
export function requireCanListUsers(ctx: ActionContext, input: DataDict) {
  if (input.email) throw new NotAuthorized()
  requireCanSeeUsers(ctx)
}

/** ckan user_create auth: only when the site lets users be created through the API (or the web). */
export function requireCanCreateUser(ctx: ActionContext) {
  // ckan: the registration page is governed by create_user_via_web instead
  if (ctx.via === 'web') {
    if (!ctx.config.bool('service.auth.create_user_via_web')) throw new NotAuthorized('Not authorized to create users')
    return
  }
  if (!ctx.config.bool('service.auth.create_user_via_api'))
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to create users via the API`)
}

/**
 * ckan user_update auth (also user_patch, user_generate_apikey): the user themself, or whoever
 * holds the account's reset key; sysadmins never get here. The user is looked up first (404).
 */
export async function requireCanEditUser(ctx: ActionContext, input: DataDict, verb = 'edit') {
  const target = await loadUser(ctx, input.id, { notFound: 'User was not found.' })
  if (target.reset_key && input.reset_key !== undefined && input.reset_key === target.reset_key)
    return
  if (!ctx.user) throw new NotAuthorized('Have to be logged in to edit user')
  if (ctx.user.id !== target.id)
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to ${verb} user ${target.id}`)
}

/** A user's own settings pages (profile, API tokens): that user or a sysadmin; others learn nothing. */
export function requireSelfOrSysadmin(ctx: ActionContext, row: { id: string }) {
  if (!ctx.user || (ctx.user.id !== row.id && !ctx.user.sysadmin)) throw new NotAuthorized()
}
