// recently_changed_packages_activity_list: the site-wide stream of dataset activities.
import { z } from 'zod'
import { defineAction } from '../action'
import { activityListPage } from '../activity-list'
import { recentPackagesStream } from '../../model/activity-sources'
import { pageParams } from '../../validation/activity'

export const recentlyChangedPackagesActivityList = defineAction({
  name: 'recently_changed_packages_activity_list',
  readOnly: true,
  help: `Return the activities of every dataset on the site (new, changed and deleted datasets),
newest first.

Activities of datasets that are private now, or were when the activity was recorded, are shown
only to those who may read them (could read them then). Each activity's data holds only the
dataset's title under service.api_compat 2.9, and the whole dataset as it was after the activity
under 2.10 and later.

:param offset: how many activities to skip (optional, default: 0)
:type offset: int
:param limit: the maximum number of activities to return (optional, default: 31, or
    service.activity_list_limit; at most 100, or service.activity_list_limit_max)
:type limit: int
:param before: checked as in the other activity lists, but not applied (as CKAN does)
:type before: float
:param after: checked as in the other activity lists, but not applied (as CKAN does)
:type after: float
:rtype: list of dictionaries`,
  validateFirst: true,
  auth: 'anyone',
  params: z.object(pageParams),
  async run(ctx, p) {
    // ckan: before and after are validated by the schema but not read by this action
    return activityListPage(ctx, () => recentPackagesStream(), { offset: p.offset, limit: p.limit })
  },
})
