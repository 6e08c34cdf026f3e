// Dataset collaborators (CKAN's package_member): who holds which capacity on one dataset.
import { and, eq, sql } from 'drizzle-orm'
import { changeLog, packageMembers } from '../db/schema'
import type { ActionContext, UserRow } from '../context'
import { changeRow, type Change } from './changes'
import type { BatchItem } from 'drizzle-orm/batch'
import type { Stmt } from './write-batcher'

type Step = BatchItem<'sqlite'>

export type CollaboratorRow = typeof packageMembers.$inferSelect

/** The change-log entity of collaborator changes; its entity_id is the user whose rights moved. */
export const COLLABORATOR_ENTITY = 'package_member'

/** package_collaborator_create's result (ckan member_dictize of the row). */
export const collaboratorDict = (r: CollaboratorRow) => ({
  package_id: r.package_id,
  user_id: r.user_id,
  capacity: r.capacity,
  modified: r.modified,
})

/**
 * The user's collaborations: dataset id → capacity, whatever the options say (auth/collaborator.ts
 * decides what they grant). One indexed query per user, then cached per process until the change
 * log reports a collaborator change of that user.
 */
export async function userCollaborations(
  ctx: ActionContext,
  userId: string,
): Promise<ReadonlyMap<string, string>> {
  const cached = ctx.caches.collaborations.get(userId)
  if (cached) return cached
  const generation = ctx.caches.collaborationGeneration
  const rows = await ctx.db
    .select({ package_id: packageMembers.package_id, capacity: packageMembers.capacity })
    .from(packageMembers)
    .where(eq(packageMembers.user_id, userId))
  const out = new Map(rows.map((r) => [r.package_id, r.capacity]))
  // A change applied while we read may have made the rows stale: then only this request uses them.
  if (generation === ctx.caches.collaborationGeneration) ctx.caches.collaborations.set(userId, out)
  return out
}

/** The collaborators of a dataset, optionally of one capacity. */
export function datasetCollaborators(ctx: ActionContext, packageId: string, capacity?: string) {
  return ctx.db
    .select()
    .from(packageMembers)
    .where(
      and(
        eq(packageMembers.package_id, packageId),
        capacity ? eq(packageMembers.capacity, capacity) : undefined,
      ),
    )
    .orderBy(sql`rowid`) // the order they were added in
}

/** The datasets a user collaborates on, optionally in one capacity. */
export function collaborationsOf(ctx: ActionContext, userId: string, capacity?: string) {
  return ctx.db
    .select()
    .from(packageMembers)
    .where(
      and(
        eq(packageMembers.user_id, userId),
        capacity ? eq(packageMembers.capacity, capacity) : undefined,
      ),
    )
    .orderBy(sql`rowid`) // the order they were added in
}

export async function findCollaborator(ctx: ActionContext, packageId: string, userId: string) {
  const [row] = await ctx.db
    .select()
    .from(packageMembers)
    .where(and(eq(packageMembers.package_id, packageId), eq(packageMembers.user_id, userId)))
  return row
}

const changeOf = (userId: string): Change => ({
  seq: 0,
  entity_type: COLLABORATOR_ENTITY,
  entity_id: userId,
  op: 'upsert',
})

/** Commits the steps, then lets this process's caches see the change at once. */
async function commit(ctx: ActionContext, steps: Stmt[], userId: string) {
  await ctx.writer.write(steps)
  ctx.caches.apply([changeOf(userId)])
}

/** Makes the user a collaborator on the dataset, or changes their capacity; returns the row. */
export async function setCollaborator(
  ctx: ActionContext,
  packageId: string,
  userId: string,
  capacity: string,
): Promise<CollaboratorRow> {
  const row: CollaboratorRow = {
    package_id: packageId,
    user_id: userId,
    capacity,
    modified: ctx.now(),
  }
  await commit(
    ctx,
    [
      ctx.db
        .insert(packageMembers)
        .values(row)
        .onConflictDoUpdate({
          target: [packageMembers.package_id, packageMembers.user_id],
          set: { capacity: row.capacity, modified: row.modified },
        }),
      ctx.db.insert(changeLog).values(changeRow(COLLABORATOR_ENTITY, userId)),
    ],
    userId,
  )
  return row
}

/** Ends one collaboration (a no-op when there is none). */
export async function removeCollaborator(ctx: ActionContext, packageId: string, userId: string) {
  await commit(
    ctx,
    [
      ctx.db
        .delete(packageMembers)
        .where(and(eq(packageMembers.package_id, packageId), eq(packageMembers.user_id, userId))),
      ctx.db.insert(changeLog).values(changeRow(COLLABORATOR_ENTITY, userId, 'delete')),
    ],
    userId,
  )
}

/**
 * Batch steps that end every collaboration on a dataset (package_delete, dataset_purge). The
 * change-log rows are taken from the rows themselves inside the batch, so a collaborator added
 * meanwhile is not missed; every process (this one included) drops the cached rights when it
 * reads the log, so the caller catches up after the commit.
 */
export function dropDatasetCollaborators(ctx: ActionContext, packageId: string): Step[] {
  return [
    ctx.db.run(sql`INSERT INTO change_log (entity_type, entity_id, op)
      SELECT ${COLLABORATOR_ENTITY}, user_id, 'delete' FROM package_member
      WHERE package_id = ${packageId}`),
    ctx.db.delete(packageMembers).where(eq(packageMembers.package_id, packageId)),
  ]
}

/** The same for every collaboration of a user (user_delete). */
export function dropUserCollaborations(ctx: ActionContext, userId: string): Step[] {
  return [
    ctx.db.delete(packageMembers).where(eq(packageMembers.user_id, userId)),
    ctx.db.insert(changeLog).values(changeRow(COLLABORATOR_ENTITY, userId, 'delete')),
  ]
}

/** Whether collaborator rows count at all (`service.auth.allow_dataset_collaborators`). */
export const collaboratorsEnabled = (ctx: ActionContext) =>
  ctx.config.bool('service.auth.allow_dataset_collaborators')

/** The datasets the user may read as a collaborator (none while the feature is off). */
export async function collaborationIds(
  ctx: ActionContext,
  user: Pick<UserRow, 'id'> | null = ctx.user,
): Promise<string[]> {
  if (!user || !collaboratorsEnabled(ctx)) return []
  return [...(await userCollaborations(ctx, user.id)).keys()]
}

