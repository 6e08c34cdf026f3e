// Follower rows (who follows which user, dataset or group), always read against the live tables.
import { and, asc, count, eq, ne } from 'drizzle-orm'
import { followers, groups, packages, users } from '../db/schema'
import type { ActionContext, UserRow } from '../context'
import { isUniqueViolation, userDicts } from './user'

export type FollowKind = 'user' | 'dataset' | 'group'
export type FollowerRow = typeof followers.$inferSelect
type PackageRow = typeof packages.$inferSelect
type GroupRow = typeof groups.$inferSelect

/** What counting needs of a followed object: deleted objects have no followers (CKAN's join). */
export interface Followed {
  id: string
  state: string
}

/** The dict follow_* returns: CKAN dictizes its follower table, which has no object type. */
export const followerDict = (r: FollowerRow) => ({
  follower_id: r.follower_id,
  object_id: r.object_id,
  datetime: r.datetime,
})

/** The row saying `followerId` follows the object, whatever state either is in (follower_pk). */
export async function findFollow(
  ctx: ActionContext,
  followerId: string,
  objectId: string,
  kind: FollowKind,
): Promise<FollowerRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(followers)
    .where(
      and(
        eq(followers.follower_id, followerId),
        eq(followers.object_id, objectId),
        eq(followers.object_type, kind),
      ),
    )
    .limit(1)
  return row
}

/** ckan is_following: a row exists and the followed object is not deleted. */
export async function isFollowing(
  ctx: ActionContext,
  followerId: string,
  object: Followed,
  kind: FollowKind,
) {
  return object.state !== 'deleted' && !!(await findFollow(ctx, followerId, object.id, kind))
}

// Follower writes append no change-log row: no cached dict holds follower counts (group dicts and
// num_followers are built per request), and a row would only bump packageGeneration and so drop
// every cached dataset dict (model/cache.ts).

/**
 * Inserts the follower row in one atomic write. Returns undefined when the row already exists:
 * the unique index settles a race between two concurrent follows (or a replica that had not
 * seen the first one yet).
 */
export async function addFollower(
  ctx: ActionContext,
  followerId: string,
  objectId: string,
  kind: FollowKind,
): Promise<FollowerRow | undefined> {
  const row: FollowerRow = {
    follower_id: followerId,
    object_id: objectId,
    object_type: kind,
    datetime: ctx.now(),
  }
  try {
    await ctx.writer.write([ctx.db.insert(followers).values(row)])
  } catch (e) {
    if (isUniqueViolation(e)) return undefined
    throw e
  }
  return row
}

/** Deletes the follower row in one atomic write. */
export async function removeFollower(
  ctx: ActionContext,
  followerId: string,
  objectId: string,
  kind: FollowKind,
) {
  await ctx.writer.write([
    ctx.db
      .delete(followers)
      .where(
        and(
          eq(followers.follower_id, followerId),
          eq(followers.object_id, objectId),
          eq(followers.object_type, kind),
        ),
      ),
  ])
}

// ---- followers of an object (follower_object_idx) ----------------------------------------

// ckan: a follower whose account is deleted no longer counts (rows of vanished users drop out too).
const followersOf = (objectId: string, kind: FollowKind) =>
  and(
    eq(followers.object_id, objectId),
    eq(followers.object_type, kind),
    ne(users.state, 'deleted'),
  )

/** How many live users follow the object (0 for a deleted object). */
export async function followerCount(
  ctx: ActionContext,
  object: Followed,
  kind: FollowKind,
): Promise<number> {
  if (object.state === 'deleted') return 0
  const [r] = await ctx.db
    .select({ n: count() })
    .from(followers)
    .innerJoin(users, eq(users.id, followers.follower_id))
    .where(followersOf(object.id, kind))
  return r?.n ?? 0
}

/** The live users following the object, in the order they started (none for a deleted object). */
export async function followerUsers(
  ctx: ActionContext,
  object: Followed,
  kind: FollowKind,
): Promise<UserRow[]> {
  if (object.state === 'deleted') return []
  const rows = await ctx.db
    .select({ user: users })
    .from(followers)
    .innerJoin(users, eq(users.id, followers.follower_id))
    .where(followersOf(object.id, kind))
    .orderBy(asc(followers.datetime), asc(users.id))
  return rows.map((r) => r.user)
}

// ---- what a user follows (follower_pk, by its follower_id prefix) -----------------------

// ckan: a deleted user follows nothing any more.
const followedBy = (user: UserRow, kind: FollowKind) =>
  and(eq(followers.follower_id, user.id), eq(followers.object_type, kind))

/** The live (not deleted) users `user` follows, in the order they were followed. */
export async function followedUsers(ctx: ActionContext, user: UserRow): Promise<UserRow[]> {
  if (user.state === 'deleted') return []
  const rows = await ctx.db
    .select({ row: users })
    .from(followers)
    .innerJoin(users, eq(users.id, followers.object_id))
    .where(and(followedBy(user, 'user'), ne(users.state, 'deleted')))
    .orderBy(asc(followers.datetime), asc(users.id))
  return rows.map((r) => r.row)
}

/**
 * The datasets `user` follows that are not deleted, in the order they were followed. Whether the
 * caller may see each one is for the caller to decide (auth/follow.ts).
 */
export async function followedPackages(ctx: ActionContext, user: UserRow): Promise<PackageRow[]> {
  if (user.state === 'deleted') return []
  const rows = await ctx.db
    .select({ row: packages })
    .from(followers)
    .innerJoin(packages, eq(packages.id, followers.object_id))
    .where(and(followedBy(user, 'dataset'), ne(packages.state, 'deleted')))
    .orderBy(asc(followers.datetime), asc(packages.id))
  return rows.map((r) => r.row)
}

/**
 * The groups and organizations `user` follows that are not deleted, in the order they were
 * followed; only groups or only organizations when `isOrg` is given.
 */
export async function followedGroups(
  ctx: ActionContext,
  user: UserRow,
  isOrg?: boolean,
): Promise<GroupRow[]> {
  if (user.state === 'deleted') return []
  const rows = await ctx.db
    .select({ row: groups })
    .from(followers)
    .innerJoin(groups, eq(groups.id, followers.object_id))
    .where(
      and(
        followedBy(user, 'group'),
        ne(groups.state, 'deleted'),
        isOrg === undefined ? undefined : eq(groups.is_organization, isOrg),
      ),
    )
    .orderBy(asc(followers.datetime), asc(groups.id))
  return rows.map((r) => r.row)
}

/** How many live users (`'user'`) or groups and organizations (`'group'`) `user` follows. */
export async function followeeCount(
  ctx: ActionContext,
  user: UserRow,
  kind: 'user' | 'group',
): Promise<number> {
  if (user.state === 'deleted') return 0
  const q =
    kind === 'user'
      ? ctx.db
          .select({ n: count() })
          .from(followers)
          .innerJoin(users, eq(users.id, followers.object_id))
          .where(and(followedBy(user, 'user'), ne(users.state, 'deleted')))
      : ctx.db
          .select({ n: count() })
          .from(followers)
          .innerJoin(groups, eq(groups.id, followers.object_id))
          .where(and(followedBy(user, 'group'), ne(groups.state, 'deleted')))
  const [r] = await q
  return r?.n ?? 0
}

/** ckan user_list_dictize: user dicts without e-mail or API key, sorted by name. */
export async function publicUserDicts(ctx: ActionContext, rows: UserRow[]) {
  const dicts = await userDicts(ctx, rows, { publicOnly: true })
  return dicts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
