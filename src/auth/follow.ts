// Who may follow, and who may see followers and followees (CKAN's rules, plus dataset privacy).
import type { ActionContext, UserRow } from '../context'
import { NotAuthorized } from '../errors'
import { findFollow, type FollowKind } from '../model/follower'
import { loadFollowTarget, targetNotFound, type FollowTarget } from '../model/follow-target'
import type { PackageRow } from '../model/package'
import { findUser } from '../model/user'
import { canReadPackage } from './package'

/**
 * follow_* and unfollow_* check the caller themselves (they have no auth function in CKAN), so
 * an anonymous caller gets the action's own message rather than "requires an authenticated user".
 */
export function requireLoggedInTo(ctx: ActionContext, message: string): UserRow {
  if (!ctx.user) throw new NotAuthorized(message)
  return ctx.user
}

/**
 * The target of a follower action as the caller may know it. Beyond CKAN: a dataset the caller
 * cannot read (private, or draft/deleted, and not a member) is answered exactly like an unknown
 * one, so following, counting or listing followers never reveals that it exists.
 */
export async function loadVisibleTarget(
  ctx: ActionContext,
  kind: FollowKind,
  raw: unknown,
): Promise<FollowTarget> {
  const t = await loadFollowTarget(ctx, kind, raw)
  if (t.kind === 'dataset' && !(await canReadPackage(ctx, t.row))) throw targetNotFound(kind)
  return t
}

/**
 * The target of an unfollow_*: as loadVisibleTarget, but beyond CKAN a follower who lost read
 * access to a dataset may still let go (they know the dataset, and the answer tells nobody else
 * anything); to anyone else it stays unknown.
 */
export async function loadUnfollowTarget(
  ctx: ActionContext,
  user: UserRow,
  kind: FollowKind,
  raw: unknown,
): Promise<FollowTarget> {
  const t = await loadFollowTarget(ctx, kind, raw)
  if (
    t.kind === 'dataset' &&
    !(await canReadPackage(ctx, t.row)) &&
    !(await findFollow(ctx, user.id, t.id, 'dataset'))
  )
    throw targetNotFound(kind)
  return t
}

/**
 * am_following_*: the caller and the target. ckan: the id is checked first; only then is an
 * anonymous caller refused (a bare "Access denied"). The action's auth rule and its run both
 * call it, so the refusal stands also where auth is skipped.
 */
export async function loadTargetOfCaller(
  ctx: ActionContext,
  kind: FollowKind,
  raw: unknown,
): Promise<{ user: UserRow; target: FollowTarget }> {
  const target = await loadVisibleTarget(ctx, kind, raw)
  if (!ctx.user) throw new NotAuthorized()
  return { user: ctx.user, target }
}

/** The datasets among `rows` the caller may read now (a followed one may have gone private). */
export async function readablePackages(ctx: ActionContext, rows: PackageRow[]) {
  const out: PackageRow[] = []
  for (const p of rows) if (await canReadPackage(ctx, p)) out.push(p)
  return out
}

/**
 * ckan _followee_list auth: what a user follows is for the user themself (sysadmins never get
 * here); everyone else, anonymous included, and any unknown user give "Not authorized".
 */
export function requireCanSeeFollowees(ctx: ActionContext, user: UserRow | undefined) {
  if (!ctx.user || !user || user.id !== ctx.user.id) throw new NotAuthorized('Not authorized')
}

/** The same rule for actions that authorize before validating: `rawId` names a user or nobody. */
export async function requireCanSeeFolloweesOf(ctx: ActionContext, rawId: unknown) {
  if (!ctx.user) throw new NotAuthorized('Not authorized')
  const ref = typeof rawId === 'string' || typeof rawId === 'number' ? String(rawId) : ''
  requireCanSeeFollowees(ctx, ref ? await findUser(ctx, ref) : undefined)
}
