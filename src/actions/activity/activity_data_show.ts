// activity_data_show: the data of one activity (the object as it was), or one part of it.
import { defineAction } from '../action'
import { requireCanSeeActivity } from '../../auth/activity'
import { NotFound } from '../../errors'
import { activityToDict, loadActivity } from '../../model/activity'
import { requiredInOrder } from '../../validation/activity'

export const activityDataShow = defineAction({
  name: 'activity_data_show',
  readOnly: true,
  help: `Return the data of an activity: for a dataset change, the dataset dict as it was after it,
without who changed it and when.

You must be allowed to see the activity with its data (see activity_show).

:param id: the id of the activity
:type id: string
:param object_type: return only this part of the data: 'package', 'user', 'group' or
    'organization' (optional)
:type object_type: string
:rtype: dictionary`,
  validateFirst: true,
  auth: async (ctx, input) => requireCanSeeActivity(ctx, await loadActivity(ctx, input.id), true),
  params: requiredInOrder('id'),
  async run(ctx, input) {
    const data = activityToDict(await loadActivity(ctx, input.id), true).data
    const objectType = input.object_type
    if (objectType === undefined || objectType === null || objectType === '') return data
    if (!Object.prototype.hasOwnProperty.call(data, String(objectType)))
      throw new NotFound('Could not find that object_type in the activity')
    return data[String(objectType)]
  },
})
