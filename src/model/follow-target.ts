// What follow_* and unfollow_* act on: the `id` as a user, dataset or group, and the two writes.
import type { ActionContext, UserRow } from '../context'
import { apiAtLeast } from '../config/api-compat'
import { NotFound, ValidationError } from '../errors'
import { isEmptyValue, MISSING } from '../validation/fields'
import { displayName as groupDisplayName } from './group-display'
import {
  addFollower,
  findFollow,
  followerDict,
  isFollowing,
  removeFollower,
  type FollowKind,
} from './follower'
import { findGroup, type GroupRow } from './group'
import { findPackage, type PackageRow } from './package'
import { findUser } from './user'

interface TargetBase {
  id: string
  state: string
  /** The name CKAN puts in "You are already following …". */
  displayName: string
}

export type FollowTarget =
  | (TargetBase & { kind: 'user'; row: UserRow })
  | (TargetBase & { kind: 'dataset'; row: PackageRow })
  | (TargetBase & { kind: 'group'; row: GroupRow })

const LABEL: Record<FollowKind, string> = { user: 'User', dataset: 'Dataset', group: 'Group' }

/** ckan's converter message: `{"id": ["Not found: User"]}` (Dataset, Group). */
export const targetNotFound = (kind: FollowKind) =>
  new ValidationError({ id: [`Not found: ${LABEL[kind]}`] })

async function find(
  ctx: ActionContext,
  kind: FollowKind,
  ref: string,
): Promise<FollowTarget | undefined> {
  if (kind === 'user') {
    const row = await findUser(ctx, ref)
    if (!row) return undefined
    const name = row.fullname && row.fullname.trim() ? row.fullname : row.name
    return { kind, row, id: row.id, state: row.state, displayName: name }
  }
  if (kind === 'dataset') {
    const row = await findPackage(ctx, ref)
    if (!row) return undefined
    return { kind, row, id: row.id, state: row.state, displayName: row.title || row.name || row.id }
  }
  const row = await findGroup(ctx, ref)
  if (!row) return undefined
  return { kind, row, id: row.id, state: row.state, displayName: groupDisplayName(row) }
}

/**
 * The object a raw `id` parameter names, in any state (groups and organizations alike for
 * 'group'); memoised per request. Throws CKAN's Validation Errors: `Missing value` when absent,
 * `Not found: <Kind>` when unknown. Who may see it is auth/follow.ts's business.
 */
export function loadFollowTarget<K extends FollowKind>(
  ctx: ActionContext,
  kind: K,
  raw: unknown,
): Promise<Extract<FollowTarget, { kind: K }>> {
  if (isEmptyValue(raw)) throw new ValidationError({ id: [MISSING] })
  // ckan: unicode_safe turns anything else into text, which then names nothing
  if (typeof raw !== 'string' && typeof raw !== 'number') throw targetNotFound(kind)
  const ref = String(raw)
  const key = `follow-target:${kind}:${ref}`
  let p = ctx.memo.get(key) as Promise<Extract<FollowTarget, { kind: K }>> | undefined
  if (!p) {
    p = find(ctx, kind, ref).then((t) => {
      if (!t) throw targetNotFound(kind)
      return t as Extract<FollowTarget, { kind: K }>
    })
    ctx.memo.set(key, p)
    p.catch(() => ctx.memo.delete(key))
  }
  return p
}

const alreadyFollowing = (t: FollowTarget) =>
  ValidationError.message(`You are already following ${t.displayName}`)

/**
 * follow_*: `user` starts following `target` and gets CKAN's follower dict. Refusals in CKAN's
 * order: yourself, then already following (a concurrent follow that won the race counts too);
 * with service.api_compat 2.11 a repeated follow answers the existing follower dict instead.
 * Beyond CKAN: a deleted object cannot be followed ("Not found"), since no list would show it.
 */
export async function startFollowing(ctx: ActionContext, user: UserRow, target: FollowTarget) {
  if (target.state === 'deleted') throw targetNotFound(target.kind)
  if (target.kind === 'user' && target.id === user.id)
    throw ValidationError.message('You cannot follow yourself')
  // ckan: 2.11 no longer treats following twice as an error
  const repeatIsFine = apiAtLeast(ctx.config, '2.11')
  const existing = await findFollow(ctx, user.id, target.id, target.kind)
  if (existing) {
    if (repeatIsFine) return followerDict(existing)
    throw alreadyFollowing(target)
  }
  const row = await addFollower(ctx, user.id, target.id, target.kind)
  if (row) return followerDict(row)
  const raced = repeatIsFine && (await findFollow(ctx, user.id, target.id, target.kind))
  if (raced) return followerDict(raced)
  throw alreadyFollowing(target)
}

/**
 * unfollow_*: removes the follower row. ckan: following a deleted object does not count, so that
 * is "You are not following <id>." too, with the id as the caller sent it; with
 * service.api_compat 2.11 not following is no error (the answer is null all the same).
 */
export async function stopFollowing(
  ctx: ActionContext,
  user: UserRow,
  target: FollowTarget,
  rawId: unknown,
) {
  if (!(await isFollowing(ctx, user.id, target, target.kind))) {
    if (apiAtLeast(ctx.config, '2.11')) return
    throw new NotFound(`You are not following ${String(rawId)}.`)
  }
  await removeFollower(ctx, user.id, target.id, target.kind)
}
