// activity_diff: how an object changed between the previous activity about it and this one.
import { defineAction } from '../action'
import { requireCanSeeActivity, requireCouldReadThen } from '../../auth/activity'
import { NotFound, ValidationError } from '../../errors'
import { activityToDict, loadActivity, previousActivity } from '../../model/activity'
import { DIFF_TYPES, diffObjects, type DiffType } from '../../model/activity-diff'
import { requiredInOrder } from '../../validation/activity'
import { pyStr } from '../../lib/py-repr'

export const activityDiff = defineAction({
  name: 'activity_diff',
  readOnly: true,
  help: `Return the difference between the object of an activity and the same object in the
activity about it just before.

The objects are compared as indented JSON with sorted keys. You must be allowed to see the
activity with its data (see activity_show).

:param id: the id of the activity
:type id: string
:param object_type: which part of the activity data to compare: 'package', 'user', 'group'
    or 'organization'
:type object_type: string
:param diff_type: 'unified' (the default), 'context' or 'html' (a side-by-side table)
:type diff_type: string
:returns: the diff, and the two activities (with their data), older first
:rtype: dictionary`,
  validateFirst: true,
  auth: async (ctx, input) => requireCanSeeActivity(ctx, await loadActivity(ctx, input.id), true),
  params: requiredInOrder('id', 'object_type'),
  async run(ctx, input) {
    const activity = await loadActivity(ctx, input.id)
    const prev = await previousActivity(ctx, activity)
    if (!prev) throw new NotFound('Previous activity for this object not found')
    // the earlier version may be one of a private dataset the caller could not read then
    await requireCouldReadThen(ctx, prev)
    const pair = [activityToDict(prev, true), activityToDict(activity, true)]
    const key = pyStr(input.object_type)
    if (!pair.every((a) => Object.prototype.hasOwnProperty.call(a.data, key)))
      throw new NotFound('Could not find object in the activity data')
    const type = input.diff_type ?? 'unified'
    if (!DIFF_TYPES.includes(type as DiffType))
      throw ValidationError.message('diff_type not recognized')
    return {
      diff: diffObjects(pair[0]!.data[key], pair[1]!.data[key], type as DiffType),
      activities: pair,
    }
  },
})
