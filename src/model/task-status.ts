// Task statuses (CKAN's task_status table): lookups, input checks and the create-or-update write.
import { and, eq, inArray } from 'drizzle-orm'
import { taskStatuses } from '../db/schema'
import type { ActionContext } from '../context'
import { NotFound, ValidationError } from '../errors'
import { FieldFail, isEmptyValue, MISSING } from '../validation/fields'
import { asText, parseIsoDate } from './package-validate'
import { isUniqueViolation } from './user'
import type { Stmt } from './write-batcher'

export type TaskStatusRow = typeof taskStatuses.$inferSelect

/** The task status dict: the table's columns in their order. */
export const taskStatusToDict = (r: TaskStatusRow) => ({
  id: r.id,
  entity_id: r.entity_id,
  entity_type: r.entity_type,
  task_type: r.task_type,
  key: r.key,
  value: r.value,
  state: r.state,
  error: r.error,
  last_updated: r.last_updated,
})

/** The task status with this id; ckan: nothing for a false id. */
export async function findTaskStatus(
  ctx: ActionContext,
  id: unknown,
): Promise<TaskStatusRow | undefined> {
  if (!id || typeof id === 'object') return undefined
  const [row] = await ctx.db
    .select()
    .from(taskStatuses)
    .where(eq(taskStatuses.id, asText(id)))
  return row
}

/** The task status of an entity's task and key, if any. */
export async function findTaskStatusByKey(
  ctx: ActionContext,
  entityId: string,
  taskType: string,
  key: string,
): Promise<TaskStatusRow | undefined> {
  const t = taskStatuses
  const [row] = await ctx.db
    .select()
    .from(t)
    .where(and(eq(t.entity_id, entityId), eq(t.task_type, taskType), eq(t.key, key)))
  return row
}

/** ckan: task_status_update's 404 when `id` is given and names no task status. */
export async function loadTaskStatusIfId(
  ctx: ActionContext,
  input: Record<string, unknown>,
): Promise<TaskStatusRow | undefined> {
  if (!input.id) return undefined
  const row = await findTaskStatus(ctx, input.id)
  if (!row) throw new NotFound('TaskStatus was not found.')
  return row
}

/** task_status_delete's task status: `id` required, a bare 404 when unknown. */
export async function loadTaskStatus(ctx: ActionContext, id: unknown): Promise<TaskStatusRow> {
  if (id === undefined) throw ValidationError.field('id', MISSING)
  const row = await findTaskStatus(ctx, id)
  if (!row) throw new NotFound()
  return row
}

const isDict = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v)

/** The `data` of task_status_update_many: a list of dicts (CKAN fails with a 500 otherwise). */
export function taskStatusList(input: Record<string, unknown>): Record<string, unknown>[] {
  const data = input.data
  if (data === undefined || data === null) throw ValidationError.field('data', MISSING)
  if (!Array.isArray(data) || !data.every(isDict))
    throw ValidationError.field('data', 'Must be a list of dicts')
  return data
}

const KEY_FIELDS = ['entity_id', 'entity_type', 'task_type', 'key'] as const
const OPTIONAL_FIELDS = ['value', 'state', 'error'] as const

/** Checked task_status_update input: the four key fields, and the others that were given. */
export interface TaskStatusInput {
  entity_id: string
  entity_type: string
  task_type: string
  key: string
  value?: string
  state?: string
  error?: string
  last_updated?: string | null
}

/** default_task_status_schema: the key fields required; `id` is not data (it picks the row). */
export function checkTaskStatusInput(raw: Record<string, unknown>): TaskStatusInput {
  const errors: Record<string, string[]> = {}
  const out: Record<string, unknown> = {}
  for (const k of KEY_FIELDS) {
    if (isEmptyValue(raw[k])) errors[k] = [MISSING]
    else out[k] = asText(raw[k])
  }
  // ckan: ignore_missing drops absent and null values, so the stored ones are kept
  for (const k of OPTIONAL_FIELDS)
    if (raw[k] !== undefined && raw[k] !== null) out[k] = asText(raw[k])
  if (raw.last_updated !== undefined && raw.last_updated !== null) {
    // ckan lets the database parse it (a 500 when it cannot): the resource date rules instead
    const at = parseIsoDate(raw.last_updated)
    if (at instanceof FieldFail) errors.last_updated = at.msgs
    else out.last_updated = at
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return out as unknown as TaskStatusInput
}

/** One task_status_update: the row named by `id` (looked up beforehand), or none. */
export interface TaskStatusWrite {
  row?: TaskStatusRow
  input: TaskStatusInput
}

const CONFLICT = 'Another task status has this entity_id, task_type and key.'

const uniqueKey = (r: Pick<TaskStatusRow, 'entity_id' | 'task_type' | 'key'>) =>
  JSON.stringify([r.entity_id, r.task_type, r.key])

/**
 * Applies the writes in order in one atomic batch and returns each resulting row. Without a
 * row, an item updates the task status with its entity_id, task_type and key, or creates one
 * (value "" and last_updated now unless given: CKAN's value column is NOT NULL).
 */
export async function saveTaskStatuses(ctx: ActionContext, writes: TaskStatusWrite[]) {
  try {
    return await trySave(ctx, writes)
  } catch (e) {
    // A concurrent writer created one of the keys: the second plan updates its row instead.
    if (!isUniqueViolation(e)) throw e
    return trySave(ctx, writes)
  }
}

async function trySave(ctx: ActionContext, writes: TaskStatusWrite[]): Promise<TaskStatusRow[]> {
  const t = taskStatuses
  const entityIds = [...new Set(writes.map((w) => w.input.entity_id))]
  const stored = entityIds.length
    ? await ctx.db.select().from(t).where(inArray(t.entity_id, entityIds))
    : []
  // The rows as the writes so far leave them, by id and by unique key.
  const byId = new Map<string, TaskStatusRow>()
  for (const r of [...writes.flatMap((w) => (w.row ? [w.row] : [])), ...stored]) byId.set(r.id, r)
  const existed = new Set(byId.keys())
  const byKey = new Map([...byId.values()].map((r) => [uniqueKey(r), r.id]))
  const stmts: Stmt[] = []
  const results: TaskStatusRow[] = []
  for (const { row, input } of writes) {
    const currentId = row ? row.id : byKey.get(uniqueKey(input))
    const current = currentId ? byId.get(currentId) : undefined
    const next: TaskStatusRow = current
      ? { ...current, ...input }
      : {
          id: ctx.newId(),
          value: '',
          state: null,
          error: null,
          last_updated: ctx.now(),
          ...input,
        }
    const holder = byKey.get(uniqueKey(next))
    if (holder && holder !== next.id) throw ValidationError.field('key', CONFLICT)
    if (current) byKey.delete(uniqueKey(current))
    byKey.set(uniqueKey(next), next.id)
    byId.set(next.id, next)
    if (existed.has(next.id)) stmts.push(ctx.db.update(t).set(next).where(eq(t.id, next.id)))
    else {
      stmts.push(ctx.db.insert(t).values(next))
      existed.add(next.id)
    }
    results.push(next)
  }
  if (stmts.length) await ctx.writer.write(stmts)
  return results
}
