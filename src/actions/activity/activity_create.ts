// activity_create: record an activity by hand (sysadmins; e.g. for harvesters and migrations).
import { z } from 'zod'
import { defineAction, type DataDict } from '../action'
import { sysadminsOnly } from '../../auth/caller'
import type { ActionContext } from '../../context'
import { activities, changeLog } from '../../db/schema'
import { ValidationError, type ErrorDict } from '../../errors'
import {
  ACTIVITY_OBJECT_KINDS,
  activityToDict,
  isActivityType,
  type StoredActivity,
} from '../../model/activity'
import { changeRow } from '../../model/changes'
import { findUser } from '../../model/user'
import { jsonObject, MISSING } from '../../validation/fields'

const text = (v: unknown) =>
  v === undefined || v === null || v === ''
    ? undefined
    : typeof v === 'object'
      ? JSON.stringify(v)
      : String(v)

const TABLE = { package: 'package', user: '"user"', group: '"group"' } as const
const NOT_FOUND = {
  package: 'Not found: Dataset',
  user: 'Not found: User',
  group: 'Not found: Group',
}

/** ckan default_create_activity_schema: every field is checked and all errors reported at once. */
async function checkInput(ctx: ActionContext, input: DataDict) {
  const errors: ErrorDict = {}
  const add = (k: string, msg: string) => void ((errors[k] ??= []) as string[]).push(msg)
  const userRef = text(input.user_id)
  const objectId = text(input.object_id)
  const type = text(input.activity_type)
  const user = userRef === undefined ? undefined : await findUser(ctx, userRef)
  if (!user) add('user_id', userRef === undefined ? MISSING : 'Not found: User')
  if (type === undefined) add('activity_type', MISSING)
  else if (!isActivityType(type)) add('activity_type', 'Not found: Activity type')
  if (objectId === undefined) add('object_id', MISSING)
  else if (type !== undefined && !isActivityType(type))
    add('object_id', `There is no object_id validator for activity type "${type}"`)
  else if (type !== undefined && isActivityType(type)) {
    // ckan: the object is looked up by id only, in any state
    const kind = ACTIVITY_OBJECT_KINDS[type]
    const [row] = await ctx.read(`SELECT 1 AS x FROM ${TABLE[kind]} WHERE id = ?`, [objectId])
    if (!row) add('object_id', NOT_FOUND[kind])
  }
  const data = jsonObject.safeParse(input.data)
  if (!data.success) add('data', data.error.issues[0]!.message)
  if (Object.keys(errors).length) throw new ValidationError(errors)
  return { user_id: user!.id, object_id: objectId!, activity_type: type!, data: data.data ?? {} }
}

export const activityCreate = defineAction({
  name: 'activity_create',
  readOnly: false,
  help: `Record a new activity in the activity streams. Only sysadmins may do this.

Nothing is recorded, and nothing returned, while service.activity_streams_enabled is off.

:param user_id: the id or name of the user who carried out the activity
:type user_id: string
:param object_id: the id of the object of the activity (a dataset, user, group or
    organization, as the activity type says)
:type object_id: string
:param activity_type: the type of activity, e.g. 'new package', 'changed user',
    'deleted group', 'follow dataset'
:type activity_type: string
:param data: more about the activity, e.g. {"package": <dataset dict>} (optional)
:type data: dictionary
:returns: the new activity (its data reduced to the object's title)
:rtype: dictionary`,
  // ckan: everyone but sysadmins gets a bare "Access denied"
  auth: sysadminsOnly(),
  params: z.looseObject({}),
  async run(ctx, _params, input) {
    // ckan: with activity streams off the call does nothing, whatever it was given
    if (!ctx.config.bool('service.activity_streams_enabled')) return null
    const checked = await checkInput(ctx, input)
    const row: StoredActivity = {
      id: ctx.newId(),
      timestamp: ctx.now(),
      ...checked,
      data: JSON.stringify(checked.data),
    }
    await ctx.writer.write([
      ctx.db.insert(activities).values(row),
      ctx.db.insert(changeLog).values(changeRow('activity', row.id)),
    ])
    return activityToDict(row, false)
  },
})
