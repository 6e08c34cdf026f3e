// Activity stream rows: written in the same batch as the change they describe.
import type { ActionContext } from '../context'

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

function activityRowJson(ctx: ActionContext, activity_type: ActivityType, object_id: string, data: string) {
  return {
    id: ctx.newId(),
    timestamp: ctx.now(),
    user_id: ctx.user?.id ?? null,
    object_id,
    activity_type,
    data,
  }
}
