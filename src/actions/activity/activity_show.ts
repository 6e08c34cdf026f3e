// activity_show: one activity, with its data (the object as it was) or only the object's title.
import { defineAction } from '../action'
import { requireCanSeeActivity } from '../../auth/activity'
import { activityToDict, loadActivity } from '../../model/activity'
import { toBool } from '../../validation/fields'
import { requiredInOrder } from '../../validation/activity'

export const activityShow = defineAction({
  name: 'activity_show',
  readOnly: true,
  help: `Return one activity of an activity stream.

Without include_data the data holds only the title of the dataset or group; with it, the
whole object as it was after the activity. Only dataset activities can be shown, to those
who may see the dataset (with include_data: who may edit it, unless
service.auth.public_activity_stream_detail is on); sysadmins may see any activity.

:param id: the id of the activity
:type id: string
:param include_data: include the full object dict in data (required)
:type include_data: bool
:rtype: dictionary`,
  // ckan: both parameters are required before the activity is looked up
  validateFirst: true,
  auth: async (ctx, input) =>
    requireCanSeeActivity(ctx, await loadActivity(ctx, input.id), toBool(input.include_data)),
  params: requiredInOrder('id', 'include_data'),
  async run(ctx, input) {
    const activity = await loadActivity(ctx, input.id)
    return activityToDict(activity, toBool(input.include_data))
  },
})
