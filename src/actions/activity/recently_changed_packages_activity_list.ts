// recently_changed_packages_activity_list: the site-wide stream of dataset activities.
import { z } from 'zod'
import { defineAction } from '../action'
import { activityListPage, PAGE_PARAMS_HELP } from '../activity-list'
import { recentPackagesStream } from '../../model/activity-sources'
import { pageParams } from '../../validation/activity'

export const recentlyChangedPackagesActivityList = defineAction({
  name: 'recently_changed_packages_activity_list',
  readOnly: true,
  help: `Return the activities of every dataset on the site (new, changed and deleted datasets),
newest first.

Activities of datasets that are private now, or were when the activity was recorded, are shown
only to those who may read them (could read them then).

${PAGE_PARAMS_HELP}
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: 'anyone',
  params: z.object(pageParams),
  async run(ctx, p) {
    return activityListPage(ctx, () => recentPackagesStream(), p)
  },
})
