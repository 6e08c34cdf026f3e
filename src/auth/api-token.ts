// Who may create, list and revoke API tokens (CKAN's api_token_* auth): the owner; sysadmins never get here.
import { callerName, type ActionContext, type UserRow } from '../context'
import type { DataDict } from '../data-dict'
import { NotAuthorized, ValidationError, type ErrorDict } from '../errors'
import { findToken, verifiedClaims } from '../model/api-token'
import { loadUser } from '../model/user'
import { MISSING } from '../validation/fields'
import { pyStr } from '../lib/py-repr'

/** ckan get_or_bust: each key must be present (an empty string passes; the schema checks it). */
export function requireKeys(input: DataDict, keys: string[]) {
  const errors: ErrorDict = {}
  for (const k of keys) if (input[k] === undefined || input[k] === null) errors[k] = [MISSING]
  if (Object.keys(errors).length) throw new ValidationError(errors)
}

/** The user whose tokens a call is about (ckan: "User not found" when unknown). */
export function loadTokenOwner(ctx: ActionContext, ref: unknown): Promise<UserRow> {
  return loadUser(ctx, typeof ref === 'string' ? ref : pyStr(ref), { notFound: 'User not found' })
}

const anonymous = (action: string) =>
  new NotAuthorized(`Action ${action} requires an authenticated user`)

/** ckan api_token_create: the parameters are checked and the user looked up before the caller. */
export async function requireCanCreateToken(ctx: ActionContext, input: DataDict) {
  requireKeys(input, ['user', 'name'])
  const owner = await loadTokenOwner(ctx, input.user)
  if (!ctx.user) throw anonymous('api_token_create')
  if (ctx.user.id !== owner.id)
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to create API tokens for user ${owner.name}`,
    )
}

/** The `user` of api_token_list (ckan 2.9 clients also send `user_id`). */
export const listedUser = (input: DataDict) => input.user ?? input.user_id

/** ckan api_token_list: refused before the lookup, so an unknown user looks like someone else's. */
export async function requireCanListTokens(ctx: ActionContext, input: DataDict) {
  const ref = listedUser(input)
  requireKeys({ user: ref }, ['user'])
  if (!ctx.user) throw anonymous('api_token_list')
  const owner = await loadTokenOwner(ctx, ref).catch(() => undefined)
  if (owner?.id !== ctx.user.id)
    throw new NotAuthorized(
      `User ${callerName(ctx)} not authorized to list API tokens of user ${pyStr(ref)}`,
    )
}

/**
 * The jti an api_token_revoke call names: `jti`, else the one inside `token` (signature checked,
 * expiry not: an expired token can still be revoked), else null (not a token of ours).
 */
export async function revokedJti(ctx: ActionContext, input: DataDict): Promise<string | null> {
  const given = input.jti
  if (given !== undefined && given !== null && given !== '' && typeof given !== 'object')
    return String(given)
  requireKeys(input, ['token'])
  if (typeof input.token !== 'string') return null
  const key = `api_token_revoke:${input.token}`
  let p = ctx.memo.get(key) as Promise<string | null> | undefined
  if (!p) {
    p = verifiedClaims(ctx, input.token).then((c) => c?.jti ?? null)
    ctx.memo.set(key, p)
  }
  return p
}

/**
 * ckan api_token_revoke: only the owner; an unknown token gets the same refusal as someone
 * else's, so that revoking cannot be used to discover tokens.
 */
export async function requireCanRevokeToken(ctx: ActionContext, input: DataDict) {
  const jti = await revokedJti(ctx, input)
  if (!ctx.user) throw anonymous('api_token_revoke')
  const token = jti ? await findToken(ctx, jti) : undefined
  if (token?.user_id !== ctx.user.id)
    throw new NotAuthorized(`User ${callerName(ctx)} not authorized to revoke this API token`)
}

/** The token page revokes only a token of the user whose page it is (`tokens`: that user's). */
export function requireTokenAmong(tokens: Record<string, unknown>[], jti: string) {
  if (!tokens.some((t) => t.id === jti)) throw new NotAuthorized()
}
