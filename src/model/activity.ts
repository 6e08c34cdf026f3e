// Activity rows: written in the batch of the change they describe, read back as activity dicts.
import type { ActionContext } from '../context'
import { NotFound } from '../errors'
import { pyStr } from '../lib/py-repr'
import { unpackText } from '../lib/packed-text'
import { apiAtLeast } from '../config/api-compat'

export type ActivityType =
  | 'new package'
  | 'changed package'
  | 'deleted package'
  | 'new group'
  | 'changed group'
  | 'deleted group'
  | 'new organization'
  | 'changed organization'
  | 'deleted organization'
  | 'new user'
  | 'changed user'
  | 'follow dataset'
  | 'follow user'
  | 'follow group'

/**
 * Values for an `activities` insert, or null when activity streams are off. `data` is the
 * full object dict at that time, e.g. `{ package: dict }` or `{ group: dict }`; the actor's
 * name is added for package activities.
 */
export function activityRow(
  ctx: ActionContext,
  activity_type: ActivityType,
  object_id: string,
  data: Record<string, unknown>,
) {
  if (!ctx.config.bool('service.activity_streams_enabled')) return null
  const withActor = 'package' in data && ctx.user ? { ...data, actor: ctx.user.name } : data
  return activityRowJson(ctx, activity_type, object_id, JSON.stringify(withActor))
}

/**
 * A package activity whose dataset dict is already serialised (`dictJson`), so the same text
 * serves the response and the activity row.
 */
export function packageActivityRow(
  ctx: ActionContext,
  activity_type: ActivityType,
  object_id: string,
  dictJson: string,
) {
  if (!ctx.config.bool('service.activity_streams_enabled')) return null
  const actor = ctx.user ? `,"actor":${JSON.stringify(ctx.user.name)}` : ''
  return activityRowJson(ctx, activity_type, object_id, `{"package":${dictJson}${actor}}`)
}

function activityRowJson(
  ctx: ActionContext,
  activity_type: ActivityType,
  object_id: string,
  data: string,
) {
  return {
    id: ctx.newId(),
    timestamp: ctx.now(),
    user_id: ctx.user?.id ?? null,
    object_id,
    activity_type,
    data,
  }
}

/**
 * Whether a change to a private dataset records an activity: CKAN 2.11 does (streams show it
 * only to those who could read the dataset then, activity-query.ts); 2.9 and 2.10 record none.
 */
export const recordsPrivateActivity = (ctx: ActionContext): boolean =>
  apiAtLeast(ctx.config, '2.11')

/** Every activity type activity_create accepts, with the kind of object its object_id names. */
export const ACTIVITY_OBJECT_KINDS: Record<ActivityType, 'package' | 'user' | 'group'> = {
  'new package': 'package',
  'changed package': 'package',
  'deleted package': 'package',
  'follow dataset': 'package',
  'new user': 'user',
  'changed user': 'user',
  'follow user': 'user',
  'new group': 'group',
  'changed group': 'group',
  'deleted group': 'group',
  'new organization': 'group',
  'changed organization': 'group',
  'deleted organization': 'group',
  'follow group': 'group',
}

export const isActivityType = (v: string): v is ActivityType =>
  Object.prototype.hasOwnProperty.call(ACTIVITY_OBJECT_KINDS, v)

/** An activity as stored (the columns the read queries select). */
export interface StoredActivity {
  id: string
  timestamp: string
  user_id: string | null
  object_id: string | null
  activity_type: string
  /** JSON text of the data dict. */
  data: string
}

export interface ActivityDict {
  id: string
  timestamp: string
  user_id: string | null
  object_id: string | null
  revision_id: null
  activity_type: string
  data: Record<string, unknown>
  is_new?: boolean
}

function parseData(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  } catch {
    return {} // a corrupt row must not break a whole stream
  }
}

/**
 * The activity dict. ckan: without `includeData`, data keeps only `{title}` of each sub-object
 * that has one (the package or group), so streams never carry whole datasets.
 */
export function activityToDict(row: StoredActivity, includeData: boolean): ActivityDict {
  const full = parseData(row.data)
  let data = full
  if (!includeData) {
    data = {}
    for (const [k, v] of Object.entries(full))
      if (v && typeof v === 'object' && !Array.isArray(v) && 'title' in v)
        data[k] = { title: (v as { title: unknown }).title }
  }
  return {
    id: row.id,
    timestamp: row.timestamp,
    user_id: row.user_id,
    object_id: row.object_id,
    revision_id: null,
    activity_type: row.activity_type,
    data,
  }
}

const ROW_SQL =
  'SELECT rowid AS rid, id, timestamp, user_id, object_id, activity_type, data FROM activity'

/** A row as ctx.read() gives it (selected with `rowid AS rid`). */
export const storedActivity = (r: Record<string, unknown>): StoredActivity & { rid: number } => ({
  rid: Number(r.rid),
  id: String(r.id),
  timestamp: String(r.timestamp),
  user_id: r.user_id == null ? null : String(r.user_id),
  object_id: r.object_id == null ? null : String(r.object_id),
  activity_type: String(r.activity_type),
  data: unpackText(r.data) ?? '{}',
})

/** The activity with this id; memoised per request (auth and run share it). 404 when unknown. */
export function loadActivity(
  ctx: ActionContext,
  id: unknown,
): Promise<StoredActivity & { rid: number }> {
  // pyStr: any JSON value (String() throws on a dict whose toString is not a function)
  const key = `activity:${pyStr(id)}`
  let p = ctx.memo.get(key) as Promise<StoredActivity & { rid: number }> | undefined
  if (!p) {
    p = ctx.read(`${ROW_SQL} WHERE id = ?`, [pyStr(id)]).then(([r]) => {
      if (!r) throw new NotFound()
      return storedActivity(r)
    })
    ctx.memo.set(key, p)
    p.catch(() => ctx.memo.delete(key))
  }
  return p
}

/**
 * The activity about the same object just before this one (ties on timestamp go by insertion
 * order), or undefined.
 */
export async function previousActivity(
  ctx: ActionContext,
  a: StoredActivity & { rid: number },
): Promise<StoredActivity | undefined> {
  const [r] = await ctx.read(
    `${ROW_SQL} WHERE object_id = ? AND (timestamp < ? OR (timestamp = ? AND rowid < ?))
      ORDER BY timestamp DESC, rowid DESC LIMIT 1`,
    [a.object_id, a.timestamp, a.timestamp, a.rid],
  )
  return r ? storedActivity(r) : undefined
}
