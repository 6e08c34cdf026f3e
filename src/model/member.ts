// Memberships of datasets, users and groups in groups and organizations: lookups and single writes.
import { and, eq, inArray, or } from 'drizzle-orm'
import type { BatchItem } from 'drizzle-orm/batch'
import { changeLog, groups, members, packages, users } from '../db/schema'
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { changeRow } from './changes'
import { forgetGroups } from './group'
import { forgetPackages } from './package'

type Step = BatchItem<'sqlite'>
export type MemberRow = typeof members.$inferSelect

export const memberDict = (m: MemberRow) => ({
  capacity: m.capacity,
  group_id: m.group_id,
  id: m.id,
  state: m.state,
  table_id: m.table_id,
  table_name: m.table_name,
})

/** Runs the steps as one batch, then lets this process's caches see the write. */
export async function commit(ctx: ActionContext, steps: Step[]) {
  if (!steps.length) return
  await ctx.db.batch(steps as [Step, ...Step[]])
  forgetGroups(ctx)
  forgetPackages(ctx)
  await ctx.changes.catchUp()
}

/** Change-log inserts for many rows, chunked below SQLite's bound-variable limit. */
export function changeSteps(ctx: ActionContext, rows: ReturnType<typeof changeRow>[]): Step[] {
  const out: Step[] = []
  for (let i = 0; i < rows.length; i += 2000)
    out.push(ctx.db.insert(changeLog).values(rows.slice(i, i + 2000)))
  return out
}

// ---- input schema of create / update / patch ------------------------------------------------
/** Rows of `table` by id or name (ids win over names). */
export async function findByIdOrName<T extends { id: string; name: string }>(
  ctx: ActionContext,
  table: typeof users | typeof packages | typeof groups,
  refs: string[],
): Promise<Map<string, T>> {
  const out = new Map<string, T>()
  if (!refs.length) return out
  const rows = (await ctx.db
    .select()
    .from(table)
    .where(or(inArray(table.id, refs), inArray(table.name, refs)))) as unknown as T[]
  for (const r of rows) out.set(r.name, r)
  for (const r of rows) out.set(r.id, r) // ids win over names
  return out
}


/** Active membership rows matching `cond`. */
export const activeMembers = (ctx: ActionContext, cond: ReturnType<typeof and>) =>
  ctx.db
    .select()
    .from(members)
    .where(and(cond, eq(members.state, 'active')))

/** The active membership of an object in a group, if any. */
export async function findMembership(
  ctx: ActionContext,
  groupId: string,
  tableName: string,
  tableId: string,
) {
  const [m] = await activeMembers(
    ctx,
    and(
      eq(members.group_id, groupId),
      eq(members.table_name, tableName),
      eq(members.table_id, tableId),
    ),
  )
  return m
}

function membershipChanges(groupId: string, tableName: string, tableId: string) {
  const rows = [changeRow('group', groupId)]
  // A dataset's dict lists its groups; a child group's dict lists its parents.
  if (tableName === 'package' || tableName === 'group') rows.push(changeRow(tableName, tableId))
  return rows
}

/** Adds an object to a group, or changes the capacity of its active membership. */
export async function setMembership(
  ctx: ActionContext,
  groupId: string,
  tableName: string,
  tableId: string,
  capacity: string,
): Promise<MemberRow> {
  const existing = await findMembership(ctx, groupId, tableName, tableId)
  const row: MemberRow = existing
    ? { ...existing, capacity }
    : {
        id: ctx.newId(),
        group_id: groupId,
        table_id: tableId,
        table_name: tableName,
        capacity,
        state: 'active',
      }
  const write = existing
    ? ctx.db.update(members).set({ capacity }).where(eq(members.id, existing.id))
    : ctx.db.insert(members).values(row)
  await commit(ctx, [write, ...changeSteps(ctx, membershipChanges(groupId, tableName, tableId))])
  return row
}

/** Ends the active membership of an object in a group (nothing when there is none). */
export async function endMembership(
  ctx: ActionContext,
  groupId: string,
  tableName: string,
  tableId: string,
) {
  const existing = await findMembership(ctx, groupId, tableName, tableId)
  if (!existing) return
  await commit(ctx, [
    ctx.db.update(members).set({ state: 'deleted' }).where(eq(members.id, existing.id)),
    ...changeSteps(ctx, membershipChanges(groupId, tableName, tableId)),
  ])
}

// ---- member_create / member_delete checks -------------------------------------------------

const MEMBER_TABLES = ['package', 'user', 'group'] as const

/**
 * The object of a member_create/member_delete call: its type must be package, user or group
 * (else `<Type> isn't a valid model`) and it must exist (else `<Type> was not found.`).
 */
export async function loadMemberObject(ctx: ActionContext, objectType: string, ref: string) {
  const title = objectType.replace(
    /[a-zA-Z]+/g,
    (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase(),
  )
  if (!(MEMBER_TABLES as readonly string[]).includes(objectType))
    throw ValidationError.message(`${title} isn't a valid model`)
  const table = objectType === 'package' ? packages : objectType === 'user' ? users : groups
  const found = await findByIdOrName<{ id: string; name: string }>(ctx, table, [ref])
  const obj = found.get(ref)
  if (!obj) throw new NotFound(`${title} was not found.`)
  return { id: obj.id, tableName: objectType }
}
