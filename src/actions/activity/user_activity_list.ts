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

Each activity's data holds only the title of its object under service.api_compat 2.9, and the
whole object as it was after the activity under 2.10 and later.

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
    // ckan: include_hidden_activity and the type filters are accepted but not read here
    const { offset, limit, before, after } = p
    return activityListPage(ctx, () => userStream(user.id), { offset, limit, before, after })
  },
})
