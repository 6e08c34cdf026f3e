// user_activity_list: what a user did, and what was done to their account, newest first.
import { defineAction } from '../action'
import { requireCanSeeUsers } from '../../auth/user'
import { activityListPage, PAGE_PARAMS_HELP } from '../activity-list'
import { userStream } from '../../model/activity-sources'
import { loadUser } from '../../model/user'
import { activityListParams } from '../../validation/activity'

export const userActivityList = defineAction({
  name: 'user_activity_list',
  readOnly: true,
  help: `Return a user's activity stream: the activities by the user and about the user, newest
first.

Activities about datasets that are private now, or were then, are left out unless you may
read those datasets (could read them then), and so are activities by hidden users (the site user, or
service.hide_activity_from_users). You must be allowed to see the user.

:param id: the id or name of the user
:type id: string
${PAGE_PARAMS_HELP}
:rtype: list of dictionaries`,
  // ckan: the schema is checked first; the user is looked up by the action itself
  validateFirst: true,
  auth: (ctx) => requireCanSeeUsers(ctx),
  params: activityListParams,
  async run(ctx, p) {
    const user = await loadUser(ctx, p.id)
    // include_hidden_activity is not honoured here: hidden users' activities stay out
    return activityListPage(ctx, () => userStream(user.id), p)
  },
})
