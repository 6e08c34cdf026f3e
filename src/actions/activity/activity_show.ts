// activity_show: one activity, with its data (the object as it was) or only the object's title.
import { defineAction, type DataDict } from '../action'
import { requireCanSeeActivity } from '../../auth/activity'
import type { ActionContext } from '../../context'
import { apiAtLeast } from '../../config/api-compat'
import { ValidationError } from '../../errors'
import { activityToDict, loadActivity } from '../../model/activity'
import { MISSING, toBool } from '../../validation/fields'
import { requiredInOrder } from '../../validation/activity'

/**
 * ckan 2.9 requires include_data before the activity is looked up; CKAN 2.10's activity plugin
 * no longer reads it for the answer. Checked first by auth (everyone but sysadmins) and again
 * by run (sysadmins, whose auth is skipped), so both see it before the lookup.
 */
function requireIncludeDataUnder29(ctx: ActionContext, input: DataDict) {
  if (apiAtLeast(ctx.config, '2.10')) return
  if (input.include_data === undefined || input.include_data === null)
    throw ValidationError.field('include_data', MISSING)
}

export const activityShow = defineAction({
  name: 'activity_show',
  readOnly: true,
  help: `Return one activity of an activity stream.

Under service.api_compat 2.9, without include_data the data holds only the title of the dataset
or group, and with it the whole object as it was after the activity; include_data is required.
Under 2.10 and later the data is always the whole object, and include_data is optional (default:
False): it only decides what you need to see it. Only dataset activities can be shown, to those
who may see the dataset (with include_data: who may edit it, unless
service.auth.public_activity_stream_detail is on); sysadmins may see any activity.

:param id: the id of the activity
:type id: string
:param include_data: include the full object dict in data (required under 2.9)
:type include_data: bool
:rtype: dictionary`,
  // ckan: the parameters are checked before the activity is looked up
  validateFirst: true,
  auth: async (ctx, input) => {
    requireIncludeDataUnder29(ctx, input)
    // ckan 2.10 reads a missing include_data as false here (sysadmins never get here)
    await requireCanSeeActivity(ctx, await loadActivity(ctx, input.id), toBool(input.include_data))
  },
  params: requiredInOrder('id'),
  async run(ctx, input) {
    requireIncludeDataUnder29(ctx, input)
    const activity = await loadActivity(ctx, input.id)
    const whole = apiAtLeast(ctx.config, '2.10') || toBool(input.include_data)
    return activityToDict(activity, whole)
  },
})
